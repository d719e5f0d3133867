//! What the snapshot reads promise: counts from the tallies, listings by index, statements
//! prepared once, every read found by its handle.

use std::borrow::Cow;

use m1nd_policy::Argument;

use super::super::test_dir::test_dir;
use super::*;

use crate::store::Op;

/// A read of `name` with its handle in the compiled table.
fn verb(name: &'static str) -> ReadVerb {
    let id = crate::COCKPIT.verb_id(name).expect("a table verb");
    ReadVerb::__from_checked_policy(Cow::Borrowed("test"), Cow::Borrowed(name), id, Cow::Borrowed(&[]))
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
    let snapshot = store.snapshot().expect("snapshot");
    let read = |name| Reader::read(&snapshot, &verb(name), &[]).expect(name);
    assert_eq!(snapshot.store_version(), 1);
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

/// The tallies are the tables' counts, after loading and after writes.
#[test]
fn tallies_agree_with_the_tables() {
    let (_dir, mut store) = demo();
    for n in 0..3 {
        store.memorize(&format!("claim {n}"), "test", Some("agent-new"), None).expect("memorize");
    }
    let snapshot = store.snapshot().expect("snapshot");
    let tx = store.lite();
    let rows = |table: &str| -> usize {
        let n: i64 = tx.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).expect(table);
        to_usize(n as u64)
    };
    let counts = snapshot.counts().expect("counts");
    assert_eq!(counts.missions, rows("missions"));
    assert_eq!(counts.blocks, rows("blocks"));
    assert_eq!(counts.memories, rows("memories"));
    assert_eq!(counts.memories, 10);
    assert_eq!(counts.alerts, rows("alerts"));
    assert_eq!(counts.modules, rows("modules"));
    assert_eq!(counts.drift, rows("drift"));
    assert_eq!(counts.presences, rows("presences"));
    assert_eq!(counts.presences, 4);
    for phase in Phase::ALL {
        let n: i64 = tx
            .query_row("SELECT count(*) FROM missions WHERE phase = ?1", [phase.as_str()], |r| r.get(0))
            .expect("phase");
        assert_eq!(snapshot.tally(&tally::phase(phase)).expect("tally"), n as u64, "{phase:?}");
    }
    let low: i64 = tx
        .query_row("SELECT count(*) FROM modules WHERE score_value < ?1", [tally::LOW_TRUST], |r| r.get(0))
        .expect("low");
    assert_eq!(snapshot.tally(tally::LOW_MODULES).expect("low"), low as u64);
    // Every count read at once is the count looked up alone, and one never kept reads 0.
    let names = snapshot.column("SELECT name FROM tallies");
    assert!(names.len() > 10, "{names:?}");
    for name in names.into_iter().flatten().chain(["no.such.count".to_owned(), String::new()]) {
        let alone = tally::get(snapshot.db(), &name).expect("get");
        assert_eq!(snapshot.tally(&name).expect("tally"), alone, "{name}");
    }
}

#[test]
fn collections_are_bounded_and_fill_every_policy_collection() {
    let (_dir, mut store) = demo();
    for n in 0..LISTED + 5 {
        store.memorize(&format!("claim {n}"), "test", None, None).expect("memorize");
    }
    let snapshot = store.snapshot().expect("snapshot");
    let memories = snapshot.read(Read::Memories, &[]).expect("read");
    assert_eq!(memories.items.len(), LISTED);
    assert_eq!(memories.number("memories"), (7 + LISTED + 5) as u64);
    assert_eq!(field(&memories.items[0], "claim"), format!("claim {}", LISTED + 4));
    for slot in crate::COCKPIT.slots.iter() {
        if let Some(collection) = &slot.collection {
            assert!(usize::from(collection.limit) <= LISTED, "slot {} lists {}", slot.n, collection.limit);
        }
    }
}

#[test]
fn items_carry_the_facet_fields_in_order() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let read = |name| Reader::read(&snapshot, &verb(name), &[]).expect(name);
    let names = |reading: &Reading| -> Vec<String> { reading.items[0].fields.iter().map(|(n, _)| n.clone()).collect() };
    for (read_name, facet) in [
        ("system_blocks_snapshot", m1nd_policy::Facet::Map),
        ("orient", m1nd_policy::Facet::Missions),
        ("doctor", m1nd_policy::Facet::Health),
        ("trust", m1nd_policy::Facet::Trust),
        ("boot_memory", m1nd_policy::Facet::Memories),
        ("drift", m1nd_policy::Facet::Drift),
        ("panoramic", m1nd_policy::Facet::Presences),
    ] {
        let items = facet.items().expect("facet lists items");
        let expected: Vec<String> = items.field_names().map(str::to_owned).collect();
        assert_eq!(names(&read(read_name)), expected, "{read_name}");
    }
}

