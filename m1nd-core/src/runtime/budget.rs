//! The worst case a policy can produce, measured with the real composer.
//!
//! Law M011 and the battery test both call [`worst_case`]. Rather than a
//! hand-kept size model that could drift from the renderer, it renders the
//! loudest state the policy admits — every number `u64::MAX`, every collection
//! full, every field at its cap and made of `"` (which JSON doubles), an
//! item's headline at its collection's `text_cap`, every listed item with its
//! facet's longest mark, the longest label of every slot, the longest
//! state_sig and note — and measures the pretty JSON. Each of those maxima is
//! independent of the others in the renderer, so combining them bounds every
//! real response.
//!
//! [`fit_text_caps`] uses the same measure the other way round: it gives an
//! item's own view as much of its headline as the drill budget has room for.

use std::collections::HashMap;

use super::compose::{Composer, LEVEL_NOTES, RESULT_LINES, sig_moved_note, version_moved_note};
use super::json::{to_pretty, tokens};
use super::reader::{Item, MemoryReader, ReadError, Reading};
use super::reading_set::Snapshot;
use super::reference::Path;
use super::sig::state_sig;
use super::view::{EntryText, View};
use crate::facets::{Facet, UNAVAILABLE};
use crate::sanitize::cap;
use crate::table::{Cockpit, Slot, SlotKind};

/// The largest root and drill responses, in tokens, which drill it was, and
/// the loud views themselves (for inspection and the battery test).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorstCase {
    pub root_tokens: usize,
    pub drill_tokens: usize,
    /// The reference of the largest drill, e.g. `6.5`.
    pub drill_level: String,
    pub root: View,
    pub drill: Option<View>,
}

/// Measure the worst root and drill responses of a table.
pub fn worst_case(table: &Cockpit) -> WorstCase {
    let loud = loud_reader(table);
    let snapshot = Snapshot::take(table, &loud);
    let composer = Composer::new(table, &loud, &snapshot);
    let loudest = Loudest::new(table);
    let (root_tokens, root) = loudest.view(loud_labels_root(table), None, None);
    let mut drill: (usize, String, Option<View>) = (0, String::new(), None);
    for slot in table.slots.iter() {
        let mut paths = vec![Path::Collection { slot: slot.n }];
        let count = collection_len(slot);
        let actions = slot.collection.as_ref().map_or(0, |c| c.actions.len());
        for m in 1..=count {
            paths.push(Path::Item { slot: slot.n, item: m });
            paths.extend((1..=actions as u16).map(|k| Path::Action { slot: slot.n, item: m, action: k }));
        }
        for path in paths {
            let Ok(view) = composer.level(path) else {
                continue;
            };
            let (size, view) = loudest.drill(slot, path, view);
            if size > drill.0 {
                drill = (size, path.to_string(), Some(view));
            }
        }
    }
    WorstCase { root_tokens, drill_tokens: drill.0, drill_level: drill.1, root, drill: drill.2 }
}

/// The most characters an item's own view ever shows of its headline,
/// however large the budget.
pub const MAX_TEXT_CAP: u16 = 4_000;

/// Give each collection's item view as much of the headline as the item
/// budget has room for in the loudest state: the largest `text_cap`, at
/// least the headline field's own cap, whose loudest item view fits
/// `item_tokens`. Where even that floor does not fit, the floor stays and
/// M011 reports the overrun.
pub fn fit_text_caps(table: &mut Cockpit) {
    // The loudest state is built once; a step of one slot's search changes
    // only the readings of that slot's card, so only those are made again
    // (rebuilding every slot's twenty loudest items at each step was most of
    // compiling the real policy).
    let mut loud = loud_reader(table);
    for index in 0..table.slots.len() {
        let slot = &table.slots[index];
        let (Some(items), Some(_)) = (slot.facet.items(), &slot.collection) else {
            continue;
        };
        let floor = items.field(items.headline).map_or(cap::HEADLINE, |f| f.cap);
        let floor = u16::try_from(floor).unwrap_or(MAX_TEXT_CAP).min(MAX_TEXT_CAP);
        let fits = |table: &mut Cockpit, loud: &mut MemoryReader, text_cap: u16| {
            set_text_cap(table, loud, index, text_cap);
            item_view_tokens(table, loud, index) <= table.budget.item_tokens as usize
        };
        // The size grows with the cap, so the largest cap that fits is found by halving.
        let (mut lo, mut hi) = (floor, MAX_TEXT_CAP);
        if !fits(table, &mut loud, lo) {
            set_text_cap(table, &mut loud, index, floor);
            continue;
        }
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(table, &mut loud, mid) { lo = mid } else { hi = mid - 1 }
        }
        set_text_cap(table, &mut loud, index, lo);
    }
}

