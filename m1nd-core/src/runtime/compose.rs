//! The pure composer: a table, a reader and a request in; a view out.
//!
//! It reads through [`Reader`] only, writes nothing, and fails alone: a read
//! that fails degrades its own slot to the `unavailable` label.

use std::borrow::Cow;

use super::digits::push_u64;
use super::reader::{Item, Reader, Reading};
use super::reading_set::{Snapshot, checked_read};
use super::reference::{self, Path, Reference};
use super::sig::{menu_sig, state_sig};
use super::view::{Entry, EntryText, Listing, View};
use crate::facets::{Facet, UNAVAILABLE};
use crate::sanitize::{cap, display, words};
use crate::table::{Cockpit, Slot, SlotKind};

/// What the `cockpit` verb was asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// A reference as typed (`3.2@mc_…`); `None` is the root.
    pub select: Option<String>,
    /// The store_version the caller last saw.
    pub seen_store_version: Option<u64>,
}

/// Why a request could not be answered.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CockpitError {
    Reference(reference::ReferenceError),
    /// The reference parsed, but names nothing on this menu.
    NoSuch(String),
}

impl std::fmt::Display for CockpitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CockpitError::Reference(e) => e.fmt(f),
            CockpitError::NoSuch(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for CockpitError {}

/// Most lines an action result shows; their width is [`cap::RESULT_LINE`].
/// An item's headline is at most [`cap::HEADLINE`] in a listing and in an
/// action's view, and up to its collection's `text_cap` as the subject of its
/// own view; its facts carry every other field up to its own cap. Every cut
/// falls at a word boundary and ends with `…` ([`words`]).
pub const RESULT_LINES: usize = 8;

const NOTE_UNAVAILABLE: &str = "this fact cannot be read right now; the rest of the menu is unaffected";
const NOTE_READ_FAILED: &str = "this read failed; nothing was changed";

/// Serve one cockpit request.
///
/// The composer reads state only through `reader`; here a [`MemoryReader`]
/// holds it, keyed by the card each read comes from.
///
/// ```
/// use std::path::Path;
/// use m1nd_policy::runtime::{Charset, MemoryReader, Reading, Request, cockpit, text};
/// use m1nd_policy::{PolicySources, compile};
///
/// let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy");
/// let table = compile(&PolicySources::read_dir(&dir, "policy")).expect("the policy keeps every law");
///
/// let mut reader = MemoryReader { version: 7, ..MemoryReader::default() };
/// reader.by_card.insert("tray_bell".into(), Ok(Reading::default().with("count", 2)));
///
/// let root = cockpit(&table, &reader, &Request::default()).expect("the root always answers");
/// assert_eq!(root.store_version, 7);
/// assert!(root.menu_sig.starts_with("mc_"));
/// let tray = &root.entries[0];
/// assert_eq!(tray.text.as_str(), "tray: 2 waiting for your stamp");
/// assert!(tray.select.starts_with("1@mc_"), "an entry sends back only the reference to type");
/// assert!(text::render(&root, Charset::Unicode).contains("tray: 2 waiting for your stamp"));
///
/// // A reference that does not parse is refused, with the forms that do.
/// let wrong = Request { select: Some("1.2.3.4".into()), ..Request::default() };
/// assert!(cockpit(&table, &reader, &wrong).unwrap_err().to_string().contains("valid forms"));
/// ```
///
/// [`MemoryReader`]: super::MemoryReader
pub fn cockpit(table: &Cockpit, reader: &dyn Reader, request: &Request) -> Result<View, CockpitError> {
    let reference = reference::parse(request.select.as_deref().unwrap_or("")).map_err(CockpitError::Reference)?;
    let snapshot = Snapshot::take(table, reader);
    Composer::new(table, reader, &snapshot).answer(&reference, request.seen_store_version)
}

/// The note when the menu a number was read from has changed.
pub(crate) fn sig_moved_note(seen: &str, now: &str) -> String {
    format!("state moved: the menu you chose from ({seen}) is now {now}; nothing was selected, here it is again")
}

/// The note when only the store version moved; any other note follows it.
pub(crate) fn version_moved_note(now: u64, seen: u64, other: Option<&str>) -> String {
    let moved = format!("state moved: store_version is {now} (you saw {seen})");
    match other {
        Some(note) => format!("{moved}; {note}"),
        None => moved,
    }
}

/// Every static note a level may carry besides the moved-state prefix.
pub(crate) const LEVEL_NOTES: [&str; 2] = [NOTE_UNAVAILABLE, NOTE_READ_FAILED];

pub(crate) struct Composer<'a> {
    table: &'a Cockpit,
    reader: &'a dyn Reader,
    snapshot: &'a Snapshot<'a>,
    state_sig: String,
}

