//! The public API of the published libraries (m1nd-policy, m1nd-macros,
//! m1nd-guard) matches the snapshots in `tests/public_api/`, so an API change
//! is a reviewed diff, never an accident. Bless a reviewed change with
//! `M1ND_BLESS=1 cargo test --test public_api`; docs/semver.md says what
//! counts as breaking.
//!
//! rustdoc's JSON (and `cargo public-api`, built on it) needs a nightly
//! compiler, so the listing is made from the source with syn: the module tree
//! from each `src/lib.rs`, what other crates can reach by `pub mod` and
//! `pub use`, each item printed by prettyplease on one line.
//!
//! prettyplease is the root package's optional dependency behind the default
//! `expand` feature; without that feature this test compiles to nothing.
#![cfg(feature = "expand")]

mod public_api {
    mod attrs;
    mod crate_tree;
    mod listing;
    mod render;
    mod resolve;
    mod self_test;
    mod snapshots;
}