#[test]
fn orderings() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let read = |name| Reader::read(&snapshot, &verb(name), &[]).expect(name);
    let board = read("orient");
    let phases: Vec<_> = board.items.iter().map(|i| field(i, "phase")).collect();
    assert_eq!(&phases[..2], ["merge_wait", "merge_wait"]);
    assert!(!phases.contains(&"landed") && !phases.contains(&"failed"));

    let map = read("system_blocks_snapshot");
    let statuses: Vec<_> = map.items.iter().map(|i| field(i, "status")).collect();
    assert_eq!(&statuses[..3], ["stale", "stale", "candidate"]);

    let levels: Vec<_> = read("doctor").items.iter().map(|i| field(i, "level").to_owned()).collect();
    let ranks: Vec<_> = levels.iter().map(|l| if l == "critical" { 0 } else { 1 }).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{levels:?}");

    let scores: Vec<f64> = read("trust").items.iter().map(|i| field(i, "score").parse().expect("score")).collect();
    assert!(scores.windows(2).all(|w| w[0] <= w[1]), "{scores:?}");
}

/// Every listing is prepared once per connection and never again: the
/// cached statements have been re-prepared zero times after many reads
/// across writes (a bound `LIMIT ?` made SQLite re-prepare on each run).
#[test]
fn listing_statements_are_never_prepared_again() {
    let (_dir, mut store) = demo();
    for round in 0..3 {
        let snapshot = store.snapshot().expect("snapshot");
        for &(_, op) in verbs::VERBS {
            if let Op::Read(read) = op
                && read.plain()
            {
                snapshot.read(read, &[]).expect("read");
            }
        }
        drop(snapshot);
        store.memorize(&format!("round {round}"), "test", None, None).expect("write");
    }
    for sql in sql::LISTINGS.into_iter().chain([sql::TALLIES, sql::STORE_VERSION]) {
        let statement = store.lite().prepare_cached(sql).expect("cached");
        assert_eq!(statement.get_status(rusqlite::StatementStatus::RePrepare), 0, "re-prepared: {sql}");
        assert!(statement.get_status(rusqlite::StatementStatus::Run) >= 3, "not run from the cache: {sql}");
    }
    assert_eq!(LISTED, 20);
}

/// The root shows counts: composing it runs no listing query. A drill
/// into one collection runs that collection's listing, once.
#[test]
fn the_root_reads_counts_and_a_drill_reads_one_listing() {
    let (_dir, store) = demo();
    let runs = |store: &Store| -> Vec<i32> {
        sql::LISTINGS
            .iter()
            .map(|sql| store.lite().prepare_cached(sql).expect("prepare").get_status(rusqlite::StatementStatus::Run))
            .collect()
    };
    let compose = |select: Option<&str>| {
        let snapshot = store.snapshot().expect("snapshot");
        let request = m1nd_policy::runtime::Request { select: select.map(str::to_owned), seen_store_version: None };
        m1nd_policy::runtime::cockpit(&crate::COCKPIT, &snapshot, &request).expect("composes")
    };
    let root = compose(None);
    assert_eq!(runs(&store), vec![0; sql::LISTINGS.len()], "the root ran a listing");
    assert!(root.entries.iter().any(|e| e.text.as_str().starts_with("map: 11 ratified")), "{root:?}");
    let map = crate::COCKPIT.slots.iter().find(|s| s.facet.key() == "map").expect("a map slot");
    let drilled = compose(Some(&map.n.to_string()));
    assert!(!drilled.entries.is_empty());
    let ran: Vec<i32> = runs(&store);
    assert_eq!(ran.iter().sum::<i32>(), 1, "{ran:?}");
    assert_eq!(ran[0], 1, "the blocks listing is the one that ran: {ran:?}");
}

