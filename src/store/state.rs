//! The JSON store's document (`state.json`, format `m1nd-store-v1`), the form
//! `m1nd store import` reads and the demo seed is written in, and the rules a
//! document must meet before it is loaded into a store.
//!
//! Unknown fields, phases and statuses are refused rather than ignored: a
//! store that says something this build does not understand is reported, not
//! half-read and then rewritten without the parts it did not know.

use std::collections::HashSet;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The tag in `"format"`; a different tag is a different file layout.
pub const FORMAT: &str = "m1nd-store-v1";

/// Longest claim a memory may carry, in characters. Memories are re-read at
/// every boot, so one runaway claim would tax every later session.
pub const MAX_CLAIM_CHARS: usize = 4096;

/// Longest `source` a memory may carry, in characters.
pub const MAX_SOURCE_CHARS: usize = 256;

/// The most changes one transaction holds: with the two bounds above, it
/// bounds what one group commit can add to the file (`room::ONE_WRITE_BYTES`).
pub const MAX_BATCH: usize = 64;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub format: Format,
    pub store_version: u64,
    pub missions: Vec<Mission>,
    pub blocks: Vec<Block>,
    /// Oldest first, so a new memory is an append.
    pub memories: Vec<Memory>,
    pub alerts: Vec<Alert>,
    pub modules: Vec<Module>,
    pub drift: Vec<Drift>,
    pub presences: Vec<Presence>,
    /// How many times the store was saved or checkpointed on request.
    pub checkpoints: u64,
}

/// The `"format"` tag. Its own type so a wrong tag is a parse error with the
/// line and column of the tag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Format;

impl Serialize for Format {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(FORMAT)
    }
}

