//! A fleet compiled into a binary by `fleet!`.
//!
//! As for one policy (`gateway!`, [`crate::gateway::Embedded`]), the macro
//! runs every law at compile time, M017 included, and embeds the text it
//! checked; the fleet is compiled again from that text on first use, by the
//! same [`compile_fleet`], so it is the fleet the laws passed.

use std::sync::OnceLock;

use super::{Fleet, FleetSources, compile_fleet};
use crate::gateway::embedded::FILES;
use crate::policy::{PolicyFile, PolicySources};

/// One member's policy as embedded: how diagnostics name its directory, and
/// each file's text in [`PolicyFile::EVERY`] order.
pub type EmbeddedMember = (&'static str, [Option<&'static str>; FILES]);

/// The text of a fleet, proven lawful when the crate was built.
pub struct EmbeddedFleet {
    display: &'static str,
    config: &'static str,
    members: &'static [EmbeddedMember],
    fleet: OnceLock<Result<Fleet, String>>,
}

impl EmbeddedFleet {
    /// Used by `fleet!` expansions only, after every law passed.
    #[doc(hidden)]
    pub const fn __from_checked_fleet(
        display: &'static str,
        config: &'static str,
        members: &'static [EmbeddedMember],
    ) -> Self {
        Self { display, config, members, fleet: OnceLock::new() }
    }

    /// The value `fleet!` emits next to its compile errors. Never served.
    #[doc(hidden)]
    pub const fn __stub() -> Self {
        Self::__from_checked_fleet("", "", &[])
    }

    /// The sources the laws checked.
    pub fn sources(&self) -> FleetSources {
        let members = self
            .members
            .iter()
            .map(|(display, files)| {
                PolicySources::from_bytes(display, |f: PolicyFile| files[f as usize].map(str::as_bytes))
            })
            .collect();
        FleetSources::from_parts(self.display, Ok(self.config.to_owned()), members)
    }

    /// The compiled fleet. An error only if the embedded text no longer
    /// compiles, which the build ruled out; it is reported, never panicked on.
    pub fn fleet(&self) -> Result<&Fleet, &str> {
        let fleet = self.fleet.get_or_init(|| {
            let sources = self.sources();
            compile_fleet(&sources).map_err(|problems| {
                problems.iter().map(|p| format!("error: {}", p.render(&sources))).collect::<Vec<_>>().join("\n\n")
            })
        });
        fleet.as_ref().map_err(String::as_str)
    }
}
