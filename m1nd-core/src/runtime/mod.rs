//! The cockpit runtime: references, the pure composer, sigs and the two skins.

pub mod budget;
mod compose;
mod digits;
pub mod json;
pub mod json_schema;
pub mod reader;
mod reading_set;
pub mod reference;
mod sig;
pub mod text;
pub mod view;

pub use crate::arguments::SEND_AS_TYPED;
pub use budget::{WorstCase, worst_case};
pub use compose::{CockpitError, RESULT_LINES, Request, cockpit};
pub use reader::{Item, MemoryReader, ReadError, Reader, Reading};
pub use reference::{Path, Reference, ReferenceError, parse as parse_reference};
pub use text::Charset;
pub use view::{Entry, EntryText, Listing, View};
