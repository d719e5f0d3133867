//! The two shapes every policy file is read into: a string and a table that
//! remember where they were written, so each law points at the line. Every
//! file's serde shapes (`raw.rs`, `raw_type.rs`, `effects/raw.rs`) build on
//! them, and nothing here knows any file.

use std::collections::BTreeMap;

use toml::Spanned;

/// A string with its place in the file.
pub type Text = Spanned<String>;

/// A table keyed by names with their places, each value with its own.
pub type Table<V> = BTreeMap<Text, Spanned<V>>;

/// Entries of a spanned table in the order they were written.
pub fn in_source_order<V>(table: &Table<V>) -> Vec<(&Text, &Spanned<V>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
}
