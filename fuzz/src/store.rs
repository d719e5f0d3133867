//! Store contents written by a hostile writer, composed into the cockpit by
//! `m1nd_policy::runtime::cockpit` over a `MemoryReader`.
//!
//! The input is JSON, as a store row holds it:
//!
//! ```json
//! {"policy": 0, "version": 7, "seen_version": 6, "selects": ["2.1@mc_0a1b2c3d"],
//!  "slots": {"map": {"numbers": {"blocks": 3}, "items": [{"id": "b1", "title": "…"}]},
//!            "health": {"fail": "the store is down"}},
//!  "action": {"numbers": {"affected": 2}, "items": [{"x": "…"}]}}
//! ```
//!
//! `policy` picks one of [`crate::tables::COCKPIT_POLICIES`]; `slots` is keyed
//! by facet; item fields may be any JSON (a non-string is stored as its JSON
//! text). The composer is walked as a human would click: the root, every
//! slot, the first and last item of each, every action of those, then each
//! of `selects`. Every level it serves is judged by [`crate::view::judge`],
//! so hostile state never reaches a label or a payload, and every level stays
//! within the worst case M011 proved. The composer is pure: the root composed
//! twice is the same.

use std::collections::HashMap;

use m1nd_policy::Cockpit;
use m1nd_policy::runtime::{Item, MemoryReader, ReadError, Reader, Reading, Request, View, WorstCase, cockpit};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::tables::{Menu, cockpits};
use crate::view::judge;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Store {
    policy: usize,
    version: u64,
    seen_version: Option<u64>,
    selects: Vec<String>,
    slots: HashMap<String, Answer>,
    action: Answer,
}

/// One read's answer.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Answer {
    /// The read fails with this text.
    fail: Option<String>,
    numbers: Map<String, Value>,
    items: Vec<Map<String, Value>>,
}

impl Answer {
    fn reading(&self) -> Reading {
        let numbers = self.numbers.iter().filter_map(|(k, v)| Some((k.clone(), v.as_u64()?))).collect();
        let items = self
            .items
            .iter()
            .map(|fields| {
                Item::new(
                    fields.iter().map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned))),
                )
            })
            .collect();
        Reading { numbers, items }
    }
}

/// The most levels composed for one input, so one input costs a bounded time.
const MOST_LEVELS: usize = 96;

pub fn check(data: &[u8]) {
    let Ok(store) = serde_json::from_slice::<Store>(data) else { return };
    let menus = cockpits();
    let menu = &menus[store.policy % menus.len()];
    walk(&menu.table, &menu.worst, &reader(menu, &store), &store.selects, store.seen_version);
}

/// Compose the cockpit over `reader` as a human would click (see the
/// module's doc), judging every level served; `selects` and `seen` are typed
/// references and the `store_version` the human last saw.
pub(crate) fn walk(table: &Cockpit, worst: &WorstCase, reader: &dyn Reader, selects: &[String], seen: Option<u64>) {
    let serve = |select: Option<&str>, seen: Option<u64>| {
        let request = Request { select: select.map(str::to_owned), seen_store_version: seen };
        match cockpit(table, reader, &request) {
            Ok(view) => {
                judge(table, worst, &view);
                Some(view)
            }
            Err(e) => {
                assert!(crate::is_display_safe(&e.to_string()), "refusal {e}");
                None
            }
        }
    };

    let root = serve(None, seen).expect("the root always composes");
    assert_eq!(Some(&root), serve(None, seen).as_ref(), "the composer is not pure");
    let mut served = 2;
    let mut click = |view: &View, pick: &dyn Fn(usize, usize) -> bool| -> Vec<View> {
        let count = view.entries.len();
        let chosen = view.entries.iter().enumerate().filter(|(i, _)| pick(*i, count));
        let mut below = Vec::new();
        for (_, entry) in chosen {
            if served == MOST_LEVELS {
                break;
            }
            served += 1;
            below.extend(serve(Some(&entry.select), None));
        }
        below
    };
    let every = |_: usize, _: usize| true;
    let ends = |i: usize, count: usize| i == 0 || i + 1 == count;
    for collection in click(&root, &every) {
        for item in click(&collection, &ends) {
            click(&item, &every);
        }
    }
    for select in selects.iter().take(8) {
        serve(Some(select), seen);
    }
}

fn reader(menu: &Menu, store: &Store) -> MemoryReader {
    let mut reader = MemoryReader { version: store.version, action: store.action.reading(), ..MemoryReader::default() };
    for slot in menu.table.slots.iter() {
        let (Some(read), Some(answer)) = (slot.kind.source(), store.slots.get(slot.facet.key())) else { continue };
        let reading = match &answer.fail {
            Some(why) => Err(ReadError(why.clone())),
            None => Ok(answer.reading()),
        };
        reader.by_card.insert(read.card().to_owned(), reading);
    }
    reader
}