#[test]
fn plain_reads_are_lent_and_computed_once_per_snapshot() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    for &(name, op) in verbs::VERBS {
        let Op::Read(read) = op else { continue };
        if !read.plain() {
            continue;
        }
        let first = Reader::read(&snapshot, &verb(name), &[]).expect(name);
        let second = snapshot.read(read, &[("action", "list")]).expect(name);
        assert!(matches!(first, Cow::Borrowed(_)), "{name} is recomputed");
        assert!(std::ptr::eq(&*first, &*second), "{name} is computed twice");
    }
    let bound = Reader::read(&snapshot, &verb("impact"), &[("node_id", "crates/graph")]).expect("impact");
    assert!(matches!(bound, Cow::Owned(_)));
}

#[test]
fn memorize_shows_up_newest_first_in_the_next_snapshot() {
    let (_dir, mut store) = demo();
    assert_eq!(store.snapshot().expect("s").read(Read::Memories, &[]).expect("read").number("memories"), 7);
    store.memorize("the newest claim", "test", None, Some(1)).expect("m");
    let snapshot = store.snapshot().expect("s");
    let memories = snapshot.read(Read::Memories, &[]).expect("read");
    assert_eq!(memories.number("memories"), 8);
    assert_eq!(field(&memories.items[0], "claim"), "the newest claim");
    assert_eq!(snapshot.store_version(), 2);
}

#[test]
fn fixed_arguments_are_honoured() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    static LIST: [Argument; 1] = [Argument { name: Cow::Borrowed("action"), value: Cow::Borrowed("list") }];
    static FORGET: [Argument; 1] = [Argument { name: Cow::Borrowed("action"), value: Cow::Borrowed("forget") }];
    let with = |args: &'static [Argument]| {
        ReadVerb::__from_checked_policy(
            Cow::Borrowed("memories"),
            Cow::Borrowed("boot_memory"),
            crate::COCKPIT.verb_id("boot_memory").expect("boot_memory"),
            Cow::Borrowed(args),
        )
    };
    assert!(Reader::read(&snapshot, &with(&LIST), &[]).is_ok());
    assert!(Reader::read(&snapshot, &with(&FORGET), &[]).is_err());
}

#[test]
fn item_actions_follow_their_bindings() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let read = |name, bound: &[(&str, &str)]| Reader::read(&snapshot, &verb(name), bound).expect(name).into_owned();
    let map = read("system_blocks_snapshot", &[]);
    let node = field(&map.items[0], "node");
    let impact = read("impact", &[("node_id", node)]);
    assert!(impact.number("affected") >= 1);
    assert!(impact.items.iter().all(|i| !field(i, "via").is_empty()));

    let trust = read("trust", &[]);
    let module = field(&trust.items[0], "id");
    let reach = read("impact", &[("node_id", module)]);
    assert!(reach.items.iter().any(|i| field(i, "via") == "block"));

    let drift = read("drift", &[]);
    let first = &drift.items[0];
    let why = read("why", &[("source", field(first, "id")), ("target", field(first, "cause"))]);
    assert_eq!(why.items.len(), 1);
    assert_eq!(field(&why.items[0], "from"), field(first, "id"));
    assert!(field(&why.items[0], "reason").contains("moved it"));
    let back = read("why", &[("source", field(first, "cause")), ("target", field(first, "id"))]);
    assert!(field(&back.items[0], "reason").starts_with("it moved"));
    let unrelated = read("why", &[("source", "a"), ("target", "b")]);
    assert!(unrelated.items.is_empty());

    let alerts = read("doctor", &[]);
    let alert = &alerts.items[0];
    let trace = read("trace", &[("error_text", field(alert, "text"))]);
    assert_eq!(field(&trace.items[0], "id"), field(alert, "id"));
}

#[test]
fn trace_matches_the_error_s_rarest_words_first() {
    let (dir, store) = demo();
    {
        let conn = rusqlite::Connection::open(dir.path().join("state.db")).expect("open");
        let insert = "INSERT INTO alerts (id, level, text, node, severity) VALUES (?1, 'warn', ?2, 'n', 1)";
        for i in 0..200 {
            let text = format!("timeout while syncing replica {i}");
            conn.execute(insert, rusqlite::params![format!("al_common_{i}"), text]).expect("alert");
        }
        conn.execute(insert, ["al_rare", "timeout in frobnicator_shard after failover"]).expect("alert");
    }
    let snapshot = store.snapshot().expect("snapshot");
    let error = "error: timeout syncing frobnicator_shard";
    let trace = Reader::read(&snapshot, &verb("trace"), &[("error_text", error)]).expect("trace");
    assert_eq!(field(&trace.items[0], "id"), "al_rare", "the rare word's alert comes first");
    assert!(trace.items.len() <= LISTED);
    assert!(trace.number("matches") >= 201, "the common words still match: {}", trace.number("matches"));
    let nothing = Reader::read(&snapshot, &verb("trace"), &[("error_text", "zyzzyva qwertyuiop")]).expect("trace");
    assert!(nothing.items.is_empty());
    assert_eq!(nothing.number("matches"), 0);
}

