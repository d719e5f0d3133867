//! The read verbs this store serves, over the state held in memory. They are
//! named in [`super::verbs::VERBS`]; here is only what each one computes.
//!
//! Item field names match the facet registry (`m1nd_core::facets`), so the
//! composer can render them without a mapping. Values are untrusted text; the
//! composer sanitises and caps them.
//!
//! Most reads take no argument that changes their answer: it is a function of
//! the loaded state alone. Those are computed once per loaded state, on first
//! use, kept in the store's memo and lent (`Cow::Borrowed`) from then on;
//! the memo is dropped whenever the store holds a new state. Reads whose answer
//! depends on an argument (`impact`, `why`, `trace`) are computed per call.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::OnceLock;

use m1nd_core::ReadVerb;
use m1nd_core::runtime::{Item, ReadError, Reader, Reading};

use super::Store;
use super::state::{BlockStatus, Phase, State};
use super::verbs::{self, Op, Read};

/// What a read verb computes (the names are in [`super::verbs::VERBS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Plain(Plain),
    Impact,
    Why,
    Trace,
}

/// A read whose answer depends on the state alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Plain {
    North,
    Blocks,
    Orient,
    Doctor,
    Trust,
    Memories,
    Drift,
    Presences,
}

impl Plain {
    const ALL: [Plain; 8] = [
        Plain::North,
        Plain::Blocks,
        Plain::Orient,
        Plain::Doctor,
        Plain::Trust,
        Plain::Memories,
        Plain::Drift,
        Plain::Presences,
    ];

    fn compute(self, state: &State) -> Reading {
        match self {
            Plain::North => north(state),
            Plain::Blocks => blocks(state),
            Plain::Orient => orient(state),
            Plain::Doctor => doctor(state),
            Plain::Trust => trust(state),
            Plain::Memories => memories(state),
            Plain::Drift => drift(state),
            Plain::Presences => presences(state),
        }
    }
}

/// The [`Plain`] readings of one loaded state, each computed on first use.
/// A store replaces its memo with an empty one whenever its state changes.
#[derive(Debug, Default)]
pub(super) struct Memo([OnceLock<Reading>; Plain::ALL.len()]);

impl Memo {
    fn get(&self, plain: Plain, state: &State) -> &Reading {
        self.0[plain as usize].get_or_init(|| plain.compute(state))
    }
}

