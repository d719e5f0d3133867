//! `m1nd init [--demo]`: create a store. The `next:` line it prints is
//! spelled the way this process was started (`m1nd::invocation`), so it works
//! under `cargo run` as well as installed.

use clap::Args;
use m1nd::invocation::{self, shell_word};
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
    let dir = args.store.dir()?;
    let created = if args.demo {
        Store::demo_state().and_then(|state| Store::create(dir, &state, args.max_bytes.max_bytes))
    } else {
        Store::create(dir, &State::empty(), args.max_bytes.max_bytes)
    };
    let store = created.map_err(store_failure)?;
    let version = store.version().map_err(|e: StoreError| Failure::usage(e.to_string()))?;
    let kind = if args.demo { "demo" } else { "empty" };
    let mut text = format!("created {kind} store {} (store_version {version})", store.path().display());
    if args.demo {
        let store = shell_word(&dir.to_string_lossy());
        text.push_str(&format!("\nnext: {}", invocation::m1nd(&format!("cockpit --store {store}"))));
    }
    emit(&text)
}