impl<'a> Composer<'a> {
    pub(crate) fn new(table: &'a Cockpit, reader: &'a dyn Reader, snapshot: &'a Snapshot<'a>) -> Self {
        Self { table, reader, snapshot, state_sig: state_sig(table, snapshot) }
    }

    fn answer(&self, reference: &Reference, seen_version: Option<u64>) -> Result<View, CockpitError> {
        let path = reference.path;
        if let (Some(seen), true) = (&reference.seen_sig, path != Path::Root) {
            let parent = self.nearest_level(path.parent());
            if &parent.menu_sig != seen {
                let mut view = parent;
                view.state_moved = true;
                view.note = Some(sig_moved_note(seen, &view.menu_sig));
                return Ok(view);
            }
        }
        let mut view = self.level(path)?;
        if let Some(seen) = seen_version.filter(|v| *v != self.snapshot.store_version) {
            view.state_moved = true;
            view.note = Some(version_moved_note(self.snapshot.store_version, seen, view.note.as_deref()));
        }
        Ok(view)
    }

    /// `path`'s level, or, when state moved so far that it no longer exists
    /// (the item was removed), the nearest level above it that does.
    fn nearest_level(&self, mut path: Path) -> View {
        loop {
            match self.level(path) {
                Ok(view) => return view,
                Err(_) if path != Path::Root => path = path.parent(),
                // The root cannot fail to compose; this arm only ends the loop.
                Err(_) => return self.signed(Path::Root, self.root()),
            }
        }
    }

    pub(crate) fn level(&self, path: Path) -> Result<View, CockpitError> {
        let view = match path {
            Path::Root => self.root(),
            Path::Collection { slot } => self.collection(slot)?,
            Path::Item { slot, item } => self.item(slot, item)?,
            Path::Action { slot, item, action } => self.action(slot, item, action)?,
        };
        Ok(self.signed(path, view))
    }

    /// Sign a composed level and give its entries their full references.
    fn signed(&self, path: Path, mut view: View) -> View {
        view.menu_sig = menu_sig(self.table, &view);
        let sig = view.menu_sig.clone();
        for entry in &mut view.entries {
            entry.select.push('@');
            entry.select.push_str(&sig);
        }
        view.back = match path {
            Path::Root => None,
            other => Some(match other.parent() {
                Path::Root => "0".to_owned(),
                parent => parent.to_string(),
            }),
        };
        view
    }

    fn base(&self, level: Path, title: String) -> View {
        View::new(level, title, self.state_sig.clone(), self.snapshot.store_version)
    }

    fn root(&self) -> View {
        let mut view = self.base(Path::Root, self.table.title.to_string());
        view.entries.reserve_exact(self.table.slots.len());
        for (i, slot) in self.table.slots.iter().enumerate() {
            view.entries.push(Entry {
                select: reference_text(&[u64::from(slot.n)]),
                text: EntryText::Label(self.label(i)),
                mark: None,
                identity: Cow::Borrowed(slot.facet.key()),
            });
        }
        view
    }

    /// The slot's label for its current condition, numbers filled in.
    fn label(&self, index: usize) -> String {
        let slot = &self.table.slots[index];
        match (&self.snapshot.readings[index], self.snapshot.conditions[index]) {
            (Ok(reading), Some(condition)) => fill(slot.label(condition.name).unwrap_or(condition.name), reading),
            _ => slot.label(UNAVAILABLE).unwrap_or(UNAVAILABLE).to_owned(),
        }
    }

