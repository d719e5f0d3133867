//! Where a store is: a directory holding `state.db` (the embedded default),
//! or a PostgreSQL connection URL, as `--store` and `M1ND_STORE` name it.
//!
//! A URL may carry a password (`postgres://user:secret@host/db`, or
//! `?password=secret`), so a [`Location`] never shows one: its `Display`
//! and `Debug` print `***` in its place, and every message built from a
//! location goes through them. The URL itself is kept private, for the one
//! place that will connect with it.
//!
//! This build keeps stores in directories only: a PostgreSQL location is
//! recognised, so that it is refused with its own words (see
//! [`Location::dir`]) instead of being taken for a directory called
//! `postgres:`, which would be created and could echo the password.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The URL schemes that name a PostgreSQL database (libpq's two spellings).
const POSTGRES_SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];

/// What stands in for a password wherever a location is shown.
const HIDDEN: &str = "***";

/// Where a store is.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// A directory holding `state.db`.
    Dir(PathBuf),
    /// A PostgreSQL database, by connection URL (shown without its password).
    Postgres(PostgresUrl),
}

/// A PostgreSQL connection URL. Only its redacted form can be read.
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresUrl(String);

/// Why a location cannot be used by this build.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LocationError {
    #[error(
        "`{0}` names a PostgreSQL database; this build keeps its store in a directory (SQLite) and \
         cannot use PostgreSQL yet: give a directory instead (`--store DIR`, default `.m1nd`)"
    )]
    PostgresUnsupported(PostgresUrl),
}

impl Location {
    /// The store directory, or why this build cannot use the location.
    pub fn dir(&self) -> Result<&Path, LocationError> {
        match self {
            Location::Dir(dir) => Ok(dir),
            Location::Postgres(url) => Err(LocationError::PostgresUnsupported(url.clone())),
        }
    }
}

impl FromStr for Location {
    type Err = std::convert::Infallible;

    /// A `postgres://` or `postgresql://` URL (any case) is a database;
    /// anything else is a directory path, taken as written.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let is_url = POSTGRES_SCHEMES
            .iter()
            .any(|scheme| s.get(..scheme.len()).is_some_and(|head| head.eq_ignore_ascii_case(scheme)));
        Ok(if is_url { Location::Postgres(PostgresUrl(s.to_owned())) } else { Location::Dir(PathBuf::from(s)) })
    }
}

impl From<PathBuf> for Location {
    fn from(dir: PathBuf) -> Self {
        Location::Dir(dir)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Dir(dir) => write!(f, "{}", dir.display()),
            Location::Postgres(url) => url.fmt(f),
        }
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Dir(dir) => f.debug_tuple("Dir").field(dir).finish(),
            Location::Postgres(url) => f.debug_tuple("Postgres").field(url).finish(),
        }
    }
}

impl fmt::Display for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redacted(&self.0))
    }
}

impl fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", redacted(&self.0))
    }
}

/// `url` with every `password=` parameter and the password of its user
/// part replaced by [`HIDDEN`]. Parameters go first, so an `@` inside one
/// is gone before the user part is looked for; the user part ends at the
/// last `@`, so a password holding `/`, `?` or `@` is hidden whole, and an
/// `@` later in the URL only hides more.
fn redacted(url: &str) -> String {
    let url = hide_password_parameters(url);
    let (scheme, rest) = url.split_once("://").unwrap_or(("", &url));
    match rest.rsplit_once('@') {
        Some((user, hosts)) => match user.split_once(':') {
            Some((name, _password)) => format!("{scheme}://{name}:{HIDDEN}@{hosts}"),
            None => format!("{scheme}://{rest}"),
        },
        None => format!("{scheme}://{rest}"),
    }
}

/// Every `password=` (any case) hidden up to the next `&` or the end.
fn hide_password_parameters(url: &str) -> String {
    const KEY: &str = "password=";
    let mut shown = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(at) = rest.to_ascii_lowercase().find(KEY) {
        let value = at + KEY.len();
        shown.push_str(&rest[..value]);
        shown.push_str(HIDDEN);
        rest = &rest[value..];
        rest = &rest[rest.find('&').unwrap_or(rest.len())..];
    }
    shown.push_str(rest);
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A password that must never be shown.
    const CANARY: &str = "Canary-7f3@pw";

    fn location(s: &str) -> Location {
        s.parse().expect("infallible")
    }

    #[test]
    fn a_path_is_a_directory_taken_as_written() {
        assert_eq!(location(".m1nd"), Location::Dir(PathBuf::from(".m1nd")));
        assert_eq!(location("postgres/dir"), Location::Dir(PathBuf::from("postgres/dir")));
        assert_eq!(location(".m1nd").dir(), Ok(Path::new(".m1nd")));
        assert_eq!(location("./a b").to_string(), "./a b");
    }

    #[test]
    fn both_schemes_in_any_case_name_a_database() {
        for url in ["postgres://h/db", "postgresql://h/db", "POSTGRES://h/db", "PostgreSQL://h/db"] {
            assert!(matches!(location(url), Location::Postgres(_)), "{url}");
        }
    }

    #[test]
    fn no_form_of_a_password_is_ever_shown() {
        let urls = [
            format!("postgres://m1nd:{CANARY}@db.example:5432/m1nd"),
            format!("postgresql://m1nd:{CANARY}@h1,h2/m1nd?sslmode=require"),
            format!("postgres://m1nd@h/m1nd?password={CANARY}&application_name=x"),
            format!("postgres://m1nd@h/m1nd?PASSWORD={CANARY}"),
            format!("postgres://m1nd:{CANARY}/with?slash@h/m1nd"),
        ];
        for url in &urls {
            let location = location(url);
            let error = location.dir().expect_err("refused").to_string();
            for shown in [location.to_string(), format!("{location:?}"), error] {
                assert!(!shown.contains(CANARY) && !shown.contains("Canary"), "{shown}");
                assert!(shown.contains(HIDDEN), "{shown}");
            }
        }
    }

    #[test]
    fn what_is_shown_keeps_everything_but_the_password() {
        let shown = location(&format!("postgres://m1nd:{CANARY}@db.example:5432/m1nd?sslmode=require")).to_string();
        assert_eq!(shown, "postgres://m1nd:***@db.example:5432/m1nd?sslmode=require");
        assert_eq!(location("postgres://m1nd@h/db").to_string(), "postgres://m1nd@h/db", "no password, nothing hidden");
    }

    #[test]
    fn a_database_is_refused_with_what_to_do_instead() {
        let refused = location("postgres://m1nd@db/m1nd").dir().expect_err("refused").to_string();
        assert!(refused.contains("`postgres://m1nd@db/m1nd`"), "{refused}");
        assert!(refused.contains("--store DIR"), "{refused}");
    }
}
