//! How the person at the terminal runs `m1nd`, so that every command this
//! binary suggests (`next: …`, "create one with …") works when pasted back.
//!
//! # The invariant
//!
//! 1. A suggested command is spelled the way this process was started:
//!    - under `cargo run` it is `cargo run -- ARGS`, with `--manifest-path`
//!      when the current directory is not the package's, since `cargo run`
//!      finds the package from the current directory;
//!    - started by a path (`./target/debug/m1nd`, `/opt/m1nd/bin/m1nd`) it is
//!      that path;
//!    - found on `PATH` (after `cargo install --locked --path .`) it is
//!      `m1nd ARGS`.
//! 2. Detection reads only this process's environment, `argv[0]`, its
//!    executable's file name and the current directory, once per process
//!    ([`current`]); [`Invocation::detect`] takes them as values, so the
//!    rule is tested without starting anything.
//!
//! `cargo run` sets `CARGO`, `CARGO_PKG_NAME` and `CARGO_MANIFEST_DIR` for
//! the binary it runs. The three together, naming this package, and an
//! executable named `m1nd` are what "under `cargo run`" means here; an
//! installed `m1nd` started by a cargo build script or test with those
//! variables in its environment is taken for `cargo run`, which names a
//! command that also works there.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The package `cargo run` must name for the suggestion to be `cargo run`.
const PACKAGE: &str = "m1nd";

/// How this process was started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// `cargo run`: suggest `cargo run -- ARGS`. `manifest` is the package's
    /// `Cargo.toml` when the current directory is elsewhere.
    Cargo { manifest: Option<PathBuf> },
    /// Started by a path that names the binary (it holds a `/`).
    Path(String),
    /// Found on `PATH`: suggest `m1nd ARGS`.
    Installed,
}

/// What [`Invocation::detect`] reads, as plain values.
#[derive(Clone, Debug, Default)]
pub struct Observed<'a> {
    /// `CARGO`, `CARGO_PKG_NAME` and `CARGO_MANIFEST_DIR`.
    pub cargo: Option<&'a OsStr>,
    pub cargo_pkg_name: Option<&'a OsStr>,
    pub cargo_manifest_dir: Option<&'a Path>,
    /// `argv[0]` as the shell passed it.
    pub argv0: Option<&'a OsStr>,
    /// The running executable's file name (`m1nd`).
    pub exe_name: Option<&'a OsStr>,
    /// The current directory.
    pub cwd: Option<&'a Path>,
}

impl Invocation {
    /// The rule of the module's invariant, on observed values.
    pub fn detect(seen: &Observed<'_>) -> Self {
        let is_package = seen.cargo_pkg_name.is_some_and(|n| n == PACKAGE);
        let is_binary = seen.exe_name.is_some_and(|n| n == PACKAGE);
        if let (Some(_), true, true, Some(dir)) = (seen.cargo, is_package, is_binary, seen.cargo_manifest_dir) {
            let here = seen.cwd.is_some_and(|cwd| same_dir(cwd, dir));
            return Invocation::Cargo { manifest: (!here).then(|| dir.join("Cargo.toml")) };
        }
        match seen.argv0.and_then(OsStr::to_str) {
            Some(path) if path.contains(std::path::MAIN_SEPARATOR) || path.contains('/') => {
                Invocation::Path(path.to_owned())
            }
            _ => Invocation::Installed,
        }
    }

    /// The command to type for `m1nd ARGS`: [`Invocation::command`]`("cockpit --store .m1nd")`.
    pub fn command<'a>(&'a self, args: &'a str) -> Command<'a> {
        Command { invocation: self, args }
    }
}

/// A suggested command, displayed as the person should type it.
#[derive(Clone, Copy, Debug)]
pub struct Command<'a> {
    invocation: &'a Invocation,
    args: &'a str,
}

impl fmt::Display for Command<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.invocation {
            Invocation::Cargo { manifest: None } => write!(f, "cargo run -- {}", self.args),
            Invocation::Cargo { manifest: Some(path) } => {
                write!(f, "cargo run --manifest-path {} -- {}", shell_word(&path.to_string_lossy()), self.args)
            }
            Invocation::Path(path) => write!(f, "{} {}", shell_word(path), self.args),
            Invocation::Installed => write!(f, "{PACKAGE} {}", self.args),
        }
    }
}

