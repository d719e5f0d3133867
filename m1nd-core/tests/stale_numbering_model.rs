//! Model-based test: random interleavings of state changes and references
//! (each carrying the menu_sig of the view it was read from) never produce an
//! answer resolved against a numbering the human did not see.
//!
//! After every answer the test recomposes the level the reference was read
//! from. If the answer resolved the number, that level must list exactly what
//! the human saw; otherwise the answer must be the honest "state moved"
//! re-serve of that level.

mod support;

use m1nd_policy::runtime::{Item, Path, Reading, Request, View, cockpit, parse_reference};
use proptest::prelude::*;
use support::{MemReader, item, real_policy};

#[derive(Clone, Debug)]
enum Step {
    /// Insert an item at the front of slot `slot`'s collection (renumbers it).
    Insert { slot: usize, seed: u32 },
    /// Remove the first item of a collection.
    Remove { slot: usize },
    /// Change a facet's numbers (changes its label).
    Count { slot: usize, value: u64 },
    /// Bump the store version without touching what is shown.
    Bump,
    /// Change every field of a collection's first item but its id, without
    /// bumping the version (readers whose data moves on its own do this).
    Rewrite { slot: usize, seed: u32 },
    /// Reorder a collection without bumping the version.
    Reverse { slot: usize },
    /// Pick entry `entry` of remembered view `view` and send its reference.
    Select { view: usize, entry: usize },
    /// Serve the root afresh.
    Root,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0usize..9, any::<u32>()).prop_map(|(slot, seed)| Step::Insert { slot, seed }),
        (0usize..9).prop_map(|slot| Step::Remove { slot }),
        (0usize..9, 0u64..4).prop_map(|(slot, value)| Step::Count { slot, value }),
        Just(Step::Bump),
        (0usize..9, any::<u32>()).prop_map(|(slot, seed)| Step::Rewrite { slot, seed }),
        (0usize..9).prop_map(|slot| Step::Reverse { slot }),
        (0usize..64, 0usize..12).prop_map(|(view, entry)| Step::Select { view, entry }),
        (0usize..64, 0usize..12).prop_map(|(view, entry)| Step::Select { view, entry }),
        Just(Step::Root),
    ]
}

fn seeded(table: &m1nd_policy::Cockpit) -> MemReader {
    let mut reader = MemReader { version: 1, ..MemReader::default() };
    for slot in table.slots.iter() {
        let Some(read) = slot.kind.source() else { continue };
        let items = (0..3).map(|k| named(slot.facet, k)).collect();
        let mut reading = Reading { numbers: Vec::new(), items };
        for c in slot.facet.conditions() {
            for p in c.placeholders {
                reading = reading.with(p, 1);
            }
        }
        reader.by_card.insert(read.card().to_owned(), Ok(reading));
    }
    reader.action = Reading { numbers: vec![("affected".into(), 1)], items: Vec::new() };
    reader
}

fn named(facet: m1nd_policy::Facet, k: u32) -> Item {
    let mut it = item(facet, &format!("value {k}"));
    for (name, value) in it.fields.iter_mut() {
        if name == "id" {
            *value = format!("item_{k}");
        }
    }
    it
}

fn reading_of<'a>(reader: &'a mut MemReader, table: &m1nd_policy::Cockpit, slot: usize) -> Option<&'a mut Reading> {
    let card = table.slots.get(slot)?.kind.source()?.card().to_owned();
    reader.by_card.get_mut(&card)?.as_mut().ok()
}

