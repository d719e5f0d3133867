//! `m1nd init [--demo]`: create a store.

use clap::Args;
use m1nd::store::{State, Store, StoreError};

use super::{Failure, MaxBytesArg, StoreArg, emit, store_failure};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Seed a realistic sample state (missions waiting, blocks, memories, alerts, presences).
    #[arg(long)]
    demo: bool,
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    max_bytes: MaxBytesArg,
}

pub fn run(args: InitArgs) -> Result<(), Failure> {
    let created = if args.demo {
        Store::demo_state().and_then(|state| Store::create(&args.store.store, &state, args.max_bytes.max_bytes))
    } else {
        Store::create(&args.store.store, &State::empty(), args.max_bytes.max_bytes)
    };
    let store = created.map_err(store_failure)?;
    let version = store.version().map_err(|e: StoreError| Failure::usage(e.to_string()))?;
    let kind = if args.demo { "demo" } else { "empty" };
    let mut text = format!("created {kind} store {} (store_version {version})", store.path().display());
    if args.demo {
        text.push_str(&format!("\nnext: m1nd cockpit --store {}", args.store.store.display()));
    }
    emit(&text)
}
