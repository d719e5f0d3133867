//! The `m1nd init --demo` seed: a small, busy project so every cockpit slot
//! has something to show on first run.
//!
//! Counts are pinned by tests: 6 missions (2 waiting, 3 in flight, 1 landed),
//! 12 blocks (9 fresh, 2 stale, 1 candidate), 7 memories, 3 alerts, 6 modules
//! (2 low), 4 drifted nodes, 3 agents present.

use super::state::{Alert, Block, BlockStatus, Drift, Memory, Mission, Module, Phase, Presence, State};

pub fn state() -> State {
    State {
        missions: missions(),
        blocks: blocks(),
        memories: memories(),
        alerts: alerts(),
        modules: modules(),
        drift: drift(),
        presences: presences(),
        ..State::empty()
    }
}

fn missions() -> Vec<Mission> {
    [
        ("msn_4c1e9a07b2d3", "Retry ingest on transient git errors", Phase::MergeWait, "claude-7f2"),
        ("msn_9b20f3e6c1a8", "Key the walk cache by repository", Phase::MergeWait, "codex-a91"),
        ("msn_e71d05c4a9f2", "Tighten auth token expiry checks", Phase::Executing, "claude-7f2"),
        ("msn_2a6f8d13e5b0", "Document the snapshot file format", Phase::Judging, "gemini-3c4"),
        ("msn_5d93b7a0f41c", "Cap batch sizes in the HTTP server", Phase::Review, "codex-a91"),
        ("msn_c08e2f6b9d75", "Remove the legacy CSV exporter", Phase::Landed, "claude-7f2"),
    ]
    .into_iter()
    .map(|(id, title, phase, agent)| Mission { id: id.into(), title: title.into(), phase, agent: agent.into() })
    .collect()
}

fn blocks() -> Vec<Block> {
    use BlockStatus::{Candidate, Fresh, Stale};
    [
        (
            "sb_graph_core",
            "Graph core: nodes, edges and ids",
            Fresh,
            "rc_3f9a1c",
            "9e1c4b7a20d35f68",
            "crates/graph/src/lib.rs",
        ),
        (
            "sb_graph_walk",
            "Graph walks and the walk cache",
            Stale,
            "rc_81d2e0",
            "4a7d09c2e6b1f853",
            "crates/graph/src/walk.rs",
        ),
        ("sb_ingest_git", "Git ingest", Fresh, "rc_c45b7e", "b2f8e61d0a9c3474", "crates/ingest/src/git.rs"),
        (
            "sb_ingest_queue",
            "Ingest queue and retries",
            Stale,
            "rc_0e6fa3",
            "17c3a9e5d2b08f46",
            "crates/ingest/src/queue.rs",
        ),
        ("sb_store_wal", "Store write-ahead log", Fresh, "rc_5a28d9", "e04b9f7c13a6d285", "crates/store/src/wal.rs"),
        (
            "sb_store_snapshot",
            "Store snapshots and compaction",
            Fresh,
            "rc_d7c016",
            "6f2e8a4b91c7d30e",
            "crates/store/src/snapshot.rs",
        ),
        (
            "sb_server_http",
            "HTTP server and routing",
            Fresh,
            "rc_92e4b1",
            "c8a13d6e5f027b94",
            "crates/server/src/http.rs",
        ),
        ("sb_server_batch", "Batch endpoint", Fresh, "rc_4b7f2c", "3d95c0e8a6f1b472", "crates/server/src/batch.rs"),
        (
            "sb_auth_tokens",
            "Auth tokens and expiry",
            Fresh,
            "rc_e18a5d",
            "a7f04c2b9e6d1835",
            "crates/auth/src/token.rs",
        ),
        ("sb_cli", "Command-line entry points", Fresh, "rc_6c3d90", "58b2e7a1c04f9d63", "crates/cli/src/main.rs"),
        ("sb_telemetry", "Telemetry export", Fresh, "rc_a09e47", "0c6d3f8b2a75e914", "crates/telemetry/src/export.rs"),
        (
            "sb_plugin_host",
            "Plugin host (proposed)",
            Candidate,
            "none",
            "f1a8c35e07b96d42",
            "crates/plugins/src/host.rs",
        ),
    ]
    .into_iter()
    .map(|(id, title, status, receipt, hash, node)| Block {
        id: id.into(),
        title: title.into(),
        status,
        receipt: receipt.into(),
        hash: hash.into(),
        node: node.into(),
    })
    .collect()
}

fn memories() -> Vec<Memory> {
    [
        (
            "mem_a1f03c9e",
            "The ingest queue retries a job three times; the fourth failure parks it instead of dropping it.",
            "claude-7f2",
            "2025-11-18T09:14:02Z",
        ),
        (
            "mem_b7d2e418",
            "Walk cache keys must include the repository id: two repositories once shared one entry.",
            "codex-a91",
            "2025-11-19T16:40:37Z",
        ),
        (
            "mem_c30e9b75",
            "Auth tokens are compared in constant time. Keep it that way when touching token.rs.",
            "human",
            "2025-11-21T11:02:19Z",
        ),
        (
            "mem_d95a1f20",
            "CI runs the store tests on one thread because the WAL tests share a scratch directory.",
            "ci notes",
            "2025-11-24T08:55:41Z",
        ),
        (
            "mem_e24c7d83",
            "Two clients parse the batch endpoint's 413 message; change its wording only with them.",
            "codex-a91",
            "2025-11-26T14:21:06Z",
        ),
        (
            "mem_f6b8034a",
            "Snapshots are written before compaction, never after: compaction assumes a fresh one.",
            "claude-7f2",
            "2025-11-28T10:37:52Z",
        ),
        (
            "mem_0a5e92c1",
            "Telemetry export is best effort and must never block a request.",
            "human",
            "2025-11-29T17:03:28Z",
        ),
    ]
    .into_iter()
    .map(|(id, claim, source, at)| Memory { id: id.into(), claim: claim.into(), source: source.into(), at: at.into() })
    .collect()
}

