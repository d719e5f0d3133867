//! What a started upstream sees of the gateway's environment: a few
//! variables every program needs, and exactly the ones its configuration
//! names, never the rest.
//!
//! # The invariant
//!
//! The gateway's environment holds its own secrets (`M1ND_HTTP_TOKEN`) and,
//! in a fleet, every member's credentials (each `bearer_env`). A child
//! inherits its parent's environment unless told otherwise, and an upstream
//! that echoes its environment (server-everything's read-only `get-env`)
//! would hand them to any client. So a child starts from an empty
//! environment ([`confine`]) and gets:
//!
//! 1. the variables of [`INHERITED`], the set the official MCP SDKs pass to a
//!    stdio server by default, each only if set, and never one whose value
//!    is a shell function (`() { …`), as the SDKs skip them;
//! 2. each variable named by `--upstream-env NAME` or a fleet member's
//!    `env = ["NAME"]`, which must be set: an upstream that was promised a
//!    variable and would start without it is refused with the name to fix.
//!
//! A value the upstream needs that the gateway should not have is given in
//! its command instead (`env NAME=value program`).

use std::ffi::{OsStr, OsString};

/// The variables every started upstream gets when set: the official MCP
/// SDKs' default environment for a stdio server (Python's
/// `DEFAULT_INHERITED_ENV_VARS`, TypeScript's `getDefaultEnvironment`).
#[cfg(not(windows))]
pub const INHERITED: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// The variables every started upstream gets when set (Windows' list of the
/// same SDKs).
#[cfg(windows)]
pub const INHERITED: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
];

/// A variable the upstream's configuration names that is not set here.
#[derive(Debug, thiserror::Error)]
#[error(
    "`{name}` is named to be passed to the upstream (`--upstream-env` or a fleet member's `env`) but is not set \
     in the gateway's environment: set it, or stop naming it"
)]
pub struct UnsetVariable {
    pub name: String,
}

/// The environment a child started now gets: [`INHERITED`] and `named`,
/// read from `lookup` (the process environment in [`confine`]).
pub fn child_environment(
    named: &[OsString],
    lookup: impl Fn(&OsStr) -> Option<OsString>,
) -> Result<Vec<(OsString, OsString)>, UnsetVariable> {
    let mut out: Vec<(OsString, OsString)> = Vec::new();
    for name in INHERITED {
        if let Some(value) = lookup(OsStr::new(name)).filter(|v| !v.as_encoded_bytes().starts_with(b"()")) {
            out.push(((*name).into(), value));
        }
    }
    for name in named {
        let value = lookup(name).ok_or_else(|| UnsetVariable { name: name.to_string_lossy().into_owned() })?;
        out.retain(|(n, _)| n != name);
        out.push((name.clone(), value));
    }
    Ok(out)
}

/// Start `command` from an empty environment plus [`child_environment`].
pub fn confine(command: &mut tokio::process::Command, named: &[OsString]) -> Result<(), UnsetVariable> {
    let environment = child_environment(named, |name| std::env::var_os(name))?;
    command.env_clear().envs(environment);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&OsStr) -> Option<OsString> {
        let map: HashMap<OsString, OsString> = pairs.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        move |name| map.get(name).cloned()
    }

    fn names(found: &[(OsString, OsString)]) -> Vec<&str> {
        found.iter().map(|(n, _)| n.to_str().expect("utf-8")).collect()
    }

    #[cfg(not(windows))]
    #[test]
    fn a_child_gets_the_defaults_and_what_is_named_and_nothing_else() {
        let parent = env(&[
            ("PATH", "/usr/bin"),
            ("HOME", "/root"),
            ("M1ND_HTTP_TOKEN", "secret-of-the-gateway"),
            ("OTHER_MEMBER_TOKEN", "secret-of-a-member"),
            ("GIT_DIR", "/srv/repo/.git"),
        ]);
        let found = child_environment(&["GIT_DIR".into()], parent).expect("all set");
        assert_eq!(names(&found), ["HOME", "PATH", "GIT_DIR"]);
        assert!(found.iter().all(|(_, v)| !v.to_string_lossy().contains("secret")), "{found:?}");
    }

    #[test]
    fn a_named_variable_that_is_not_set_is_refused_by_name() {
        let error = child_environment(&["FILES_TOKEN".into()], env(&[])).unwrap_err();
        assert_eq!(error.name, "FILES_TOKEN");
        assert!(error.to_string().starts_with("`FILES_TOKEN` is named to be passed to the upstream"), "{error}");
    }

    #[cfg(not(windows))]
    #[test]
    fn a_default_holding_a_shell_function_is_skipped_and_a_named_default_is_not_doubled() {
        let parent = env(&[("SHELL", "() { evil; }"), ("PATH", "/bin")]);
        assert_eq!(names(&child_environment(&[], &parent).expect("set")), ["PATH"]);
        assert_eq!(names(&child_environment(&["PATH".into()], &parent).expect("set")), ["PATH"]);
    }
}
