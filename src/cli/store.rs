//! `m1nd store import FILE`: move a JSON store into a new SQLite store.

use std::path::PathBuf;

use clap::Args;
use m1nd::store::Store;

use super::{Failure, MaxBytesArg, StoreArg, emit, store_failure};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The JSON store's file (`.m1nd/state.json` before this version).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    max_bytes: MaxBytesArg,
}

pub fn import(args: ImportArgs) -> Result<(), Failure> {
    let store = Store::import(&args.store.store, &args.file, args.max_bytes.max_bytes).map_err(store_failure)?;
    let snapshot = store.snapshot().map_err(|e| Failure::usage(e.to_string()))?;
    let counts = snapshot.counts().map_err(|e| Failure::usage(e.to_string()))?;
    emit(&format!(
        "imported {} into {} (store_version {}): {} missions, {} blocks, {} memories, {} alerts, {} modules, \
         {} drifted nodes, {} presences; {} was only read",
        args.file.display(),
        store.path().display(),
        snapshot.version(),
        counts.missions,
        counts.blocks,
        counts.memories,
        counts.alerts,
        counts.modules,
        counts.drift,
        counts.presences,
        args.file.display(),
    ))
}