#[test]
fn bad_reads_are_errors_not_panics() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    for name in ["memorize", "persist", "apply"] {
        let err = Reader::read(&snapshot, &verb(name), &[]).expect_err(name);
        assert!(err.0.starts_with("not a read this store serves: "));
    }
    // Names no table has, under the handle of a read: never run as that read.
    let north = crate::COCKPIT.verb_id("north").expect("north");
    for name in ["", "NORTH", "m1nd.north"] {
        let read = ReadVerb::__from_checked_policy(Cow::Borrowed("t"), Cow::Borrowed(name), north, Cow::Borrowed(&[]));
        let err = Reader::read(&snapshot, &read, &[]).expect_err(name);
        assert!(err.0.starts_with("not a read this store serves: "));
    }
    for read in [Read::Impact, Read::Why, Read::Trace] {
        assert!(snapshot.read(read, &[]).is_err(), "{read:?}");
        assert!(snapshot.read(read, &[("node_id", "  ")]).is_err());
    }
}

/// A read whose handle names another verb than it carries is refused,
/// never run as the verb its handle names.
#[test]
fn a_read_whose_handle_disagrees_with_its_verb_is_refused() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let doctor = crate::COCKPIT.verb_id("doctor").expect("doctor");
    let forged =
        ReadVerb::__from_checked_policy(Cow::Borrowed("t"), Cow::Borrowed("north"), doctor, Cow::Borrowed(&[]));
    let refused = Reader::read(&snapshot, &forged, &[]).expect_err("refused");
    assert!(refused.0.contains("not a read this store serves"), "{}", refused.0);
    let learn = crate::COCKPIT.verb_id("learn").expect("learn");
    let unserved =
        ReadVerb::__from_checked_policy(Cow::Borrowed("t"), Cow::Borrowed("learn"), learn, Cow::Borrowed(&[]));
    assert!(Reader::read(&snapshot, &unserved, &[]).is_err());
}

#[test]
fn every_read_the_policy_composes_is_served() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let mut own = 0;
    for read in crate::COCKPIT.reads() {
        if read.verb() == verbs::COCKPIT_VERB {
            // The cockpit's own read of a door's slot: the store answers it with its read of that facet.
            assert!(verbs::read_of(read).is_some(), "{}", read.card());
            own += 1;
        } else {
            assert!(matches!(verbs::op(read.verb()), Some(Op::Read(_))), "{}", read.verb());
            assert_eq!(verbs::read_at(read.verb_id()).map(Read::name), Some(read.verb()), "found by handle");
        }
        // Item actions get their binding from an item; give every name.
        let bound = [("node_id", "crates/graph"), ("source", "x"), ("target", "y"), ("error_text", "timeout")];
        assert!(Reader::read(&snapshot, read, &bound).is_ok(), "{}", read.verb());
    }
    assert_eq!(own, 2, "the bell and the mission board read the cockpit's own view of the mission box");
}

/// A door's `cockpit` read names a slot; one whose facet the store has no
/// read for (or no slot at all) is refused, never answered as another read.
#[test]
fn the_cockpits_own_reads_are_found_by_the_slots_facet_only() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let cockpit = crate::COCKPIT.verb_id(verbs::COCKPIT_VERB).expect("the cockpit verb");
    let own = |select: &'static str| {
        let select = [m1nd_policy::Argument { name: Cow::Borrowed("select"), value: Cow::Borrowed(select) }];
        let read = ReadVerb::__from_checked_policy(
            Cow::Borrowed("t"),
            Cow::Borrowed("cockpit"),
            cockpit,
            Cow::Owned(select.to_vec()),
        );
        (verbs::read_of(&read), Reader::read(&snapshot, &read, &[]).is_ok())
    };
    assert_eq!(own("1"), (Some(Read::North), true));
    assert_eq!(own("3"), (Some(Read::Orient), true));
    for other in ["2", "4", "9", "0", "1.1", "x", ""] {
        assert_eq!(own(other), (None, false), "select = {other:?}");
    }
}