    fn slot(&self, n: u8) -> Result<(usize, &Slot), CockpitError> {
        self.table.slots.iter().enumerate().find(|(_, s)| s.n == n).ok_or_else(|| {
            let numbers: Vec<String> = self.table.slots.iter().map(|s| s.n.to_string()).collect();
            CockpitError::NoSuch(format!("there is no slot {n}; the slots are {}", numbers.join(", ")))
        })
    }

    /// The items a slot lists: its collection's fixed-N projection.
    fn items(&self, index: usize) -> Result<Vec<Item>, CockpitError> {
        let slot = &self.table.slots[index];
        let Some(collection) = &slot.collection else {
            return Ok(Vec::new());
        };
        let limit = usize::from(collection.limit);
        Ok(match &slot.kind {
            SlotKind::Help { cards } => cards
                .iter()
                .take(limit)
                .map(|c| Item::new([("id", &*c.card), ("title", &*c.title), ("why", &*c.why), ("tool", &*c.tool)]))
                .collect(),
            _ => match self.snapshot.listing(self.table, self.reader, index) {
                Ok(reading) => reading.items.iter().take(limit).cloned().collect(),
                Err(_) => Vec::new(),
            },
        })
    }

    fn collection(&self, n: u8) -> Result<View, CockpitError> {
        let (index, slot) = self.slot(n)?;
        let mut view = self.base(Path::Collection { slot: n }, self.label(index));
        if let SlotKind::Door { text, .. } = &slot.kind {
            view.door = Some(text.to_string());
            view.door_link = slot.link.as_ref().map(|l| l.to_string());
        }
        let counts = self.snapshot.readings[index].as_ref().ok();
        let listed = self.snapshot.listing(self.table, self.reader, index).is_ok();
        if counts.is_none() || !listed {
            view.note = Some(NOTE_UNAVAILABLE.to_owned());
        }
        let items = self.items(index)?;
        let kinds = slot.facet.items();
        if let (Some(counts), Some(kinds), Some(_), true) = (counts, kinds, &slot.collection, listed) {
            let shown = items.len() as u64;
            // The label's own numbers: the list counts what its label counts (M015).
            let total = kinds.total(|p| counts.number(p)).max(shown);
            view.listing = Some(Listing { shown, total, order: kinds.order });
        }
        let headline = kinds.map_or("id", |i| i.headline);
        for (m, item) in items.iter().enumerate() {
            let id = item.field("id").unwrap_or_default();
            let kind = kinds.and_then(|k| k.kind_of(|f| item.field(f)));
            view.entries.push(Entry {
                select: reference_text(&[u64::from(n), m as u64 + 1]),
                text: EntryText::Data(headline_of(slot.facet, item, headline)),
                mark: kind.and_then(|k| k.mark),
                identity: Cow::Owned(id.to_owned()),
            });
        }
        Ok(view)
    }

    fn selected(&self, n: u8, m: u16) -> Result<(usize, &Slot, Item), CockpitError> {
        let (index, slot) = self.slot(n)?;
        let items = self.items(index)?;
        let count = items.len();
        let item = items.into_iter().nth(usize::from(m) - 1).ok_or_else(|| {
            CockpitError::NoSuch(match count {
                0 => format!("slot {n} lists no items right now"),
                1 => format!("slot {n} has no item {m}; it lists one, {n}.1"),
                _ => format!("slot {n} has no item {m}; it lists {n}.1 to {n}.{count}"),
            })
        })?;
        Ok((index, slot, item))
    }

    fn item(&self, n: u8, m: u16) -> Result<View, CockpitError> {
        let (index, slot, item) = self.selected(n, m)?;
        let mut view = self.base(Path::Item { slot: n, item: m }, self.label(index));
        let items = slot.facet.items();
        let headline = items.map_or("id", |i| i.headline);
        // The item's own view: its headline at length, as the budget allows.
        let text_cap = slot.collection.as_ref().map_or(cap::HEADLINE, |c| usize::from(c.text_cap));
        view.subject = Some(words(item.field(headline).unwrap_or_default(), text_cap));
        if let Some(items) = items {
            for field in items.fields.iter().filter(|f| f.name != headline) {
                if let Some(value) = item.field(field.name) {
                    view.facts.push((field.name.to_owned(), words(value, field.cap)));
                }
            }
        }
        if let Some(collection) = &slot.collection {
            for (k, action) in collection.actions.iter().enumerate() {
                let title = self
                    .table
                    .cards
                    .iter()
                    .find(|c| c.id == action.read.card())
                    .map_or(action.read.card(), |c| &*c.title);
                view.entries.push(Entry {
                    select: reference_text(&[u64::from(n), u64::from(m), k as u64 + 1]),
                    text: EntryText::Label(title.to_owned()),
                    mark: None,
                    identity: Cow::Owned(action.read.card().to_owned()),
                });
            }
        }
        Ok(view)
    }