impl<'de> Deserialize<'de> for Format {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let tag = String::deserialize(deserializer)?;
        if tag == FORMAT {
            Ok(Format)
        } else {
            let shown: String = tag.chars().take(40).collect();
            Err(serde::de::Error::custom(format!("unsupported store format `{shown}`; this build reads `{FORMAT}`")))
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mission {
    pub id: String,
    pub title: String,
    pub phase: Phase,
    pub agent: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Judging,
    Executing,
    Gate,
    Review,
    MergeWait,
    Landed,
    Failed,
}

impl Phase {
    pub const ALL: [Phase; 7] =
        [Phase::Judging, Phase::Executing, Phase::Gate, Phase::Review, Phase::MergeWait, Phase::Landed, Phase::Failed];

    pub const fn as_str(self) -> &'static str {
        match self {
            Phase::Judging => "judging",
            Phase::Executing => "executing",
            Phase::Gate => "gate",
            Phase::Review => "review",
            Phase::MergeWait => "merge_wait",
            Phase::Landed => "landed",
            Phase::Failed => "failed",
        }
    }

    /// Being worked on by an agent (not waiting for the human, not finished).
    pub const fn in_flight(self) -> bool {
        matches!(self, Phase::Judging | Phase::Executing | Phase::Gate | Phase::Review)
    }

    pub const fn open(self) -> bool {
        !matches!(self, Phase::Landed | Phase::Failed)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Block {
    pub id: String,
    pub title: String,
    pub status: BlockStatus,
    pub receipt: String,
    pub hash: String,
    pub node: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockStatus {
    Fresh,
    Stale,
    Candidate,
}

impl BlockStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            BlockStatus::Fresh => "fresh",
            BlockStatus::Stale => "stale",
            BlockStatus::Candidate => "candidate",
        }
    }

    /// Part of the map: a human ratified it, whether its receipt is current or not.
    pub const fn ratified(self) -> bool {
        matches!(self, BlockStatus::Fresh | BlockStatus::Stale)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    pub id: String,
    pub claim: String,
    pub source: String,
    pub at: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alert {
    pub id: String,
    pub level: String,
    pub text: String,
    pub node: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Module {
    /// The module path.
    pub id: String,
    /// A decimal in 0..=1, kept as text so it round-trips exactly as written.
    pub score: String,
    pub defects: String,
}

impl Module {
    /// The score as a number; `validate` guarantees it parses for loaded states.
    pub fn score_value(&self) -> Option<f64> {
        parse_score(&self.score)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drift {
    /// The node that moved.
    pub id: String,
    pub evidence: String,
    /// The node that moved it.
    pub cause: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Presence {
    /// The agent id.
    pub id: String,
    pub doing: String,
    pub since: String,
}

/// How much of each kind the store holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub missions: usize,
    pub blocks: usize,
    pub memories: usize,
    pub alerts: usize,
    pub modules: usize,
    pub drift: usize,
    pub presences: usize,
    pub checkpoints: u64,
}

impl State {
    /// A new, empty store at version 1.
    pub fn empty() -> Self {
        State {
            format: Format,
            store_version: 1,
            missions: Vec::new(),
            blocks: Vec::new(),
            memories: Vec::new(),
            alerts: Vec::new(),
            modules: Vec::new(),
            drift: Vec::new(),
            presences: Vec::new(),
            checkpoints: 0,
        }
    }

    pub fn counts(&self) -> Counts {
        Counts {
            missions: self.missions.len(),
            blocks: self.blocks.len(),
            memories: self.memories.len(),
            alerts: self.alerts.len(),
            modules: self.modules.len(),
            drift: self.drift.len(),
            presences: self.presences.len(),
            checkpoints: self.checkpoints,
        }
    }

    /// The rules serde cannot express. Readers rely on them (ids are unique
    /// and scores are numbers), so a state that breaks one is corrupt.
    pub fn validate(&self) -> Result<(), InvalidState> {
        unique("missions", self.missions.iter().map(|m| m.id.as_str()))?;
        unique("blocks", self.blocks.iter().map(|b| b.id.as_str()))?;
        unique("memories", self.memories.iter().map(|m| m.id.as_str()))?;
        unique("alerts", self.alerts.iter().map(|a| a.id.as_str()))?;
        unique("modules", self.modules.iter().map(|m| m.id.as_str()))?;
        unique("drift", self.drift.iter().map(|d| d.id.as_str()))?;
        unique("presences", self.presences.iter().map(|p| p.id.as_str()))?;
        if let Some(mission) = self.missions.iter().find(|m| !is_mission_id(&m.id)) {
            return Err(InvalidState::MissionId { id: shown(&mission.id) });
        }
        prefixed("blocks", "sb_", self.blocks.iter().map(|b| b.id.as_str()))?;
        prefixed("memories", "mem_", self.memories.iter().map(|m| m.id.as_str()))?;
        for memory in &self.memories {
            check_claim(&memory.claim).map_err(|problem| InvalidState::Memory { id: shown(&memory.id), problem })?;
        }
        if let Some((kind, id)) = self.first_with_nul() {
            return Err(InvalidState::Nul { kind, id: shown(id) });
        }
        if let Some(module) = self.modules.iter().find(|m| m.score_value().is_none()) {
            return Err(InvalidState::Score { id: shown(&module.id), score: shown(&module.score) });
        }
        Ok(())
    }
}

impl State {
    /// The kind and id of the first item with U+0000 in any of its texts.
    /// Each item is taken apart field by field, so a field added to one of
    /// them does not compile until it is looked at here too.
    fn first_with_nul(&self) -> Option<(&'static str, &str)> {
        let missions = self
            .missions
            .iter()
            .map(|Mission { id, title, phase: _, agent }| ("missions", id, has_nul(&[id, title, agent])));
        let blocks = self.blocks.iter().map(|Block { id, title, status: _, receipt, hash, node }| {
            ("blocks", id, has_nul(&[id, title, receipt, hash, node]))
        });
        let memories = self
            .memories
            .iter()
            .map(|Memory { id, claim, source, at }| ("memories", id, has_nul(&[id, claim, source, at])));
        let alerts =
            self.alerts.iter().map(|Alert { id, level, text, node }| ("alerts", id, has_nul(&[id, level, text, node])));
        let modules =
            self.modules.iter().map(|Module { id, score, defects }| ("modules", id, has_nul(&[id, score, defects])));
        let drift =
            self.drift.iter().map(|Drift { id, evidence, cause }| ("drift", id, has_nul(&[id, evidence, cause])));
        let presences =
            self.presences.iter().map(|Presence { id, doing, since }| ("presences", id, has_nul(&[id, doing, since])));
        missions
            .chain(blocks)
            .chain(memories)
            .chain(alerts)
            .chain(modules)
            .chain(drift)
            .chain(presences)
            .find(|(_, _, nul)| *nul)
            .map(|(kind, id, _)| (kind, id.as_str()))
    }
}

/// Whether any of `texts` holds U+0000, which a PostgreSQL `text` value
/// cannot hold: refused on every backend, so a store means the same
/// wherever it lives.
fn has_nul(texts: &[&String]) -> bool {
    texts.iter().any(|text| text.contains('\0'))
}

/// A state that breaks a rule serde cannot express.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidState {
    #[error("{kind}: an item has an empty id")]
    EmptyId { kind: &'static str },
    #[error("{kind}: id `{id}` appears twice")]
    Duplicate { kind: &'static str, id: String },
    #[error("mission id `{id}` is not `msn_` followed by 12 hex digits")]
    MissionId { id: String },
    #[error("{kind}: id `{id}` does not start with `{prefix}`")]
    Prefix { kind: &'static str, id: String, prefix: &'static str },
    #[error("memory `{id}`: {problem}")]
    Memory { id: String, problem: ClaimProblem },
    #[error("module `{id}` has score `{score}`; a score is a decimal from 0 to 1")]
    Score { id: String, score: String },
    #[error("{kind}: item `{id}` holds the character U+0000 (NUL), which no m1nd store keeps; remove it")]
    Nul { kind: &'static str, id: String },
}

/// What is wrong with a claim.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClaimProblem {
    #[error("the claim is empty")]
    Empty,
    #[error("the claim is {chars} characters; the limit is {MAX_CLAIM_CHARS}")]
    TooLong { chars: usize },
    #[error("the claim holds the character U+0000 (NUL), which no m1nd store keeps; remove it")]
    Nul,
}

/// The claim rules shared by `memorize` and `validate`.
pub fn check_claim(claim: &str) -> Result<(), ClaimProblem> {
    if claim.trim().is_empty() {
        return Err(ClaimProblem::Empty);
    }
    let chars = claim.chars().count();
    if chars > MAX_CLAIM_CHARS {
        return Err(ClaimProblem::TooLong { chars });
    }
    if claim.contains('\0') {
        return Err(ClaimProblem::Nul);
    }
    Ok(())
}

fn parse_score(text: &str) -> Option<f64> {
    let value: f64 = text.trim().parse().ok()?;
    (value.is_finite() && (0.0..=1.0).contains(&value)).then_some(value)
}

fn is_mission_id(id: &str) -> bool {
    id.strip_prefix("msn_")
        .is_some_and(|hex| hex.len() == 12 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
}

fn unique<'a>(kind: &'static str, ids: impl Iterator<Item = &'a str>) -> Result<(), InvalidState> {
    let mut seen = HashSet::new();
    for id in ids {
        if id.trim().is_empty() {
            return Err(InvalidState::EmptyId { kind });
        }
        if !seen.insert(id) {
            return Err(InvalidState::Duplicate { kind, id: shown(id) });
        }
    }
    Ok(())
}

fn prefixed<'a>(
    kind: &'static str,
    prefix: &'static str,
    ids: impl Iterator<Item = &'a str>,
) -> Result<(), InvalidState> {
    match ids.into_iter().find(|id| id.len() <= prefix.len() || !id.starts_with(prefix)) {
        Some(id) => Err(InvalidState::Prefix { kind, id: shown(id), prefix }),
        None => Ok(()),
    }
}

/// Untrusted text quoted in an error: through the one sanitiser, kept short.
fn shown(text: &str) -> String {
    m1nd_policy::sanitize::display(text, m1nd_policy::sanitize::cap::NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<State, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn empty_state_round_trips_with_its_tag() {
        let text = serde_json::to_string(&State::empty()).expect("serialize");
        assert!(text.contains(r#""format":"m1nd-store-v1""#));
        assert_eq!(parse(&text).expect("parse"), State::empty());
    }

    #[test]
    fn wrong_tag_unknown_field_and_unknown_phase_are_refused() {
        let good = serde_json::to_string(&State::empty()).expect("serialize");
        let wrong_tag = good.replace("m1nd-store-v1", "m1nd-store-v9");
        let err = parse(&wrong_tag).expect_err("wrong tag");
        assert!(err.to_string().contains("unsupported store format `m1nd-store-v9`"));
        assert!(err.line() > 0);

        let extra = good.replacen('{', r#"{"surprise":1,"#, 1);
        assert!(parse(&extra).is_err());

        let bad_phase = good.replace(
            r#""missions":[]"#,
            r#""missions":[{"id":"msn_0123456789ab","title":"t","phase":"dreaming","agent":"a"}]"#,
        );
        assert!(parse(&bad_phase).is_err());
    }

    #[test]
    fn validate_catches_what_serde_cannot() {
        let mut state = State::empty();
        state.missions.push(Mission { id: "msn_XYZ".into(), title: "t".into(), phase: Phase::Gate, agent: "a".into() });
        assert!(state.validate().is_err());

        let mut state = State::empty();
        state.modules.push(Module { id: "src/a".into(), score: "high".into(), defects: "0".into() });
        assert!(state.validate().is_err());

        let mut state = State::empty();
        for _ in 0..2 {
            state.alerts.push(Alert { id: "al_1".into(), level: "warn".into(), text: "x".into(), node: "n".into() });
        }
        assert!(state.validate().unwrap_err().to_string().contains("appears twice"));
    }

    #[test]
    fn claims_are_bounded() {
        assert!(check_claim("  ").is_err());
        assert!(check_claim(&"é".repeat(MAX_CLAIM_CHARS)).is_ok());
        assert!(check_claim(&"é".repeat(MAX_CLAIM_CHARS + 1)).is_err());
        assert_eq!(check_claim("before\0after"), Err(ClaimProblem::Nul));
    }

    /// U+0000 anywhere in an imported state is refused, naming the item.
    #[test]
    fn validate_refuses_nul_in_any_text() {
        let with_nul = |edit: fn(&mut State)| {
            let mut state = State::empty();
            state.memories.push(Memory {
                id: "mem_1".into(),
                claim: "c".into(),
                source: "s".into(),
                at: "2026-01-01T00:00:00Z".into(),
            });
            state.drift.push(Drift { id: "n1".into(), evidence: "e".into(), cause: "n2".into() });
            state.presences.push(Presence { id: "agent".into(), doing: "d".into(), since: "t".into() });
            assert_eq!(state.validate(), Ok(()));
            edit(&mut state);
            state.validate().map_err(|e| e.to_string())
        };
        let memory = with_nul(|s| s.memories[0].source.push('\0')).expect_err("source");
        assert!(memory.starts_with("memories: item `mem_1` holds the character U+0000"), "{memory}");
        let drift = with_nul(|s| s.drift[0].evidence.insert(0, '\0')).expect_err("evidence");
        assert!(drift.starts_with("drift: item `n1`"), "{drift}");
        let presence = with_nul(|s| s.presences[0].id.push('\0')).expect_err("id");
        assert!(presence.starts_with("presences: item `agent`") && !presence.contains('\0'), "{presence}");
    }
}
