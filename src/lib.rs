//! m1nd: the cockpit server, built on a policy checked at compile time.
//!
//! [`COCKPIT`] is the one table every surface uses: the `cockpit` verb, the
//! read-only guard on `tools/call`, and the annotations on `tools/list`.
//! It is produced by `cockpit!` from `policy/`; a policy that breaks a law
//! does not compile.

pub mod expand;

pub mod store;

pub mod widget;

pub use m1nd_core::Cockpit;

/// The compiled policy.
pub static COCKPIT: Cockpit = m1nd_macros::cockpit!("policy");
