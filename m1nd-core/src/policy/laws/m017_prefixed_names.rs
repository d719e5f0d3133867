//! M017: no two upstreams behind one gateway expose names that collide
//! after prefixing.
//!
//! This law governs a fleet (`fleet.toml`: several upstreams, each with its
//! own gateway policy and a name prefix), never one policy on its own, so its
//! entry in the registry checks nothing here: a fleet's compiler runs it over
//! every member at once (`crate::gateway::fleet`, whose `m017.rs` says what
//! it protects).

use super::super::context::Context;
use super::super::diagnostic::Diagnostic;

/// One policy alone cannot break M017: see the module's documentation.
pub fn check(_: &Context<'_>, _: &mut Vec<Diagnostic>) {}