fn alerts() -> Vec<Alert> {
    [
        ("al_walk_hits", "warn", "walk cache hit rate fell to 41% after the last deploy", "crates/graph/src/walk.rs"),
        ("al_ingest_parked", "error", "ingest job parked after 3 failed git fetches", "crates/ingest/src/queue.rs"),
        ("al_stale_receipts", "info", "2 block receipts are stale; re-verify before landing", "crates/graph"),
    ]
    .into_iter()
    .map(|(id, level, text, node)| Alert { id: id.into(), level: level.into(), text: text.into(), node: node.into() })
    .collect()
}

fn modules() -> Vec<Module> {
    [
        ("crates/graph", "0.82", "1 in 90 days"),
        ("crates/ingest", "0.41", "6 in 90 days"),
        ("crates/store", "0.93", "none in 90 days"),
        ("crates/server", "0.67", "3 in 90 days"),
        ("crates/auth", "0.88", "1 in 90 days"),
        ("crates/telemetry", "0.38", "5 in 90 days"),
    ]
    .into_iter()
    .map(|(id, score, defects)| Module { id: id.into(), score: score.into(), defects: defects.into() })
    .collect()
}

fn drift() -> Vec<Drift> {
    [
        ("crates/graph/src/walk.rs", "cache key signature changed at 3 call sites", "crates/graph/src/lib.rs"),
        ("crates/ingest/src/queue.rs", "retry limits moved into the ingest config", "crates/ingest/src/config.rs"),
        ("crates/server/src/batch.rs", "max batch size now read from settings", "crates/server/src/settings.rs"),
        ("crates/auth/src/token.rs", "expiry check reordered by an open mission", "crates/auth/src/clock.rs"),
    ]
    .into_iter()
    .map(|(id, evidence, cause)| Drift { id: id.into(), evidence: evidence.into(), cause: cause.into() })
    .collect()
}

fn presences() -> Vec<Presence> {
    [
        ("claude-7f2", "executing msn_e71d05c4a9f2 in crates/auth", "2025-11-30T08:02:11Z"),
        ("codex-a91", "reviewing msn_5d93b7a0f41c", "2025-11-30T08:47:55Z"),
        ("gemini-3c4", "judging msn_2a6f8d13e5b0", "2025-11-30T09:10:30Z"),
    ]
    .into_iter()
    .map(|(id, doing, since)| Presence { id: id.into(), doing: doing.into(), since: since.into() })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_is_valid_and_has_the_documented_shape() {
        let state = state();
        assert_eq!(state.validate(), Ok(()));
        assert_eq!(state.store_version, 1);
        let phases = |p: Phase| state.missions.iter().filter(|m| m.phase == p).count();
        assert_eq!(state.missions.len(), 6);
        assert_eq!(phases(Phase::MergeWait), 2);
        assert_eq!(state.missions.iter().filter(|m| m.phase.in_flight()).count(), 3);
        assert_eq!(phases(Phase::Landed), 1);
        let status = |s: BlockStatus| state.blocks.iter().filter(|b| b.status == s).count();
        assert_eq!((status(BlockStatus::Fresh), status(BlockStatus::Stale), status(BlockStatus::Candidate)), (9, 2, 1));
        let counts = state.counts();
        assert_eq!((counts.memories, counts.alerts, counts.modules, counts.drift, counts.presences), (7, 3, 6, 4, 3));
    }

    #[test]
    fn seed_text_fits_the_display_caps() {
        // Truncation in the cockpit would hide the point of a demo line.
        let state = state();
        let fits = |facet: m1nd_core::Facet, field: &str, value: &str| {
            let cap = facet.items().and_then(|i| i.field(field)).map_or(0, |f| f.cap);
            assert!(value.chars().count() <= cap, "{field} `{value}` > {cap}");
        };
        use m1nd_core::Facet;
        for m in &state.missions {
            fits(Facet::Missions, "title", &m.title);
            fits(Facet::Missions, "agent", &m.agent);
        }
        for b in &state.blocks {
            fits(Facet::Map, "id", &b.id);
            fits(Facet::Map, "title", &b.title);
            fits(Facet::Map, "hash", &b.hash);
            fits(Facet::Map, "node", &b.node);
        }
        for m in &state.memories {
            fits(Facet::Memories, "claim", &m.claim);
            fits(Facet::Memories, "source", &m.source);
            fits(Facet::Memories, "at", &m.at);
        }
        for a in &state.alerts {
            fits(Facet::Health, "text", &a.text);
            fits(Facet::Health, "node", &a.node);
        }
        for d in &state.drift {
            fits(Facet::Drift, "id", &d.id);
            fits(Facet::Drift, "evidence", &d.evidence);
            fits(Facet::Drift, "cause", &d.cause);
        }
        for p in &state.presences {
            fits(Facet::Presences, "doing", &p.doing);
        }
    }
}