fn serve(table: &m1nd_policy::Cockpit, reader: &MemReader, select: Option<String>) -> Option<View> {
    cockpit(table, reader, &Request { select, seen_store_version: None }).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn no_answer_uses_a_numbering_the_human_did_not_see(steps in proptest::collection::vec(step(), 1..60)) {
        let table = real_policy();
        let mut reader = seeded(&table);
        let mut seen: Vec<View> = vec![serve(&table, &reader, None).unwrap()];
        let (mut resolved, mut moved) = (0, 0);
        for step in steps {
            match step {
                Step::Insert { slot, seed } => {
                    if let Some(r) = reading_of(&mut reader, &table, slot) {
                        r.items.insert(0, named(table.slots[slot].facet, 1000 + seed));
                    }
                    reader.version += 1;
                }
                Step::Remove { slot } => {
                    if let Some(r) = reading_of(&mut reader, &table, slot).filter(|r| !r.items.is_empty()) {
                        r.items.remove(0);
                    }
                    reader.version += 1;
                }
                Step::Count { slot, value } => {
                    if let Some(r) = reading_of(&mut reader, &table, slot) {
                        for n in r.numbers.iter_mut() {
                            n.1 = value;
                        }
                    }
                    reader.version += 1;
                }
                Step::Bump => reader.version += 1,
                Step::Rewrite { slot, seed } => {
                    if let Some(first) = reading_of(&mut reader, &table, slot).and_then(|r| r.items.first_mut()) {
                        for (name, value) in first.fields.iter_mut().filter(|(n, _)| n != "id") {
                            *value = format!("{name} rewritten {seed}");
                        }
                    }
                }
                Step::Reverse { slot } => {
                    if let Some(r) = reading_of(&mut reader, &table, slot) {
                        r.items.reverse();
                    }
                }
                Step::Root => seen.push(serve(&table, &reader, None).unwrap()),
                Step::Select { view, entry } => {
                    let from = seen[view % seen.len()].clone();
                    let Some(entry) = from.entries.get(entry % from.entries.len().max(1)) else { continue };
                    let answer = cockpit(&table, &reader, &Request { select: Some(entry.select.clone()), seen_store_version: None });
                    let now = serve(&table, &reader, (from.level != Path::Root).then(|| from.level.to_string()));
                    let Some(now) = now.filter(|now| now.menu_sig == from.menu_sig) else {
                        // The level the number was read from changed or is gone:
                        // the answer must say so and resolve nothing.
                        let answer = answer.map_err(|e| TestCaseError::fail(format!("stale sig answered with an error: {e}")))?;
                        moved += 1;
                        prop_assert!(answer.state_moved);
                        prop_assert!(answer.note.as_deref().unwrap_or("").starts_with("state moved"));
                        let ancestor = answer.level == from.level || matches!(answer.level, Path::Root | Path::Collection { .. });
                        prop_assert!(ancestor, "re-served {:?} for a number read at {:?}", answer.level, from.level);
                        seen.push(answer);
                        continue;
                    };
                    let Ok(answer) = answer else { continue };
                    resolved += 1;
                    prop_assert!(!answer.state_moved);
                    prop_assert_eq!(answer.level, parse_reference(&entry.select).unwrap().path);
                    // What the human saw is what the number means now.
                    prop_assert_eq!(&now.entries, &from.entries);
                    prop_assert_eq!(&now.facts, &from.facts);
                    prop_assert_eq!(&now.title, &from.title);
                    seen.push(answer);
                }
            }
        }
        let _ = (resolved, moved);
    }
}

/// The two outcomes both happen: the model above is not vacuous.
#[test]
fn both_outcomes_are_reachable() {
    let table = real_policy();
    let mut reader = seeded(&table);
    let root = serve(&table, &reader, None).unwrap();
    let two = root.entries.iter().find(|e| e.select.starts_with("2@")).unwrap().select.clone();
    let collection = serve(&table, &reader, Some(two.clone())).unwrap();
    assert!(!collection.state_moved);
    reading_of(&mut reader, &table, 1).unwrap().items.insert(0, named(table.slots[1].facet, 99));
    reader.version += 1;
    let first = collection.entries[0].select.clone();
    let answer = serve(&table, &reader, Some(first)).unwrap();
    assert!(answer.state_moved);
    assert_eq!(answer.level, Path::Collection { slot: 2 });
    assert!(answer.note.unwrap().contains(&collection.menu_sig));
}

/// A number read from an item that has since disappeared is answered with
/// "state moved" and the nearest level that still exists, not an error; and
/// a changed field under an unchanged id makes the item's actions stale.
#[test]
fn vanished_items_and_changed_fields_are_state_moved() {
    let table = real_policy();
    let mut reader = seeded(&table);
    let item = serve(&table, &reader, Some("2.3".into())).unwrap();
    let action = item.entries[0].select.clone();
    reading_of(&mut reader, &table, 1).unwrap().items.truncate(2);
    let answer = serve(&table, &reader, Some(action.clone())).expect("an answer, not an error");
    assert!(answer.state_moved);
    assert_eq!(answer.level, Path::Collection { slot: 2 });

    let mut reader = seeded(&table);
    let item = serve(&table, &reader, Some("2.1".into())).unwrap();
    let action = item.entries[0].select.clone();
    let first = &mut reading_of(&mut reader, &table, 1).unwrap().items[0];
    for (name, value) in first.fields.iter_mut().filter(|(n, _)| n == "node") {
        *value = format!("{name} elsewhere");
    }
    let answer = serve(&table, &reader, Some(action)).unwrap();
    assert!(answer.state_moved, "an action bound from a field the human did not see must not run");
    assert_eq!(answer.level, Path::Item { slot: 2, item: 1 });
}
