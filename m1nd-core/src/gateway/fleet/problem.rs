//! What a fleet's author meets when it is wrong: a member policy's own
//! diagnostic, or a problem of the fleet itself (its `fleet.toml`, or two
//! members together). render.rs shows them against the fleet's sources.

use std::ops::Range;

use crate::policy::{Diagnostic, Law, PolicyFile, one_line};

/// A file of a fleet: its `fleet.toml`, or a file of one member's policy
/// (by the member's position in `fleet.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FleetFile {
    Config,
    Member(usize, PolicyFile),
}

/// Some bytes of a fleet's file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FleetLoc {
    pub file: FleetFile,
    pub span: Range<usize>,
}

/// A broken law that no one member policy holds: `fleet.toml`'s shape
/// (M001), or names that collide across members (M017).
///
/// Its texts quote the fleet's own (an upstream's name, a key serde did not
/// know, a resource URI), so each goes through the sanitiser a policy's
/// [`Diagnostic`] uses: one display-safe line, whatever `fleet.toml` holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FleetDiagnostic {
    pub law: Law,
    pub title: String,
    pub at: FleetLoc,
    pub label: String,
    pub related: Vec<(FleetLoc, String)>,
    pub help: String,
}

impl FleetDiagnostic {
    pub fn new(law: Law, at: FleetLoc, title: impl Into<String>) -> Self {
        Self { law, title: one_line(title), at, label: String::new(), related: Vec::new(), help: String::new() }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = one_line(label);
        self
    }

    pub fn related(mut self, at: FleetLoc, note: impl Into<String>) -> Self {
        self.related.push((at, one_line(note)));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = one_line(help);
        self
    }
}

/// One problem of a fleet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FleetProblem {
    /// A member's policy breaks a law on its own.
    Member { member: usize, diagnostic: Diagnostic },
    /// The fleet does.
    Fleet(FleetDiagnostic),
}

impl FleetProblem {
    pub fn law(&self) -> Law {
        match self {
            FleetProblem::Member { diagnostic, .. } => diagnostic.law,
            FleetProblem::Fleet(d) => d.law,
        }
    }
}
