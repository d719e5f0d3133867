//! What a fleet's author meets when it is wrong: a member policy's own
//! diagnostic, or a problem of the fleet itself (its `fleet.toml`, or two
//! members together), rendered by the same [`render_report`] as every
//! policy diagnostic, so both read as rustc shows them.

use std::ops::Range;

use super::sources::FleetSources;
use crate::policy::{Diagnostic, Law, Place, PolicyFile, Where, line_col, render_report};

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
        Self { law, title: title.into(), at, label: String::new(), related: Vec::new(), help: String::new() }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn related(mut self, at: FleetLoc, note: impl Into<String>) -> Self {
        self.related.push((at, note.into()));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = help.into();
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

    /// `display:line:col` of the primary position.
    pub fn position(&self, sources: &FleetSources) -> String {
        match self {
            FleetProblem::Member { member, diagnostic } => {
                sources.member(*member).map(|s| diagnostic.position(s)).unwrap_or_default()
            }
            FleetProblem::Fleet(d) => match sources.text(d.at.file) {
                Some((path, text)) => {
                    let (line, col) = line_col(text, d.at.span.start);
                    format!("{path}:{line}:{col}")
                }
                None => String::new(),
            },
        }
    }

    /// The full rendering, as `m1nd policy check` and `fleet!` print it.
    pub fn render(&self, sources: &FleetSources) -> String {
        match self {
            FleetProblem::Member { member, diagnostic } => match sources.member(*member) {
                Some(member) => diagnostic.render(member),
                None => format!("[{}] {}", diagnostic.law, diagnostic.title),
            },
            FleetProblem::Fleet(d) => {
                let primary = place(sources, &d.at, &d.label).map(Where::At);
                let related: Vec<Place<'_>> =
                    d.related.iter().filter_map(|(loc, note)| place(sources, loc, note)).collect();
                render_report(&format!("[{}] {}", d.law, d.title), primary, &related, &d.help)
            }
        }
    }
}

fn place<'a>(sources: &'a FleetSources, loc: &FleetLoc, note: &'a str) -> Option<Place<'a>> {
    let (path, text) = sources.text(loc.file)?;
    Some(Place { path, text, span: loc.span.clone(), note })
}
