//! One consistent look at state: every slot's counts, taken once per
//! request, and a slot's items, read the first time a level shows them.

use std::borrow::Cow;
use std::cell::OnceCell;

use super::reader::{ReadError, Reader, Reading};
use crate::facets::Condition;
use crate::table::{Cockpit, ReadVerb, SlotKind};

/// Every slot's counts (in slot order) and the store version.
#[derive(Clone, Debug)]
pub struct Snapshot<'r> {
    /// Each slot's numbers ([`Reader::count`]); items may be absent.
    pub readings: Vec<Result<Cow<'r, Reading>, ReadError>>,
    pub store_version: u64,
    /// Each slot's condition, chosen once; `None` where the read failed.
    pub conditions: Vec<Option<&'static Condition>>,
    /// Each slot's whole reading, items included, once a level needed it.
    listings: Vec<OnceCell<Result<Cow<'r, Reading>, ReadError>>>,
}

impl<'r> Snapshot<'r> {
    /// Read every slot's source. A failed read is kept as an error so that
    /// slot alone degrades; a door with no source reads as empty.
    pub fn take(cockpit: &Cockpit, reader: &'r dyn Reader) -> Self {
        let store_version = reader.store_version();
        let readings: Vec<_> = cockpit
            .slots
            .iter()
            .map(|slot| match &slot.kind {
                SlotKind::Help { cards } => Ok(Cow::Owned(Reading::default().with("cards", cards.len() as u64))),
                kind => match kind.source() {
                    Some(read) => checked(cockpit, read, &[]).and_then(|()| reader.count(read, &[])),
                    None => Ok(Cow::Owned(Reading::default())),
                },
            })
            .collect();
        let conditions = cockpit
            .slots
            .iter()
            .zip(&readings)
            .map(|(slot, reading)| reading.as_ref().ok().map(|r| slot.facet.condition_for(|p| r.number(p))))
            .collect();
        let listings = cockpit.slots.iter().map(|_| OnceCell::new()).collect();
        Self { readings, store_version, conditions, listings }
    }

    /// Slot `index`'s whole reading, its items included: read on first use,
    /// from the same reader (so the same state) as the counts.
    pub fn listing(
        &self,
        cockpit: &Cockpit,
        reader: &'r dyn Reader,
        index: usize,
    ) -> &Result<Cow<'r, Reading>, ReadError> {
        self.listings[index].get_or_init(|| match cockpit.slots.get(index).and_then(|s| s.kind.source()) {
            Some(read) => checked_read(cockpit, reader, read, &[]),
            None => Ok(Cow::Owned(Reading::default())),
        })
    }
}

/// Run a read only if the table's deny list permits it. Reads come from the
/// compiled table, so this never refuses one the laws passed; it makes a
/// forged or hand-built `ReadVerb` fail closed instead of reaching a write.
pub fn checked_read<'r>(
    cockpit: &Cockpit,
    reader: &'r dyn Reader,
    read: &ReadVerb,
    bound: &[(&str, &str)],
) -> Result<Cow<'r, Reading>, ReadError> {
    checked(cockpit, read, bound)?;
    reader.read(read, bound)
}

/// Whether the table permits `read` with `bound` (see [`checked_read`]).
fn checked(cockpit: &Cockpit, read: &ReadVerb, bound: &[(&str, &str)]) -> Result<(), ReadError> {
    let pinned_by_item =
        cockpit.deny.status_only(read.verb()).is_some_and(|r| bound.iter().any(|(a, _)| *a == r.argument));
    // A read's handle must name its own verb in this table, or it is not one of this table's reads.
    let own = cockpit.verb_at(read.verb_id()).is_some_and(|v| v.name == read.verb());
    if !own || !cockpit.deny.permits_fixed(read.verb(), read.arguments()) || pinned_by_item {
        return Err(ReadError(format!("`{}` is not a read this table permits", read.verb())));
    }
    Ok(())
}