impl Reader for Store {
    fn read(&self, read: &ReadVerb, bound: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError> {
        if bound.is_empty() && read.arguments().is_empty() {
            return self.answer(read.verb(), &[]);
        }
        // Bound values come from the selected item and win over fixed ones.
        let arguments: Vec<(&str, &str)> =
            bound.iter().copied().chain(read.arguments().iter().map(|a| (&*a.name, &*a.value))).collect();
        self.answer(read.verb(), &arguments)
    }

    fn store_version(&self) -> u64 {
        self.state.store_version
    }
}

impl Store {
    /// Run a read verb by name, for callers outside the cockpit (the server's
    /// own tools). The first value given for an argument wins.
    pub fn read_named(&self, verb: &str, arguments: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError> {
        self.answer(verb, arguments)
    }

    /// A [`Plain`] read is lent from the memo (arguments other than
    /// `boot_memory`'s `action` do not change it); the others are computed.
    fn answer(&self, verb: &str, arguments: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError> {
        let state = &self.state;
        let arg = |name: &str| argument(arguments, name);
        let Some(Op::Read(Read(kind))) = verbs::op(verb) else {
            let shown: String = verb.chars().take(48).collect();
            return Err(ReadError(format!("not a read this store serves: {shown}")));
        };
        let reading = match kind {
            Kind::Plain(plain) => {
                if plain == Plain::Memories && !matches!(arg("action"), None | Some("list")) {
                    return Err(ReadError(format!("{verb}: this store only lists memories (action = list)")));
                }
                return Ok(Cow::Borrowed(self.memo.get(plain, state)));
            }
            Kind::Impact => impact(state, required(arg("node"), verb, "node")?),
            Kind::Why => why(state, required(arg("source"), verb, "source")?, required(arg("target"), verb, "target")?),
            Kind::Trace => trace(state, required(arg("error_text"), verb, "error_text")?),
        };
        Ok(Cow::Owned(reading))
    }
}

fn argument<'a>(arguments: &[(&'a str, &'a str)], name: &str) -> Option<&'a str> {
    arguments.iter().find(|(n, _)| *n == name).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
}

fn required<'a>(value: Option<&'a str>, verb: &str, name: &str) -> Result<&'a str, ReadError> {
    value.ok_or_else(|| ReadError(format!("{verb} needs a non-empty `{name}`")))
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn north(state: &State) -> Reading {
    let bell = state.missions.iter().filter(|m| m.phase == Phase::MergeWait).count();
    Reading::default().with("count", count(bell))
}

fn blocks(state: &State) -> Reading {
    let with = |status: BlockStatus| state.blocks.iter().filter(|b| b.status == status).count();
    let ratified = state.blocks.iter().filter(|b| b.status.ratified()).count();
    // Most in need of the human first: stale receipts, then unratified candidates.
    let mut listed: Vec<_> = state.blocks.iter().collect();
    listed.sort_by_key(|b| match b.status {
        BlockStatus::Stale => 0,
        BlockStatus::Candidate => 1,
        BlockStatus::Fresh => 2,
    });
    Reading::listing(listed.into_iter().map(|b| {
        Item::new([
            ("id", b.id.as_str()),
            ("title", &b.title),
            ("status", b.status.as_str()),
            ("receipt", &b.receipt),
            ("hash", &b.hash),
            ("node", &b.node),
        ])
    }))
    .with("blocks", count(ratified))
    .with("stale", count(with(BlockStatus::Stale)))
    .with("candidates", count(with(BlockStatus::Candidate)))
}

fn orient(state: &State) -> Reading {
    let flight = state.missions.iter().filter(|m| m.phase.in_flight()).count();
    let waiting = state.missions.iter().filter(|m| m.phase == Phase::MergeWait).count();
    let mut open: Vec<_> = state.missions.iter().filter(|m| m.phase.open()).collect();
    open.sort_by_key(|m| m.phase != Phase::MergeWait);
    Reading::listing(open.into_iter().map(|m| {
        Item::new([("id", m.id.as_str()), ("title", &m.title), ("phase", m.phase.as_str()), ("agent", &m.agent)])
    }))
    .with("flight", count(flight))
    .with("waiting", count(waiting))
}

fn doctor(state: &State) -> Reading {
    let mut alerts: Vec<_> = state.alerts.iter().collect();
    alerts.sort_by_key(|a| severity(&a.level));
    Reading::listing(
        alerts
            .into_iter()
            .map(|a| Item::new([("id", a.id.as_str()), ("level", &a.level), ("text", &a.text), ("node", &a.node)])),
    )
    .with("alerts", count(state.alerts.len()))
}

/// Sort rank of an alert level: most severe first, unknown levels last.
fn severity(level: &str) -> u8 {
    match level.trim().to_ascii_lowercase().as_str() {
        "critical" | "fatal" => 0,
        "error" => 1,
        "warn" | "warning" => 2,
        "info" | "notice" => 3,
        _ => 4,
    }
}

/// Below this a module's trust is low.
const LOW_TRUST: f64 = 0.5;

fn trust(state: &State) -> Reading {
    // Validation guarantees scores parse; an unparsable one sorts first and
    // counts as low rather than hiding a bad module.
    let score = |m: &&super::state::Module| m.score_value().unwrap_or(0.0);
    let low = state.modules.iter().filter(|m| score(m) < LOW_TRUST).count();
    let mut modules: Vec<_> = state.modules.iter().collect();
    modules.sort_by(|a, b| score(a).total_cmp(&score(b)));
    Reading::listing(
        modules.into_iter().map(|m| Item::new([("id", m.id.as_str()), ("score", &m.score), ("defects", &m.defects)])),
    )
    .with("modules", count(state.modules.len()))
    .with("low", count(low))
}

fn memories(state: &State) -> Reading {
    Reading::listing(
        state
            .memories
            .iter()
            .rev()
            .map(|m| Item::new([("id", m.id.as_str()), ("claim", &m.claim), ("source", &m.source), ("at", &m.at)])),
    )
    .with("memories", count(state.memories.len()))
}

fn drift(state: &State) -> Reading {
    Reading::listing(
        state.drift.iter().map(|d| Item::new([("id", d.id.as_str()), ("evidence", &d.evidence), ("cause", &d.cause)])),
    )
    .with("nodes", count(state.drift.len()))
}

fn presences(state: &State) -> Reading {
    Reading::listing(
        state.presences.iter().map(|p| Item::new([("id", p.id.as_str()), ("doing", &p.doing), ("since", &p.since)])),
    )
    .with("agents", count(state.presences.len()))
}

/// Whether `text` mentions `node`: contains it, or is a path that `node`
/// lies inside (a module `src/a` mentions node `src/a/b.rs`).
fn mentions(text: &str, node: &str) -> bool {
    if text.is_empty() || node.is_empty() {
        return false;
    }
    text.contains(node) || node.strip_prefix(text).is_some_and(|rest| rest.starts_with(['/', ':', '.', '#']))
}

fn impact(state: &State, node: &str) -> Reading {
    let blocks =
        state.blocks.iter().filter(|b| mentions(&b.node, node) || b.id == node).map(|b| (b.id.as_str(), "block"));
    let modules = state.modules.iter().filter(|m| mentions(&m.id, node)).map(|m| (m.id.as_str(), "module"));
    let drifted = state.drift.iter().filter_map(|d| {
        if mentions(&d.id, node) {
            Some((d.id.as_str(), "drift"))
        } else if mentions(&d.cause, node) {
            Some((d.id.as_str(), "drift cause"))
        } else {
            None
        }
    });
    let items: Vec<Item> =
        blocks.chain(modules).chain(drifted).map(|(id, via)| Item::new([("id", id), ("via", via)])).collect();
    let affected = items.len();
    Reading::listing(items).with("affected", count(affected))
}

fn why(state: &State, source: &str, target: &str) -> Reading {
    let link = state.drift.iter().find_map(|d| {
        if d.id == source && d.cause == target {
            Some(format!("{target} moved it: {}", d.evidence))
        } else if d.id == target && d.cause == source {
            Some(format!("it moved {target}: {}", d.evidence))
        } else {
            None
        }
    });
    let items: Vec<Item> =
        link.map(|reason| Item::new([("from", source), ("to", target), ("reason", &reason)])).into_iter().collect();
    let links = items.len();
    Reading::listing(items).with("links", count(links))
}

fn trace(state: &State, error_text: &str) -> Reading {
    let wanted = words(error_text);
    let mut hits: Vec<(usize, &super::state::Alert)> = state
        .alerts
        .iter()
        .map(|a| (words(&a.text).intersection(&wanted).count(), a))
        .filter(|(shared, _)| *shared > 0)
        .collect();
    hits.sort_by_key(|(shared, _)| std::cmp::Reverse(*shared));
    let items: Vec<Item> =
        hits.into_iter().map(|(_, a)| Item::new([("id", a.id.as_str()), ("node", &a.node)])).collect();
    let matches = items.len();
    Reading::listing(items).with("matches", count(matches))
}

/// The distinctive words of a text: lowercased, three letters or more, minus
/// a few words every sentence shares.
fn words(text: &str) -> HashSet<String> {
    const COMMON: &[&str] = &[
        "the", "and", "for", "with", "from", "not", "was", "are", "but", "has", "had", "this", "that", "into", "its",
        "after", "before", "than", "then", "when",
    ];
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !COMMON.contains(&w.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use m1nd_core::Argument;

    use super::super::test_dir::test_dir;
    use super::*;

    fn verb(name: &'static str) -> ReadVerb {
        ReadVerb::__from_checked_policy(Cow::Borrowed("test"), Cow::Borrowed(name), Cow::Borrowed(&[]))
    }

    fn demo() -> (tempfile::TempDir, Store) {
        let dir = test_dir("reads");
        let store = Store::init(dir.path(), true).expect("init demo");
        (dir, store)
    }

    fn field<'a>(item: &'a Item, name: &str) -> &'a str {
        item.field(name).unwrap_or_default()
    }

