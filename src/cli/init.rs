//! `m1nd init [--demo]`: create a store.

use clap::Args;
use m1nd::store::{Store, StoreError};

use super::{Failure, StoreArg, emit};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Seed a realistic sample state (missions waiting, blocks, memories, alerts, presences).
    #[arg(long)]
    demo: bool,
    #[command(flatten)]
    store: StoreArg,
}

pub fn run(args: InitArgs) -> Result<(), Failure> {
    match Store::init(&args.store.store, args.demo) {
        Ok(store) => {
            let kind = if args.demo { "demo" } else { "empty" };
            let mut text =
                format!("created {kind} store {} (store_version {})", store.path().display(), store.version());
            if args.demo {
                text.push_str(&format!("\nnext: m1nd cockpit --store {}", args.store.store.display()));
            }
            emit(&text)
        }
        Err(e @ StoreError::AlreadyExists { .. }) => Err(Failure::refused(e.to_string())),
        Err(e) => Err(Failure::usage(e.to_string())),
    }
}
