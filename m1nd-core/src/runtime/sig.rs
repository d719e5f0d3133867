//! menu_sig and state_sig.
//!
//! menu_sig is `mc_` plus 8 hex digits of blake3 over the policy digest, the
//! level, its numbering (what each number denotes), its texts, the state_sig
//! and the store_version. blake3 over explicit length-prefixed bytes is stable
//! across runs, platforms and Rust versions, unlike `DefaultHasher`.

use super::reading_set::Snapshot;
use super::view::View;
use crate::table::Cockpit;

/// A mechanical summary of state: each pinned facet's leading number (or its
/// condition when it has none, `?` when unavailable), then the store version.
/// The pinned trio is what a human decides from; every other slot's state
/// still reaches menu_sig through its label.
pub fn state_sig(cockpit: &Cockpit, snapshot: &Snapshot) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(4);
    for (slot, reading) in cockpit.slots.iter().zip(&snapshot.readings) {
        if !slot.pinned || slot.facet.derived() {
            continue;
        }
        let value = match reading {
            Err(_) => "?".to_owned(),
            Ok(r) => {
                let condition = slot.facet.condition_for(|p| r.number(p));
                match condition.placeholders.first() {
                    Some(p) => r.number(p).to_string(),
                    None => condition.name.to_owned(),
                }
            }
        };
        parts.push(format!("{}:{value}", slot.facet.key()));
    }
    parts.push(format!("sv:{}", snapshot.store_version));
    parts.join("|")
}

/// The sig of a composed view (its `menu_sig` field is ignored).
pub fn menu_sig(cockpit: &Cockpit, view: &View) -> String {
    let mut h = blake3::Hasher::new();
    let mut put = |s: &str| {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    put("m1nd-menu-sig-v1");
    put(&cockpit.digest);
    put(&view.level.to_string());
    put(&view.title);
    put(view.subject.as_deref().unwrap_or(""));
    put(&view.state_sig);
    put(&view.store_version.to_string());
    for entry in &view.entries {
        put(number_of(&entry.select));
        put(&entry.identity);
        put(entry.text.as_str());
    }
    let hex = h.finalize().to_hex();
    format!("mc_{}", &hex[..8])
}

fn number_of(select: &str) -> &str {
    select.split('@').next().unwrap_or(select)
}
