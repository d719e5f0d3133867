//! m1nd: the cockpit server, built on a policy checked at compile time.
//!
//! [`COCKPIT`] is the one table every surface uses: the `cockpit` verb, the
//! read-only guard on `tools/call`, and the annotations on `tools/list`.
//! It is produced by `cockpit!` from `policy/`; a policy that breaks a law
//! does not compile.
//!
//! # Floors
//!
//! Each module imports only from its own floor or the floors below it;
//! `docs/architecture.md` lists them (`tests/floors.rs` holds the code to
//! that list) and follows one call through them.
//!
//! # Features
//!
//! `store` (on by default) is m1nd's own server: the store, the service, the
//! cockpit, the tray and the widget, with SQLite and PostgreSQL. Without it
//! the crate is the gateway alone (`gateway`, the transports' generic parts,
//! `audit`, the attestation), and builds neither database.

pub mod audit;
pub mod clock;
pub mod error_kind;
#[cfg(feature = "expand")]
pub mod expand;
#[cfg(feature = "store")]
#[doc(hidden)]
pub mod fuzzing;
pub mod gateway;
pub mod invocation;
pub mod lane;
pub mod log;
pub mod mcp;
#[cfg(feature = "store")]
pub mod service;
#[cfg(feature = "store")]
pub mod store;
pub mod transport;
#[cfg(feature = "store")]
pub mod widget;

pub use m1nd_policy::Cockpit;

/// The compiled policy.
#[cfg(feature = "store")]
pub static COCKPIT: Cockpit = m1nd_macros::cockpit!("policy");

/// Each verb's arguments as Rust types, generated from the same policy by
/// `calls!`: a call is checked against the table's types (with messages that
/// name the argument), then read once into its [`calls::Call`], which is
/// what the handlers take.
#[cfg(feature = "store")]
pub mod calls {
    m1nd_macros::calls!("policy");
}