    fn action(&self, n: u8, m: u16, k: u16) -> Result<View, CockpitError> {
        let (_, slot, item) = self.selected(n, m)?;
        let actions = slot.collection.as_ref().map_or(&[][..], |c| &c.actions[..]);
        let action = actions.get(usize::from(k) - 1).ok_or_else(|| {
            CockpitError::NoSuch(match actions.len() {
                0 => format!("item {n}.{m} has no actions"),
                1 => format!("item {n}.{m} has no action {k}; it has one, {n}.{m}.1"),
                count => format!("item {n}.{m} has no action {k}; it has {n}.{m}.1 to {n}.{m}.{count}"),
            })
        })?;
        let card = self.table.cards.iter().find(|c| c.id == action.read.card());
        let mut view = self.base(
            Path::Action { slot: n, item: m, action: k },
            card.map_or(action.read.card(), |c| &*c.title).to_owned(),
        );
        let headline = slot.facet.items().map_or("id", |i| i.headline);
        view.subject = Some(headline_of(slot.facet, &item, headline));
        let bound: Vec<(&str, &str)> =
            action.bind.iter().map(|b| (&*b.argument, item.field(&b.field).unwrap_or_default())).collect();
        match checked_read(self.table, self.reader, &action.read, &bound) {
            Ok(result) => view.facts = result_facts(&result),
            Err(_) => view.note = Some(NOTE_READ_FAILED.to_owned()),
        }
        Ok(view)
    }
}

/// A reference with room for the `@mc_xxxxxxxx` the level appends once its sig is known.
fn reference_text(numbers: &[u64]) -> String {
    let mut s = String::with_capacity(24);
    for (i, n) in numbers.iter().enumerate() {
        if i > 0 {
            s.push('.');
        }
        push_u64(&mut s, *n);
    }
    s
}

/// Fill `{name}` placeholders with the reading's numbers. The laws guarantee
/// a label has no other braces.
fn fill(label: &str, reading: &Reading) -> String {
    let mut out = String::with_capacity(label.len() + 24);
    let bytes = label.as_bytes();
    let (mut start, mut i) = (0, 0);
    // Braces are ASCII, so byte positions found here are char boundaries.
    while i < bytes.len() {
        if bytes[i] == b'{'
            && let Some(len) = bytes[i..].iter().position(|b| *b == b'}')
        {
            out.push_str(&label[start..i]);
            push_u64(&mut out, reading.number(&label[i + 1..i + len]));
            i += len + 1;
            start = i;
            continue;
        }
        i += 1;
    }
    out.push_str(&label[start..]);
    out
}

/// The item's headline field, sanitised, at most [`cap::HEADLINE`], cut at a word.
fn headline_of(facet: Facet, item: &Item, headline: &str) -> String {
    let field_cap = facet.items().and_then(|i| i.field(headline)).map_or(cap::HEADLINE, |f| f.cap);
    words(item.field(headline).unwrap_or_default(), field_cap.min(cap::HEADLINE))
}

/// An action result as facts: numbers first, then one line per item.
fn result_facts(result: &Reading) -> Vec<(String, String)> {
    let numbers = result.numbers.iter().map(|(k, v)| (display(k, cap::KEY), v.to_string()));
    let lines = result.items.iter().enumerate().map(|(i, item)| {
        let line: Vec<String> = item.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
        (format!("{}", i + 1), words(&line.join(" "), cap::RESULT_LINE))
    });
    numbers.chain(lines).take(RESULT_LINES).collect()
}
