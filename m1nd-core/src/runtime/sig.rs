//! menu_sig and state_sig.
//!
//! menu_sig is `mc_` plus 8 hex digits of blake3 over the policy digest, the
//! level, its numbering (what each number denotes), its texts, the state_sig
//! and the store_version. blake3 over explicit length-prefixed bytes is stable
//! across runs, platforms and Rust versions, unlike `DefaultHasher`.

use super::digits::{push_u64, u64_text};
use super::reading_set::Snapshot;
use super::view::View;
use crate::table::Cockpit;

/// A mechanical summary of state: each pinned facet's leading number (or its
/// condition when it has none, `?` when unavailable), then the store version.
/// The pinned trio is what a human decides from; every other slot's state
/// still reaches menu_sig through its label.
pub fn state_sig(cockpit: &Cockpit, snapshot: &Snapshot<'_>) -> String {
    let mut out = String::with_capacity(96);
    for ((slot, reading), condition) in cockpit.slots.iter().zip(&snapshot.readings).zip(&snapshot.conditions) {
        if !slot.pinned || slot.facet.derived() {
            continue;
        }
        out.push_str(slot.facet.key());
        out.push(':');
        match (reading, condition) {
            (Ok(r), Some(c)) => match c.placeholders.first() {
                Some(p) => push_u64(&mut out, r.number(p)),
                None => out.push_str(c.name),
            },
            _ => out.push('?'),
        };
        out.push('|');
    }
    out.push_str("sv:");
    push_u64(&mut out, snapshot.store_version);
    out
}

/// The sig of a composed view (its `menu_sig` field is ignored): everything
/// the human could have read on it, and everything a number on it denotes.
pub fn menu_sig(cockpit: &Cockpit, view: &View) -> String {
    // One buffer, one hash: cheaper than many small `update` calls.
    let texts: usize =
        view.entries.iter().map(|e| e.select.len() + e.identity.len() + e.text.as_str().len() + 24).sum();
    let mut buf: Vec<u8> = Vec::with_capacity(texts + view.title.len() + view.state_sig.len() + 256);
    let mut put = |s: &str| {
        buf.extend_from_slice(&(s.len() as u64).to_le_bytes());
        buf.extend_from_slice(s.as_bytes());
    };
    put("m1nd-menu-sig-v1");
    put(&cockpit.digest);
    put(&view.level.to_string());
    put(&view.title);
    put(view.subject.as_deref().unwrap_or(""));
    put(&view.state_sig);
    put(&u64_text(view.store_version));
    put(view.door.as_deref().unwrap_or(""));
    // What the list says it is: the human reads "showing 8 of 12" too.
    put(&view.listing.map(|l| l.sentence()).unwrap_or_default());
    // An item's facts are what its actions bind their arguments from: a
    // changed field must make a number read from this view stale.
    for (field, value) in &view.facts {
        put(field);
        put(value);
    }
    for entry in &view.entries {
        put(number_of(&entry.select));
        put(&entry.identity);
        put(entry.text.as_str());
        put(entry.mark.unwrap_or(""));
    }
    let hex = blake3::hash(&buf).to_hex();
    format!("mc_{}", &hex[..8])
}

fn number_of(select: &str) -> &str {
    select.split('@').next().unwrap_or(select)
}