/// Set slot `index`'s text cap, and make `loud` what [`loud_reader`] now gives.
fn set_text_cap(table: &mut Cockpit, loud: &mut MemoryReader, index: usize, text_cap: u16) {
    if let Some(collection) = table.slots.to_mut()[index].collection.as_mut() {
        collection.text_cap = text_cap;
    }
    let Some(card) = table.slots[index].kind.source().map(|read| read.card().to_owned()) else {
        return;
    };
    // The last slot reading that card gives the card's reading, as in `loud_reader`; only it is built.
    let last = table.slots.iter().rev().find(|slot| slot.kind.source().is_some_and(|read| read.card() == card));
    if let Some((card, reading)) = last.and_then(|slot| loud_reading(slot, max_limit(table))) {
        loud.by_card.insert(card.to_owned(), Ok(reading));
    }
}

/// The loudest item view of slot `index`, in tokens, with `loud` the loudest state.
fn item_view_tokens(table: &Cockpit, loud: &MemoryReader, index: usize) -> usize {
    let slot = &table.slots[index];
    let snapshot = Snapshot::take(table, loud);
    let path = Path::Item { slot: slot.n, item: 1 };
    match Composer::new(table, loud, &snapshot).level(path) {
        Ok(view) => Loudest::with(table, loud).drill(slot, path, view).0,
        Err(_) => 0,
    }
}

/// What every level is given on top of its loudest state: the longest
/// state_sig, note and store_version, and moved state.
struct Loudest {
    state_sig: String,
    note: String,
}

impl Loudest {
    fn new(table: &Cockpit) -> Self {
        Self::with(table, &loud_reader(table))
    }

    /// The same, with `loud` already built: it must be [`loud_reader`]'s.
    fn with(table: &Cockpit, loud: &MemoryReader) -> Self {
        Self { state_sig: longest_state_sig(table, loud), note: longest_note() }
    }

    /// A drill level made loudest: a collection or item titled with the
    /// slot's longest label (an action keeps its card's title), and each
    /// listed item with the facet's longest mark.
    fn drill(&self, slot: &Slot, path: Path, view: View) -> (usize, View) {
        let title = (!matches!(path, Path::Action { .. })).then(|| longest_label(slot));
        let mark = slot.facet.items().and_then(|i| i.longest_mark());
        self.view(view, title, mark)
    }

    fn view(&self, mut view: View, title: Option<String>, mark: Option<&'static str>) -> (usize, View) {
        view.state_sig.clone_from(&self.state_sig);
        view.store_version = u64::MAX;
        view.state_moved = true;
        view.note = Some(self.note.clone());
        if let Some(title) = title {
            view.title = title;
        }
        for entry in view.entries.iter_mut().filter(|e| matches!(e.text, EntryText::Data(_))) {
            entry.mark = mark;
        }
        let size = tokens(&to_pretty(&view));
        (size, view)
    }
}

fn collection_len(slot: &Slot) -> u16 {
    let Some(c) = &slot.collection else { return 0 };
    match &slot.kind {
        SlotKind::Help { cards } => c.limit.min(u16::try_from(cards.len()).unwrap_or(u16::MAX)),
        _ => c.limit,
    }
}

/// The root composed with each slot in the condition whose label is longest.
fn loud_labels_root(table: &Cockpit) -> View {
    let mut per_card = HashMap::new();
    for slot in table.slots.iter() {
        let Some(read) = slot.kind.source() else {
            continue;
        };
        let reading = match longest_condition(slot) {
            UNAVAILABLE => Err(ReadError("loud".into())),
            name => Ok(numbers_for(slot.facet, name)),
        };
        per_card.insert(read.card().to_owned(), reading);
    }
    let reader = MemoryReader { by_card: per_card, action: Reading::default(), version: u64::MAX };
    let snapshot = Snapshot::take(table, &reader);
    Composer::new(table, &reader, &snapshot)
        .level(Path::Root)
        .unwrap_or_else(|_| View::new(Path::Root, String::new(), String::new(), 0))
}

