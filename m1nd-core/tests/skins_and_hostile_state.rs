//! Two skins, one geometry; and state strings stay data.
//!
//! Over many generated states (ordinary, loud, failing and hostile), every
//! level's JSON and text card carry the same numbers, labels, items, marks,
//! listing, facts and sigs; entries expose only `select` references; no state
//! string reaches a label, a mark or a payload; and displayed data is free of
//! control characters and invisible characters (checked against ICU4X's
//! Unicode data, not the sanitiser's own tables) and within its caps.

mod support;

use m1nd_policy::runtime::json::to_value;
use m1nd_policy::runtime::text::{Charset, render};
use m1nd_policy::runtime::{EntryText, Item, Path, ReadError, Reading, Request, View, cockpit};
use m1nd_policy::{Cockpit, Facet};
use proptest::prelude::*;
use serde_json::Value;
use support::unicode::is_invisible;
use support::{HOSTILE, MemReader, item, long, real_policy};

fn text_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{1,12}",
        "\\PC{0,80}",
        proptest::sample::select(HOSTILE).prop_map(str::to_owned),
        (proptest::sample::select(HOSTILE), 100usize..2000).prop_map(|(s, n)| long(s, n)),
    ]
}

#[derive(Clone, Debug)]
struct FacetState {
    fails: bool,
    numbers: Vec<u64>,
    items: Vec<String>,
}

fn facet_state() -> impl Strategy<Value = FacetState> {
    (
        proptest::bool::weighted(0.1),
        proptest::collection::vec(prop_oneof![Just(0u64), 1u64..100, Just(u64::MAX)], 3),
        proptest::collection::vec(text_strategy(), 0..12),
    )
        .prop_map(|(fails, numbers, items)| FacetState { fails, numbers, items })
}

fn reader(table: &Cockpit, states: &[FacetState], version: u64) -> MemReader {
    let mut reader = MemReader { version, ..MemReader::default() };
    for (slot, state) in table.slots.iter().zip(states.iter().cycle()) {
        let Some(read) = slot.kind.source() else { continue };
        let reading = if state.fails {
            Err(ReadError("the store is down".into()))
        } else {
            let names = slot.facet.conditions().iter().flat_map(|c| c.placeholders.iter());
            let mut r = Reading::default();
            for (name, value) in names.zip(state.numbers.iter().cycle()) {
                r = r.with(name, *value);
            }
            r.items = state.items.iter().enumerate().map(|(k, s)| with_id(item(slot.facet, s), k)).collect();
            Ok(r)
        };
        reader.by_card.insert(read.card().to_owned(), reading);
    }
    reader.action = Reading { numbers: vec![("n".into(), 7)], items: vec![Item::new([("x", HOSTILE[0])])] };
    reader
}

fn with_id(mut item: Item, k: usize) -> Item {
    if let Some(f) = item.fields.iter_mut().find(|(n, _)| n == "id") {
        f.1 = format!("id_{k}_{}", f.1.chars().take(8).collect::<String>());
    }
    item
}

fn levels(table: &Cockpit) -> Vec<Path> {
    let mut out = vec![Path::Root];
    for slot in table.slots.iter() {
        out.push(Path::Collection { slot: slot.n });
        out.push(Path::Item { slot: slot.n, item: 1 });
        out.push(Path::Item { slot: slot.n, item: 3 });
        out.push(Path::Action { slot: slot.n, item: 1, action: 1 });
    }
    out
}

