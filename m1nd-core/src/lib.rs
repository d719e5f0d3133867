//! m1nd-policy: the cockpit policy model, its laws, and the cockpit runtime.
//!
//! This crate is a plain library on purpose: the `cockpit!` proc-macro, the
//! `m1nd policy check` CLI and the runtime re-check in tests all call the same
//! [`policy::compile`], so a law is written once and enforced everywhere.

pub mod arguments;
#[cfg(feature = "codegen")]
pub mod calls_codegen;
pub mod client_capability;
#[cfg(feature = "codegen")]
pub mod codegen;
pub mod deny;
pub mod effects;
pub mod facets;
pub mod gateway;
#[cfg(feature = "codegen")]
pub mod gateway_codegen;
pub mod gateway_table;
pub mod guard;
pub mod links;
pub mod mode;
pub mod names;
pub mod policy;
pub mod primitives;
pub mod runtime;
pub mod sanitize;
pub mod table;
pub mod uri_template;

/// What `calls!` expansions reach through this crate, so that a crate using
/// them needs no serde dependency of its own. Not API.
#[doc(hidden)]
pub mod __private {
    pub use serde;
    pub use serde_json;
}

pub use arguments::{ArgKind, ArgType, Parameter};
pub use client_capability::ClientCapability;
pub use deny::{DenyList, Refusal, StatusOnly};
pub use effects::{CatalogAction, EffectMode, Effects, Reasoned, Route, RouteValue};
pub use facets::Facet;
pub use mode::SessionMode;
pub use policy::{Diagnostic, Law, PolicyFile, PolicySources, compile, compile_gateway};
pub use table::{
    Action, ArgSet, Argument, Binding, Budget, Card, Cockpit, Collection, HelpEntry, HumanOnly, Label, ReadVerb, Slot,
    SlotKind, Verb, VerbId,
};
