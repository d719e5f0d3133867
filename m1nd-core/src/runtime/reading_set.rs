//! One consistent look at state: every slot's read, taken once per request.

use super::reader::{ReadError, Reader, Reading};
use crate::table::{Cockpit, SlotKind};

/// Every slot's reading (in slot order) and the store version.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub readings: Vec<Result<Reading, ReadError>>,
    pub store_version: u64,
}

impl Snapshot {
    /// Read every slot's source. A failed read is kept as an error so that
    /// slot alone degrades; a door with no source reads as empty.
    pub fn take(cockpit: &Cockpit, reader: &dyn Reader) -> Self {
        let store_version = reader.store_version();
        let readings = cockpit
            .slots
            .iter()
            .map(|slot| match &slot.kind {
                SlotKind::Help { cards } => Ok(Reading::default().with("cards", cards.len() as u64)),
                kind => match kind.source() {
                    Some(read) => reader.read(read, &[]),
                    None => Ok(Reading::default()),
                },
            })
            .collect();
        Self { readings, store_version }
    }
}
