//! `m1nd init [--demo]`: create a store. The `next:` line it prints is
//! spelled the way this process was started (`m1nd::invocation`), so it works
//! under `cargo run` as well as installed.

use clap::Args;
use m1nd::invocation::{self, shell_word};
use m1nd::store::{Location, State, Store, StoreError};

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
    let at = args.store.location();
    if let Location::Dir(dir) = at {
        super::check_store_dir(dir)?;
    }
    let created = if args.demo {
        Store::demo_state().and_then(|state| Store::create_at(at, &state, args.max_bytes.max_bytes))
    } else {
        Store::create_at(at, &State::empty(), args.max_bytes.max_bytes)
    };
    let store = created.map_err(store_failure)?;
    let version = store.version().map_err(|e: StoreError| Failure::usage(e.to_string()))?;
    let kind = if args.demo { "demo" } else { "empty" };
    let mut text = format!("created {kind} store {} (store_version {version})", store.path().display());
    if args.demo {
        // A database's location is not repeated: it may hold a password.
        let next = match at {
            Location::Dir(dir) => format!("cockpit --store {}", shell_word(&dir.to_string_lossy())),
            Location::Postgres(_) => "cockpit --store \"$M1ND_STORE\" (the same location)".to_owned(),
        };
        text.push_str(&format!("\nnext: {}", invocation::m1nd(&next)));
    }
    emit(&text)
}