/// A label's length once its placeholders hold `u64::MAX`.
fn filled_len(text: &str, placeholders: usize) -> usize {
    let braces: usize = text.matches('{').count();
    text.chars().count() + placeholders.min(braces) * 20
}

fn longest_condition(slot: &Slot) -> &str {
    slot.labels
        .iter()
        .max_by_key(|l| {
            let placeholders = slot.facet.condition(&l.condition).map_or(0, |c| c.placeholders.len());
            filled_len(&l.text, placeholders)
        })
        .map_or(UNAVAILABLE, |l| &l.condition)
}

fn longest_label(slot: &Slot) -> String {
    let condition = longest_condition(slot).to_owned();
    match slot.facet.condition(&condition) {
        Some(c) => {
            let reading = numbers_for(slot.facet, c.name);
            let mut text = slot.label(&condition).unwrap_or_default().to_owned();
            for (name, value) in &reading.numbers {
                text = text.replace(&format!("{{{name}}}"), &value.to_string());
            }
            text
        }
        None => slot.label(&condition).unwrap_or(UNAVAILABLE).to_owned(),
    }
}

/// Numbers that put a facet in `condition`, each at `u64::MAX`.
fn numbers_for(facet: Facet, condition: &str) -> Reading {
    let placeholders = facet.condition(condition).map_or(&[][..], |c| c.placeholders);
    placeholders.iter().fold(Reading::default(), |r, p| r.with(p, u64::MAX))
}

fn longest_state_sig(table: &Cockpit, loud: &MemoryReader) -> String {
    let mut snapshot = Snapshot::take(table, loud);
    snapshot.store_version = u64::MAX;
    state_sig(table, &snapshot)
}

fn longest_note() -> String {
    let sig = "mc_00000000";
    let mut notes = vec![sig_moved_note(sig, sig), version_moved_note(u64::MAX, u64::MAX, None)];
    notes.extend(LEVEL_NOTES.iter().map(|n| version_moved_note(u64::MAX, u64::MAX, Some(n))));
    notes.into_iter().max_by_key(|n| n.chars().count()).unwrap_or_default()
}

/// The loudest state every read can return.
fn loud_reader(table: &Cockpit) -> MemoryReader {
    let mut reader = MemoryReader { version: u64::MAX, ..MemoryReader::default() };
    let max_limit = max_limit(table);
    for slot in table.slots.iter() {
        if let Some((card, reading)) = loud_reading(slot, max_limit) {
            reader.by_card.insert(card.to_owned(), Ok(reading));
        }
    }
    let line = Item::new([("x", "\"".repeat(cap::RESULT_LINE))]);
    reader.action = Reading::listing(vec![line; RESULT_LINES]);
    reader
}

/// The longest list any collection shows.
fn max_limit(table: &Cockpit) -> u16 {
    table.slots.iter().filter_map(|s| s.collection.as_ref()).map(|c| c.limit).max().unwrap_or(0)
}

/// The loudest reading of `slot`'s card, and the card: every number at its
/// largest, and `max_limit` items with every field at its cap (the headline
/// at the slot's item-view cap).
fn loud_reading(slot: &Slot, max_limit: u16) -> Option<(&str, Reading)> {
    let read = slot.kind.source()?;
    let mut reading = Facet::ALL
        .iter()
        .flat_map(|f| f.conditions())
        .flat_map(|c| c.placeholders)
        .fold(Reading::default(), |r, p| r.with(p, u64::MAX));
    if let Some(items) = slot.facet.items() {
        let text_cap = slot.collection.as_ref().map_or(0, |c| usize::from(c.text_cap));
        let width = |f: &crate::facets::Field| if f.name == items.headline { f.cap.max(text_cap) } else { f.cap };
        let item = Item::new(items.fields.iter().map(|f| (f.name, "\"".repeat(width(f)))));
        reading.items = vec![item; usize::from(max_limit)];
    }
    Some((read.card(), reading))
}