#[test]
fn the_cockpit_composes_over_the_demo_store() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let request = m1nd_policy::runtime::Request::default();
    let view = m1nd_policy::runtime::cockpit(&crate::COCKPIT, &snapshot, &request).expect("root");
    let text = format!("{view:?}");
    assert!(text.contains("2 waiting for your stamp"), "{text}");
    assert!(text.contains("map: 11 ratified (2 stale), 1 to ratify"), "{text}");
    assert!(!text.contains("can't be read"), "{text}");
}

/// Each listing's SQL orders rows as its facet tells the human it does
/// ("newest first"), so a list never says one order and shows another.
/// A new order phrase in the registry fails here until its SQL is named.
#[test]
fn each_listing_is_in_the_order_its_facet_says() {
    use m1nd_policy::Facet;
    let sql_order = |phrase: &str| match phrase {
        "most urgent first" => "ORDER BY urgency, seq",
        "waiting first" => "ORDER BY board, seq",
        "most severe first" => "ORDER BY severity, seq",
        "lowest score first" => "ORDER BY score_value, seq",
        "newest first" => "ORDER BY seq DESC",
        "oldest first" => "ORDER BY seq",
        "most recently seen first" => "ORDER BY last_seen DESC, seq",
        other => panic!("no SQL order is known for `{other}`: name it here, beside the listing's"),
    };
    for (facet, sql) in [
        (Facet::Map, sql::LIST_BLOCKS),
        (Facet::Missions, sql::LIST_MISSIONS),
        (Facet::Health, sql::LIST_ALERTS),
        (Facet::Trust, sql::LIST_MODULES),
        (Facet::Memories, sql::LIST_MEMORIES),
        (Facet::Drift, sql::LIST_DRIFT),
        (Facet::Presences, sql::LIST_PRESENCES),
    ] {
        let order = facet.items().expect("facet lists items").order;
        assert!(sql.contains(&format!("{} LIMIT", sql_order(order))), "{}: `{order}` but {sql}", facet.key());
    }
    // And the demo's newest memory is listed first, the stamp-waiting missions before the rest.
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let read = |name| Reader::read(&snapshot, &verb(name), &[]).expect(name);
    let demo = super::super::demo::state().expect("the demo state");
    let newest = demo.memories.last().expect("demo memories");
    assert_eq!(field(&read("boot_memory").items[0], "id"), newest.id);
}

/// A count label and its list count the same items: the map's label
/// counts the candidate its list shows, and the listing says so.
#[test]
fn the_map_counts_and_marks_the_candidate_it_lists() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let slot = crate::COCKPIT.slots.iter().find(|s| s.facet == m1nd_policy::Facet::Map).expect("a map slot");
    let request = m1nd_policy::runtime::Request { select: Some(slot.n.to_string()), ..Default::default() };
    let view = m1nd_policy::runtime::cockpit(&crate::COCKPIT, &snapshot, &request).expect("the map's list");
    let listing = view.listing.expect("a list says what it shows");
    assert_eq!((listing.shown, listing.total), (8, 12), "8 of 11 ratified + 1 candidate");
    let marked: Vec<_> = view.entries.iter().filter(|e| e.mark == Some("candidate")).collect();
    assert_eq!(marked.len(), 1, "{:?}", view.entries);
    assert_eq!(marked[0].text.as_str(), "Plugin host (proposed)");
}

#[test]
fn a_reference_past_the_end_names_the_references_there_are() {
    let (_dir, store) = demo();
    let snapshot = store.snapshot().expect("snapshot");
    let refused = |select: &str| {
        let request = m1nd_policy::runtime::Request { select: Some(select.to_owned()), seen_store_version: None };
        m1nd_policy::runtime::cockpit(&crate::COCKPIT, &snapshot, &request).expect_err("past the end").to_string()
    };
    let map = crate::COCKPIT.slots.iter().find(|s| s.facet.key() == "map").expect("a map slot").n;
    let action = refused(&format!("{map}.1.9"));
    assert!(
        action.contains(&format!("it has one, {map}.1.1")) || action.contains(&format!("it has {map}.1.1 to {map}.1.")),
        "{action}"
    );
    assert!(!action.contains("1 to 1"), "{action}");
    let item = refused(&format!("{map}.99"));
    // The list shows 8 of its 12 blocks (the policy's limit): the references are those 8.
    assert!(item.contains(&format!("it lists {map}.1 to {map}.8")), "{item}");
}