/// `word` as one shell word: as it is when it holds only characters no
/// shell treats specially, else in single quotes.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | ':' | ',' | '@'));
    if plain { word.to_owned() } else { format!("'{}'", word.replace('\'', r"'\''")) }
}

/// Whether two paths name one directory (compared after resolving links).
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// How this process was started, read once.
pub fn current() -> &'static Invocation {
    static CURRENT: OnceLock<Invocation> = OnceLock::new();
    CURRENT.get_or_init(|| {
        let cargo = std::env::var_os("CARGO");
        let name = std::env::var_os("CARGO_PKG_NAME");
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        let argv0 = std::env::args_os().next();
        let exe = std::env::current_exe().ok();
        let exe_name = exe.as_deref().and_then(Path::file_stem).map(OsStr::to_owned);
        let cwd = std::env::current_dir().ok();
        Invocation::detect(&Observed {
            cargo: cargo.as_deref(),
            cargo_pkg_name: name.as_deref(),
            cargo_manifest_dir: manifest_dir.as_deref(),
            argv0: argv0.as_deref(),
            exe_name: exe_name.as_deref(),
            cwd: cwd.as_deref(),
        })
    })
}

/// `m1nd ARGS` spelled the way this process was started.
pub fn m1nd(args: &str) -> String {
    current().command(args).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observed<'a>(cwd: &'a Path, manifest: &'a Path) -> Observed<'a> {
        Observed {
            cargo: Some(OsStr::new("/usr/bin/cargo")),
            cargo_pkg_name: Some(OsStr::new("m1nd")),
            cargo_manifest_dir: Some(manifest),
            argv0: Some(OsStr::new("target/debug/m1nd")),
            exe_name: Some(OsStr::new("m1nd")),
            cwd: Some(cwd),
        }
    }

    #[test]
    fn cargo_run_in_the_checkout_suggests_cargo_run() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let how = Invocation::detect(&observed(dir, dir));
        assert_eq!(how, Invocation::Cargo { manifest: None });
        assert_eq!(how.command("cockpit --store .m1nd").to_string(), "cargo run -- cockpit --store .m1nd");
    }

    #[test]
    fn cargo_run_elsewhere_names_the_manifest() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let elsewhere = dir.join("src");
        let how = Invocation::detect(&observed(&elsewhere, dir));
        assert_eq!(how, Invocation::Cargo { manifest: Some(dir.join("Cargo.toml")) });
        assert!(how.command("init").to_string().starts_with("cargo run --manifest-path "));
        assert!(how.command("init").to_string().ends_with("/Cargo.toml -- init"));
    }

    #[test]
    fn another_packages_cargo_run_is_not_ours() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut seen = observed(dir, dir);
        seen.cargo_pkg_name = Some(OsStr::new("git-guard"));
        assert_eq!(Invocation::detect(&seen), Invocation::Path("target/debug/m1nd".into()));
        let mut seen = observed(dir, dir);
        seen.exe_name = Some(OsStr::new("m1nd-0123abcd"));
        assert_eq!(Invocation::detect(&seen), Invocation::Path("target/debug/m1nd".into()));
    }

    #[test]
    fn without_cargo_a_path_is_kept_and_a_bare_name_is_installed() {
        let path = Observed { argv0: Some(OsStr::new("./target/release/m1nd")), ..Observed::default() };
        assert_eq!(Invocation::detect(&path).command("serve").to_string(), "./target/release/m1nd serve");
        let spaced = Observed { argv0: Some(OsStr::new("/opt/my tools/m1nd")), ..Observed::default() };
        assert_eq!(Invocation::detect(&spaced).command("serve").to_string(), "'/opt/my tools/m1nd' serve");
        let bare = Observed { argv0: Some(OsStr::new("m1nd")), ..Observed::default() };
        assert_eq!(Invocation::detect(&bare), Invocation::Installed);
        assert_eq!(Invocation::detect(&bare).command("cockpit").to_string(), "m1nd cockpit");
        assert_eq!(Invocation::detect(&Observed::default()), Invocation::Installed);
    }

    #[test]
    fn shell_words_quote_what_a_shell_would_split() {
        assert_eq!(shell_word("/a/b-c_d.e"), "/a/b-c_d.e");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