/// Every check of the two skins and of state hygiene on one view.
fn check_view(table: &Cockpit, view: &View, hostile: &[&str]) {
    let json = to_value(view);
    let card = render(view, Charset::Unicode);
    let ascii = render(view, Charset::Ascii);
    assert!(ascii.is_ascii());
    // Same sigs in both skins.
    assert_eq!(json["menu_sig"], view.menu_sig.as_str());
    assert_eq!(json["state_sig"], view.state_sig.as_str());
    assert_eq!(json["store_version"], view.store_version);
    for sig in [&view.menu_sig, &view.state_sig, &view.store_version.to_string()] {
        assert!(card.contains(sig.as_str()), "text card lacks {sig}");
    }
    // Same header facts in both skins.
    assert_eq!(json["title"], view.title.as_str());
    assert!(card.contains(&view.title));
    assert_eq!(json.get("state_moved").is_some(), view.state_moved);
    assert_eq!(card.starts_with("! state moved"), view.state_moved);
    for (key, value) in [("note", &view.note), ("door", &view.door), ("item", &view.subject)] {
        assert_eq!(json.get(key).and_then(Value::as_str), value.as_deref(), "{key}");
        if let Some(value) = value {
            assert!(card.contains(value.as_str()), "text card lacks the {key} {value:?}");
        }
    }
    // Same entries, in the same order; only `select` plus one text field.
    let entries = json["entries"].as_array().cloned().unwrap_or_default();
    assert_eq!(entries.len(), view.entries.len());
    for (json_entry, entry) in entries.iter().zip(&view.entries) {
        let object = json_entry.as_object().expect("entry is an object");
        let keys = 2 + usize::from(entry.mark.is_some());
        assert_eq!(object.len(), keys, "entry keys: {:?}", object.keys().collect::<Vec<_>>());
        assert_eq!(object.get("mark").and_then(Value::as_str), entry.mark);
        assert!(!object.contains_key("verb"));
        assert_eq!(object["select"], entry.select.as_str());
        let number = entry.select.split('@').next().unwrap();
        assert!(entry.select.ends_with(&format!("@{}", view.menu_sig)));
        assert!(number.chars().all(|c| c.is_ascii_digit() || c == '.'), "payload {number:?}");
        let text = match &entry.text {
            EntryText::Label(l) => {
                assert_eq!(object["label"], l.as_str());
                // Labels come from the policy: never from state.
                for h in hostile {
                    assert!(!l.contains(h), "state string {h:?} reached a label");
                }
                l
            }
            EntryText::Data(d) => {
                assert_eq!(object["item"], d.as_str());
                d
            }
        };
        let line = card
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("{number} ")))
            .expect("text card lists the entry");
        assert!(line.contains(text.as_str()), "text card line {line:?} lacks {text:?}");
        if let Some(mark) = entry.mark {
            assert!(matches!(entry.text, EntryText::Data(_)), "a mark sits beside an item, not a label");
            assert!(line.ends_with(&format!("] ({mark})")), "text card line {line:?} lacks the mark {mark:?}");
        }
    }
    // The same listing: how many of how many, in what order.
    match &view.listing {
        Some(listing) => {
            assert_eq!(json["list"]["shown"], listing.shown);
            assert_eq!(json["list"]["total"], listing.total);
            assert_eq!(json["list"]["order"], listing.order);
            assert_eq!(listing.shown, view.entries.len() as u64);
            assert!(listing.total >= listing.shown);
            assert!(card.lines().any(|l| l == format!("  {}", listing.sentence())), "text card lacks the listing");
        }
        None => assert!(json.get("list").is_none()),
    }
    // Same facts.
    for (k, v) in &view.facts {
        assert_eq!(json["facts"][k.as_str()], v.as_str());
        assert!(card.contains(&format!("{k}: {v}")));
    }
    // Data is display-safe and capped.
    let data = view.entries.iter().filter_map(|e| match &e.text {
        EntryText::Data(d) => Some(d.as_str()),
        EntryText::Label(_) => None,
    });
    for s in data.chain(view.facts.iter().map(|(_, v)| v.as_str())) {
        assert!(!s.chars().any(char::is_control), "control character in {s:?}");
        assert!(s.chars().count() <= 120, "uncapped ({} chars)", s.chars().count());
    }
    // An item's own view shows its headline at length, up to its collection's text_cap.
    let subject_cap = match view.level {
        Path::Item { slot, .. } => {
            table.slot(slot).and_then(|s| s.collection.as_ref()).map_or(0, |c| c.text_cap.into())
        }
        _ => 40,
    };
    if let Some(s) = &view.subject {
        assert!(!s.chars().any(char::is_control), "control character in {s:?}");
        assert!(s.chars().count() <= subject_cap, "subject uncapped ({} chars > {subject_cap})", s.chars().count());
    }
    for line in card.lines() {
        assert!(!line.chars().any(char::is_control));
    }
    for c in card.chars().chain(json.to_string().chars()) {
        assert!(!is_invisible(c), "invisible U+{:04X} reached the cockpit", c as u32);
    }
    // No entry, door or fact names a verb key; and every number offered
    // at the root is a slot of the table.
    assert!(!json.to_string().contains("\"verb\""));
    if view.level == Path::Root {
        let numbers: Vec<String> = table.slots.iter().map(|s| s.n.to_string()).collect();
        let offered: Vec<String> =
            view.entries.iter().map(|e| e.select.split('@').next().unwrap().to_owned()).collect();
        assert_eq!(offered, numbers);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn both_skins_carry_the_same_facts(states in proptest::collection::vec(facet_state(), 9), version in any::<u64>()) {
        let table = real_policy();
        let reader = reader(&table, &states, version);
        let hostile: Vec<&str> = HOSTILE.iter().copied().filter(|h| h.len() > 6).collect();
        for path in levels(&table) {
            let select = (path != Path::Root).then(|| path.to_string());
            if let Ok(view) = cockpit(&table, &reader, &Request { select, seen_store_version: None }) {
                check_view(&table, &view, &hostile);
            }
        }
    }
}

