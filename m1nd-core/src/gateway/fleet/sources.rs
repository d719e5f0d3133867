//! A fleet's files as read: its `fleet.toml` and each member's policy
//! directory (relative to the fleet's), so diagnostics quote the lines that
//! were compiled, as [`PolicySources`] does for one policy.

use std::path::Path;

use super::config::{self, FLEET_FILE};
use super::problem::FleetFile;
use crate::policy::{PolicySources, ReadProblem, join_display, read_text};

/// The files of one fleet.
#[derive(Clone, Debug)]
pub struct FleetSources {
    /// How diagnostics name the fleet's directory, as written.
    pub display: String,
    /// How diagnostics name `fleet.toml`.
    config_display: String,
    config: Result<String, ReadProblem>,
    /// Each member's policy, in `fleet.toml` order; none when it does not parse.
    members: Vec<PolicySources>,
}

impl FleetSources {
    /// Read the fleet in `dir`, naming its files as `display/...`.
    pub fn read_dir(dir: &Path, display: &str) -> Self {
        let config = read_text(&dir.join(FLEET_FILE));
        let members = match config.as_deref().map(config::parse) {
            Ok(Ok(entries)) => entries
                .iter()
                .map(|e| PolicySources::read_dir(&dir.join(&e.policy), &join_display(display, &e.policy)))
                .collect(),
            _ => Vec::new(),
        };
        Self::from_parts(display, config, members)
    }

    /// From text already in memory: `fleet.toml`'s, and each member's
    /// policy in `fleet.toml` order (the embedded fleet, tests).
    pub fn from_parts(display: &str, config: Result<String, ReadProblem>, members: Vec<PolicySources>) -> Self {
        let config_display = join_display(display, FLEET_FILE);
        Self { display: display.to_owned(), config_display, config, members }
    }

    /// `fleet.toml`'s text, or why there is none.
    pub fn config(&self) -> Result<&str, &ReadProblem> {
        self.config.as_deref()
    }

    /// How diagnostics name `fleet.toml`.
    pub fn config_display(&self) -> &str {
        &self.config_display
    }

    /// The policy of the member at `index` in `fleet.toml` order.
    pub fn member(&self, index: usize) -> Option<&PolicySources> {
        self.members.get(index)
    }

    pub fn members(&self) -> &[PolicySources] {
        &self.members
    }

    /// A file's name as diagnostics show it, and its text.
    pub fn text(&self, file: FleetFile) -> Option<(&str, &str)> {
        match file {
            FleetFile::Config => Some((&self.config_display, self.config.as_deref().unwrap_or(""))),
            FleetFile::Member(index, file) => {
                let member = self.members.get(index)?;
                Some((&member.file(file).display, member.text(file)))
            }
        }
    }
}
