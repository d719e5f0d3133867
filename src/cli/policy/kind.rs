//! Which kind of policy a directory (or a revision) holds: m1nd's own, or a
//! gateway's.
//!
//! Invariant 1: the kind is read from the files alone, so `policy check`,
//! `diff`, `digest` and `expand` need no flag, and one policy never passes as
//! the other. m1nd's own policy has a menu (`help_cards.toml`,
//! `cockpit.toml`); a gateway policy guards another server's tools and has
//! only `tools.toml` and `read_only_denied.toml`. A directory holding
//! neither menu file nor `tools.toml` is read as m1nd's own, so the compiler
//! lists every file it lacks.

use m1nd_policy::PolicyFile;
use m1nd_policy::policy::{PolicySources, ReadProblem};

use crate::cli::Failure;

/// The kind of a policy directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// m1nd's own policy, with its menu (`cockpit!`, `m1nd serve`).
    Cockpit,
    /// A gateway policy (`gateway!`, `m1nd gateway`).
    Gateway,
}

impl Kind {
    /// The kind in a few words, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Cockpit => "m1nd's own policy",
            Kind::Gateway => "a gateway policy",
        }
    }
}

/// A kind and the files that gave it away.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recognised {
    pub kind: Kind,
    /// Why, e.g. "it has cockpit.toml".
    pub why: String,
}

fn present(sources: &PolicySources, file: PolicyFile) -> bool {
    !matches!(sources.file(file).text, Err(ReadProblem::Missing))
}

/// Recognise the kind of a policy from which files it holds.
pub fn recognise(sources: &PolicySources) -> Recognised {
    let menu: Vec<&str> = [PolicyFile::Cards, PolicyFile::Cockpit]
        .into_iter()
        .filter(|&f| present(sources, f))
        .map(PolicyFile::file_name)
        .collect();
    if !menu.is_empty() {
        let why = format!("it has {}, the menu only m1nd's own policy has", menu.join(" and "));
        return Recognised { kind: Kind::Cockpit, why };
    }
    if present(sources, PolicyFile::Tools) {
        let why = "it has tools.toml and no menu (help_cards.toml, cockpit.toml)".to_owned();
        return Recognised { kind: Kind::Gateway, why };
    }
    Recognised { kind: Kind::Cockpit, why: "it has neither tools.toml nor a menu".to_owned() }
}

/// A gateway policy, or a usage error that says what `name` is instead and
/// what to run on it. A directory with neither a menu nor `tools.toml` passes,
/// so the gateway's compiler lists the files it lacks.
pub fn expect_gateway(name: &str, sources: &PolicySources, instead: &str) -> Result<(), Failure> {
    let found = recognise(sources);
    let menu = [PolicyFile::Cards, PolicyFile::Cockpit].into_iter().any(|f| present(sources, f));
    match found.kind {
        Kind::Cockpit if menu => Err(Failure::usage(format!(
            "`{name}` is {}, not a gateway policy: {}. A gateway policy has only tools.toml and \
             read_only_denied.toml (write one with `m1nd policy import`); {instead}",
            found.kind.name(),
            found.why
        ))),
        Kind::Cockpit | Kind::Gateway => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources(files: &[PolicyFile]) -> PolicySources {
        PolicySources::from_bytes("p", |f| files.contains(&f).then_some(b"x = 1\n".as_slice()))
    }

    #[test]
    fn the_menu_makes_a_policy_m1nds_own_and_its_absence_a_gateways() {
        use PolicyFile::{Cards, Cockpit, Deny, Tools};
        assert_eq!(recognise(&sources(&[Tools, Deny])).kind, Kind::Gateway);
        assert_eq!(recognise(&sources(&[Tools])).kind, Kind::Gateway);
        let own = recognise(&sources(&[Tools, Deny, Cards, Cockpit]));
        assert_eq!(own.kind, Kind::Cockpit);
        assert_eq!(own.why, "it has help_cards.toml and cockpit.toml, the menu only m1nd's own policy has");
        // One menu file missing is an incomplete m1nd policy, not a gateway one.
        assert_eq!(recognise(&sources(&[Tools, Deny, Cards])).kind, Kind::Cockpit);
        assert_eq!(recognise(&sources(&[Tools, Deny, Cockpit])).kind, Kind::Cockpit);
        assert_eq!(recognise(&sources(&[])).kind, Kind::Cockpit);
    }

    #[test]
    fn a_gateway_is_expected_and_m1nds_own_is_refused_with_what_to_run() {
        use PolicyFile::{Cards, Cockpit, Deny, Tools};
        assert!(expect_gateway("g", &sources(&[Tools, Deny]), "x").is_ok());
        let err = expect_gateway(
            "policy",
            &sources(&[Tools, Deny, Cards, Cockpit]),
            "check it with `m1nd policy check policy`",
        )
        .expect_err("m1nd's own policy is not a gateway policy");
        assert_eq!(err.code, 2);
        assert!(
            err.message.starts_with("`policy` is m1nd's own policy, not a gateway policy: it has"),
            "{}",
            err.message
        );
        assert!(err.message.ends_with("check it with `m1nd policy check policy`"), "{}", err.message);
        // Nothing to recognise: the gateway's compiler says what is missing.
        assert!(expect_gateway("empty", &sources(&[]), "x").is_ok());
        assert!(expect_gateway("half", &sources(&[Deny]), "x").is_ok());
    }
}
