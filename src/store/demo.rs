//! The `m1nd init --demo` seed: a small, busy project so every cockpit slot
//! has something to show on first run. It is a `state.json` (`demo.json`,
//! beside this file) read by the importer's own reader and loaded by the
//! importer's own loader, so the demo cannot drift from what import accepts.
//!
//! Counts are pinned by tests: 6 missions (2 waiting, 3 in flight, 1 landed),
//! 12 blocks (9 fresh, 2 stale, 1 candidate), 7 memories, 3 alerts, 6 modules
//! (2 low), 4 drifted nodes, 3 agents present.

use std::path::Path;

use super::error::StoreError;
use super::json;
use super::state::State;

const SEED: &str = include_str!("demo.json");

pub fn state() -> Result<State, StoreError> {
    json::decode(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/store/demo.json")), SEED.as_bytes())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_seed_is_a_valid_store_document() {
        let state = super::state().expect("demo.json");
        assert_eq!(state.store_version, 1);
        assert_eq!(state.counts().memories, 7);
    }
}