    #[test]
    fn demo_numbers_are_the_documented_ones() {
        let (_dir, store) = demo();
        let read = |name| store.read(&verb(name), &[]).expect(name);
        assert_eq!(store.store_version(), 1);
        assert_eq!(read("north").number("count"), 2);
        assert!(read("north").items.is_empty());
        let map = read("system_blocks_snapshot");
        assert_eq!((map.number("blocks"), map.number("stale"), map.number("candidates")), (11, 2, 1));
        assert_eq!(map.items.len(), 12);
        let board = read("orient");
        assert_eq!((board.number("flight"), board.number("waiting")), (3, 2));
        assert_eq!(board.items.len(), 5);
        assert_eq!(read("doctor").number("alerts"), 3);
        let trust = read("trust");
        assert_eq!((trust.number("modules"), trust.number("low")), (6, 2));
        assert_eq!(read("boot_memory").number("memories"), 7);
        assert_eq!(read("drift").number("nodes"), 4);
        assert_eq!(read("panoramic").number("agents"), 3);
    }

    #[test]
    fn items_carry_the_facet_fields_in_order() {
        let (_dir, store) = demo();
        let read = |name| store.read(&verb(name), &[]).expect(name);
        let names =
            |reading: &Reading| -> Vec<String> { reading.items[0].fields.iter().map(|(n, _)| n.clone()).collect() };
        for (read_name, facet) in [
            ("system_blocks_snapshot", m1nd_core::Facet::Map),
            ("orient", m1nd_core::Facet::Missions),
            ("doctor", m1nd_core::Facet::Health),
            ("trust", m1nd_core::Facet::Trust),
            ("boot_memory", m1nd_core::Facet::Memories),
            ("drift", m1nd_core::Facet::Drift),
            ("panoramic", m1nd_core::Facet::Presences),
        ] {
            let items = facet.items().expect("facet lists items");
            let expected: Vec<String> = items.field_names().map(str::to_owned).collect();
            assert_eq!(names(&read(read_name)), expected, "{read_name}");
        }
    }

