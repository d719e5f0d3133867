//! A fleet's problems as `m1nd policy check` and `fleet!` print them: a
//! member's diagnostic against that member's files, and the fleet's own
//! through the same [`render_report`] as every policy diagnostic, so both
//! read as rustc shows them.

use super::problem::{FleetLoc, FleetProblem};
use super::sources::FleetSources;
use crate::policy::{Place, Where, line_col, render_report};

impl FleetProblem {
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
