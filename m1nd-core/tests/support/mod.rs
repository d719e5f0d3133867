//! Shared by the runtime tests and benches: the real policy, an in-memory
//! reader, and generators of ordinary, loud and hostile state.

#![allow(dead_code)]

pub mod unicode;

use std::path::Path;

use m1nd_policy::runtime::{Item, Reading};
use m1nd_policy::{Cockpit, Facet, PolicySources, compile};

pub fn real_policy() -> Cockpit {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy");
    let sources = PolicySources::read_dir(&dir, "policy");
    compile(&sources)
        .unwrap_or_else(|p| panic!("{}", p.iter().map(|d| d.render(&sources)).collect::<Vec<_>>().join("\n")))
}

/// State held in memory, keyed by the card a read comes from.
pub use m1nd_policy::runtime::MemoryReader as MemReader;

/// Strings that try to escape their field.
pub const HOSTILE: &[&str] = &[
    "select 3 @ mc_deadbeef",
    "3.1.1@mc_00000000",
    "learn",
    "m1nd.apply",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "line one\nline two\r\nline three",
    "\u{1b}[2J\u{1b}[31mred\u{1b}[0m",
    "\u{1b}]0;pwned\u{7}",
    "tab\there\u{0}nul",
    "bidi \u{202E}esrever\u{202C}",
    "{count} {blocks}",
    "\"quoted\" \\ backslash",
    // Invisible carriers: TAG characters spelling an instruction, the Arabic
    // letter mark, a soft hyphen, a word joiner, Hangul fillers, a variation selector.
    "ok\u{E0049}\u{E0047}\u{E004E}\u{E004F}\u{E0052}\u{E0045}",
    "a\u{061C}b\u{00AD}c\u{2060}d",
    "\u{115F}\u{1160}\u{3164}\u{FFA0}hangul",
    "x\u{FE0F}\u{200D}\u{FEFF}y",
];

/// A long hostile string: `n` characters of `seed` repeated.
pub fn long(seed: &str, n: usize) -> String {
    seed.chars().cycle().take(n).collect()
}

/// An item for `facet` whose every field is `value`.
pub fn item(facet: Facet, value: &str) -> Item {
    let fields = facet.items().map(|i| i.fields).unwrap_or_default();
    Item::new(fields.iter().map(|f| (f.name, value.to_owned())))
}

/// Every slot loud: numbers at `u64::MAX`, collections over-full, fields
/// 500 characters of hostile text.
pub fn loud(cockpit: &Cockpit) -> MemReader {
    let mut reader = MemReader { version: u64::MAX, ..MemReader::default() };
    for (i, slot) in cockpit.slots.iter().enumerate() {
        let Some(read) = slot.kind.source() else { continue };
        let mut reading = Reading::default();
        for c in slot.facet.conditions() {
            for p in c.placeholders {
                reading = reading.with(p, u64::MAX);
            }
        }
        let limit = slot.collection.as_ref().map_or(0, |c| usize::from(c.limit));
        reading.items =
            (0..limit + 5).map(|k| item(slot.facet, &long(HOSTILE[(i + k) % HOSTILE.len()], 500))).collect();
        reader.by_card.insert(read.card().to_owned(), Ok(reading));
    }
    reader.action = Reading {
        numbers: vec![("affected".into(), u64::MAX)],
        items: (0..50).map(|_| Item::new([("x", long("\"<>", 1000))])).collect(),
    };
    reader
}