    #[test]
    fn orderings() {
        let (_dir, store) = demo();
        let read = |name| store.read(&verb(name), &[]).expect(name);
        let board = read("orient");
        let phases: Vec<_> = board.items.iter().map(|i| field(i, "phase")).collect();
        assert_eq!(&phases[..2], ["merge_wait", "merge_wait"]);
        assert!(!phases.contains(&"landed") && !phases.contains(&"failed"));

        let scores: Vec<f64> = read("trust").items.iter().map(|i| field(i, "score").parse().expect("score")).collect();
        assert!(scores.windows(2).all(|w| w[0] <= w[1]), "{scores:?}");

        let memories = read("boot_memory");
        let newest = store.state().memories.last().expect("memories");
        assert_eq!(field(&memories.items[0], "id"), newest.id);
    }

    #[test]
    fn plain_reads_are_lent_and_computed_once_per_state() {
        let (_dir, store) = demo();
        let plains: Vec<(&str, Plain)> = verbs::VERBS
            .iter()
            .filter_map(|&(name, op)| match op {
                Op::Read(Read(Kind::Plain(plain))) => Some((name, plain)),
                _ => None,
            })
            .collect();
        assert_eq!(plains.len(), Plain::ALL.len());
        for (name, plain) in plains {
            let first = store.read(&verb(name), &[]).expect(name);
            let second = store.read_named(name, &[("action", "list")]).expect(name);
            assert!(matches!(first, Cow::Borrowed(_)), "{name} is recomputed");
            assert!(std::ptr::eq(&*first, &*second), "{name} is computed twice");
            assert_eq!(*first, plain.compute(store.state()), "{name}");
        }
        let bound = store.read(&verb("impact"), &[("node", "crates/graph")]).expect("impact");
        assert!(matches!(bound, Cow::Owned(_)));
    }

    #[test]
    fn memorize_shows_up_newest_first() {
        let (_dir, mut store) = demo();
        // Read first, so a reading of the old state is held.
        assert_eq!(store.read(&verb("boot_memory"), &[]).expect("read").number("memories"), 7);
        store.memorize("the newest claim", "test", Some(1)).expect("m");
        let memories = store.read(&verb("boot_memory"), &[]).expect("read");
        assert_eq!(memories.number("memories"), 8);
        assert_eq!(field(&memories.items[0], "claim"), "the newest claim");
        assert_eq!(store.store_version(), 2);
    }