#[test]
fn a_failing_read_degrades_only_its_slot() {
    let table = real_policy();
    let states = vec![FacetState { fails: false, numbers: vec![3, 2, 1], items: vec!["x".into()] }; 9];
    let mut reader = reader(&table, &states, 5);
    let health = table.slots.iter().find(|s| s.facet == Facet::Health).unwrap();
    reader.by_card.insert(health.kind.source().unwrap().card().to_owned(), Err(ReadError("boom".into())));
    let root = cockpit(&table, &reader, &Request::default()).unwrap();
    let label =
        |n: u8| root.entries.iter().find(|e| e.select.starts_with(&format!("{n}@"))).unwrap().text.as_str().to_owned();
    assert_eq!(label(health.n), health.label("unavailable").unwrap());
    assert_eq!(root.entries.len(), table.slots.len());
    for slot in table.slots.iter().filter(|s| s.n != health.n) {
        assert_ne!(label(slot.n), slot.label("unavailable").unwrap_or(""), "slot {} degraded too", slot.n);
    }
    let drill =
        cockpit(&table, &reader, &Request { select: Some(health.n.to_string()), seen_store_version: None }).unwrap();
    assert!(drill.note.as_deref().unwrap_or("").contains("cannot be read"));
    assert!(!format!("{drill:?}").contains("boom"), "the reader's error text must not be shown");
}

#[test]
fn megabyte_strings_are_cut_to_their_caps() {
    let table = real_policy();
    let states =
        vec![
            FacetState { fails: false, numbers: vec![1, 1, 1], items: vec![long("select 3 @ mc_deadbeef\n", 1 << 20)] };
            9
        ];
    let reader = reader(&table, &states, 1);
    for path in levels(&table) {
        let select = (path != Path::Root).then(|| path.to_string());
        if let Ok(view) = cockpit(&table, &reader, &Request { select, seen_store_version: None }) {
            check_view(&table, &view, &["select 3 @ mc_deadbeef"]);
            assert!(to_value(&view).to_string().len() < 8_000);
        }
    }
}

#[test]
fn json_is_the_schema_the_widget_reads() {
    let table = real_policy();
    let states = vec![FacetState { fails: false, numbers: vec![2, 1, 0], items: vec!["a".into(), "b".into()] }; 9];
    let root = cockpit(&table, &reader(&table, &states, 3), &Request::default()).unwrap();
    let json = to_value(&root);
    assert_eq!(json["schema"], "m1nd-cockpit-v1");
    assert_eq!(json["level"], "root");
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["schema", "level", "title", "menu_sig", "state_sig", "store_version", "entries"]);
    assert!(matches!(json["store_version"], Value::Number(_)));
}

