//! The `store` target's walk on the real read path: a `state.json` from a
//! hostile writer is imported into a SQLite store as `m1nd store import`
//! does (`m1nd::fuzzing::store_from_json`: decoded, validated, written to a
//! file), and the cockpit is composed over that store's snapshot, the reader
//! `m1nd serve` composes over, with the shipped policy.
//!
//! The input is the file's bytes. For every input:
//! 1. a refused file is refused with display-safe words (the import's error
//!    is printed to a terminal);
//! 2. an accepted one is walked as [`crate::store`] walks (the root, every
//!    slot, the first and last item of each, every action of those), and
//!    every level is judged by [`crate::view::judge`]: hostile state never
//!    reaches a label or a payload, state text is sanitised and capped, and
//!    every level fits the worst case M011 proved for the policy.
//!
//! Each input gets a fresh directory under the system's temporary
//! directory, removed after it, so one input costs one small file.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::tables::cockpits;

/// This process's scratch directory; each input's store is made in it.
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| std::env::temp_dir().join(format!("m1nd-fuzz-store-sqlite-{}", std::process::id())))
}

pub fn check(data: &[u8]) {
    let dir = scratch();
    let _ = std::fs::remove_dir_all(dir);
    match m1nd::fuzzing::store_from_json(dir, data) {
        Err(refused) => {
            let said = refused.to_string();
            assert!(crate::is_display_safe(&said.replace('\n', " ")), "the import's refusal {said:?}");
        }
        Ok(store) => {
            let snapshot = store.snapshot().expect("a store just made can be read");
            let shipped = &cockpits()[0];
            crate::store::walk(&shipped.table, &shipped.worst, &snapshot, &[], None);
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}