    #[test]
    fn fixed_arguments_are_honoured() {
        let (_dir, store) = demo();
        static LIST: [Argument; 1] = [Argument { name: Cow::Borrowed("action"), value: Cow::Borrowed("list") }];
        static FORGET: [Argument; 1] = [Argument { name: Cow::Borrowed("action"), value: Cow::Borrowed("forget") }];
        let with = |args: &'static [Argument]| {
            ReadVerb::__from_checked_policy(
                Cow::Borrowed("memories"),
                Cow::Borrowed("boot_memory"),
                Cow::Borrowed(args),
            )
        };
        assert!(store.read(&with(&LIST), &[]).is_ok());
        assert!(store.read(&with(&FORGET), &[]).is_err());
    }

    #[test]
    fn item_actions_follow_their_bindings() {
        let (_dir, store) = demo();
        let map = store.read(&verb("system_blocks_snapshot"), &[]).expect("map");
        let node = field(&map.items[0], "node");
        let impact = store.read(&verb("impact"), &[("node", node)]).expect("impact");
        assert!(impact.number("affected") >= 1);
        assert!(impact.items.iter().all(|i| !field(i, "via").is_empty()));

        let trust = store.read(&verb("trust"), &[]).expect("trust");
        let module = field(&trust.items[0], "id");
        let reach = store.read(&verb("impact"), &[("node", module)]).expect("module impact");
        assert!(reach.items.iter().any(|i| field(i, "via") == "block"));

        let drift = store.read(&verb("drift"), &[]).expect("drift");
        let first = &drift.items[0];
        let why = store
            .read(&verb("why"), &[("source", field(first, "id")), ("target", field(first, "cause"))])
            .expect("why");
        assert_eq!(why.items.len(), 1);
        assert_eq!(field(&why.items[0], "from"), field(first, "id"));
        assert!(!field(&why.items[0], "reason").is_empty());
        let unrelated = store.read(&verb("why"), &[("source", "a"), ("target", "b")]).expect("why none");
        assert!(unrelated.items.is_empty());

        let alerts = store.read(&verb("doctor"), &[]).expect("doctor");
        let alert = &alerts.items[0];
        let trace = store.read(&verb("trace"), &[("error_text", field(alert, "text"))]).expect("trace");
        assert_eq!(field(&trace.items[0], "id"), field(alert, "id"));
    }

    #[test]
    fn bad_reads_are_errors_not_panics() {
        let (_dir, store) = demo();
        for name in ["memorize", "persist", "apply", "", "NORTH"] {
            let err = store.read(&verb(name), &[]).expect_err(name);
            assert!(err.0.starts_with("not a read this store serves: "));
        }
        for name in ["impact", "why", "trace"] {
            assert!(store.read(&verb(name), &[]).is_err(), "{name}");
            assert!(store.read(&verb(name), &[("node", "  ")]).is_err());
        }
        assert!(store.read_named("north", &[]).is_ok());
    }

    #[test]
    fn every_read_the_policy_composes_is_served() {
        let (_dir, store) = demo();
        for read in crate::COCKPIT.reads() {
            assert!(matches!(verbs::op(read.verb()), Some(Op::Read(_))), "{}", read.verb());
            // Item actions get their binding from an item; give every name.
            let bound = [("node", "crates/graph"), ("source", "x"), ("target", "y"), ("error_text", "timeout")];
            assert!(store.read(read, &bound).is_ok(), "{}", read.verb());
        }
    }

    #[test]
    fn the_cockpit_composes_over_the_demo_store() {
        let (_dir, store) = demo();
        let request = m1nd_core::runtime::Request::default();
        let view = m1nd_core::runtime::cockpit(&crate::COCKPIT, &store, &request).expect("root");
        let text = format!("{view:?}");
        assert!(text.contains("2 waiting for your stamp"), "{text}");
        assert!(text.contains("11 blocks ratified, 2 stale"), "{text}");
        assert!(!text.contains("can't be read"), "{text}");
    }

    #[test]
    fn mentions_respects_path_boundaries() {
        assert!(mentions("crates/graph/src/walk.rs", "crates/graph"));
        assert!(mentions("crates/graph", "crates/graph/src/walk.rs"));
        assert!(!mentions("crates/gr", "crates/graph/src/walk.rs"));
        assert!(!mentions("", "x"));
        assert!(!mentions("x", ""));
    }
}