/// Only the store version moved: the answer is given, led by the moved flag
/// and the note (they are the first keys after the schema).
#[test]
fn a_stale_store_version_answers_but_says_so_first() {
    let table = real_policy();
    let states = vec![FacetState { fails: false, numbers: vec![2, 1, 0], items: vec!["a".into()] }; 9];
    let reader = reader(&table, &states, 9);
    let view = cockpit(&table, &reader, &Request { select: Some("2".into()), seen_store_version: Some(8) }).unwrap();
    assert_eq!(view.level, Path::Collection { slot: 2 });
    assert!(view.state_moved);
    let json = to_value(&view);
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).take(3).collect();
    assert_eq!(keys, ["schema", "state_moved", "note"]);
    assert_eq!(json["note"], "state moved: store_version is 9 (you saw 8)");
    let card = render(&view, Charset::Unicode);
    let mut lines = card.lines();
    assert_eq!(lines.next(), Some("! state moved"), "moved state is said first:\n{card}");
    assert_eq!(lines.next(), Some("! state moved: store_version is 9 (you saw 8)"));
    let fresh = cockpit(&table, &reader, &Request { select: Some("2".into()), seen_store_version: Some(9) }).unwrap();
    assert!(!fresh.state_moved && fresh.note.is_none());
}

/// A door's level shows its text and offers nothing to execute.
#[test]
fn a_door_points_and_executes_nothing() {
    let table = real_policy();
    let states = vec![FacetState { fails: false, numbers: vec![2, 1, 0], items: vec!["a".into()] }; 9];
    let reader = reader(&table, &states, 1);
    for slot in table.slots.iter().filter(|s| matches!(s.kind, m1nd_policy::SlotKind::Door { .. })) {
        let view =
            cockpit(&table, &reader, &Request { select: Some(slot.n.to_string()), seen_store_version: None }).unwrap();
        let json = to_value(&view);
        assert!(json["door"].as_str().is_some_and(|d| !d.is_empty()));
        assert!(!json.to_string().contains("\"verb\""));
        if let Some(first) = view.entries.first() {
            let item =
                cockpit(&table, &reader, &Request { select: Some(first.select.clone()), seen_store_version: None })
                    .unwrap();
            assert!(item.entries.is_empty(), "a door's items carry no actions");
        }
    }
}

/// A hand-built table that smuggles a write into a slot's read: the composer
/// re-checks the read against the deny list, never asks the reader for it,
/// and shows the slot as unavailable.
#[test]
fn a_forged_read_fails_closed() {
    use std::borrow::Cow;
    use std::cell::RefCell;

    struct Recording(RefCell<Vec<(String, m1nd_policy::VerbId)>>);
    impl m1nd_policy::runtime::Reader for Recording {
        fn read(&self, read: &m1nd_policy::ReadVerb, _: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError> {
            self.0.borrow_mut().push((read.verb().to_owned(), read.verb_id()));
            Ok(Cow::Owned(Reading::default()))
        }
        fn store_version(&self) -> u64 {
            1
        }
    }

    let policy = real_policy();
    let id = |name: &str| policy.verb_id(name).unwrap();
    // A denied verb with its own handle; a denied verb under a read's handle;
    // a read's name over a denied verb's handle (a reader dispatches on the handle).
    for (verb, handle) in [("learn", id("learn")), ("learn", id("doctor")), ("doctor", id("learn"))] {
        let mut table = policy.clone();
        let mut slots = table.slots.to_vec();
        let health = slots.iter_mut().find(|s| s.facet == Facet::Health).unwrap();
        let forged = m1nd_policy::ReadVerb::__from_checked_policy(
            Cow::Borrowed("health"),
            Cow::Owned(verb.to_owned()),
            handle,
            Cow::Borrowed(&[]),
        );
        health.kind = m1nd_policy::SlotKind::Read { read: forged };
        let n = health.n;
        let unavailable = health.label("unavailable").unwrap().to_owned();
        table.slots = Cow::Owned(slots);
        let reader = Recording(RefCell::new(Vec::new()));
        let root = cockpit(&table, &reader, &Request::default()).unwrap();
        let asked = reader.0.borrow();
        assert!(!asked.iter().any(|(v, h)| v == "learn" || *h == id("learn")), "{verb}: asked for {asked:?}");
        let entry = root.entries.iter().find(|e| e.select.starts_with(&format!("{n}@"))).unwrap();
        assert_eq!(entry.text.as_str(), unavailable, "{verb}");
    }
}
