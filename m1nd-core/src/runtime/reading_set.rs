//! One consistent look at state: every slot's read, taken once per request.

use std::borrow::Cow;

use super::reader::{ReadError, Reader, Reading};
use crate::facets::Condition;
use crate::table::{Cockpit, ReadVerb, SlotKind};

/// Every slot's reading (in slot order) and the store version.
#[derive(Clone, Debug)]
pub struct Snapshot<'r> {
    pub readings: Vec<Result<Cow<'r, Reading>, ReadError>>,
    pub store_version: u64,
    /// Each slot's condition, chosen once; `None` where the read failed.
    pub conditions: Vec<Option<&'static Condition>>,
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
                    Some(read) => checked_read(cockpit, reader, read, &[]),
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
        Self { readings, store_version, conditions }
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
    let pinned_by_item =
        cockpit.deny.status_only(read.verb()).is_some_and(|r| bound.iter().any(|(a, _)| *a == r.argument));
    if !cockpit.deny.permits_fixed(read.verb(), read.arguments()) || pinned_by_item {
        return Err(ReadError(format!("`{}` is not a read this table permits", read.verb())));
    }
    reader.read(read, bound)
}
