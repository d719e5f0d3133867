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

/// `url` with its passwords replaced by [`HIDDEN`]. Two spans may hold
/// one, and each is taken as wide as it could be, so that an odd password
/// (holding `@`, `:`, `&`, `/`, `?` or `password=`) only hides more:
///
/// - the user part's password: from the first `:` after the scheme to the
///   last `@`;
/// - a `password=` parameter: from its value to the end of the URL (an
///   unencoded `&` inside it could otherwise end it early).
fn redacted(url: &str) -> String {
    const KEY: &str = "password=";
    let mut hidden = vec![false; url.len()];
    let start = url.find("://").map_or(0, |at| at + "://".len());
    if let Some(at) = url.rfind('@').filter(|&at| at >= start)
        && let Some(colon) = url[start..at].find(':')
    {
        hidden[start + colon + 1..at].fill(true);
    }
    if let Some(at) = url.to_ascii_lowercase().find(KEY) {
        hidden[at + KEY.len()..].fill(true);
    }
    let mut shown = String::with_capacity(url.len());
    let mut in_hidden = false;
    for (at, c) in url.char_indices() {
        match (hidden[at], in_hidden) {
            (true, false) => shown.push_str(HIDDEN),
            (false, _) => shown.push(c),
            (true, true) => {}
        }
        in_hidden = hidden[at];
    }
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
        assert_eq!(location("postgres://h:5432/db").to_string(), "postgres://h:5432/db", "a port is not a password");
        assert_eq!(
            location("postgres://m1nd@h/db?password=a&b=c").to_string(),
            "postgres://m1nd@h/db?password=***",
            "a password parameter hides the rest of the URL"
        );
    }

    proptest::proptest! {
        /// Whatever a password holds, and wherever the URL puts it, it is
        /// not in what is shown.
        #[test]
        fn a_password_of_any_characters_is_never_shown(
            user in "[a-z][a-z0-9_]{0,8}",
            password in "[ -~]{6,24}",
            hosts in "[a-z0-9.,:-]{1,20}",
            tail in "(/[a-z0-9_]{0,8})?",
            in_query in proptest::bool::ANY,
            scheme in proptest::sample::select(vec!["postgres", "postgresql", "POSTGRES"]),
        ) {
            // A password that is part of the rest of the URL cannot be told apart from it.
            proptest::prop_assume!(![&user, &hosts, &tail].iter().any(|part| part.contains(password.as_str())));
            let url = if in_query {
                format!("{scheme}://{user}@{hosts}{tail}?sslmode=disable&password={password}")
            } else {
                format!("{scheme}://{user}:{password}@{hosts}{tail}")
            };
            let location = location(&url);
            proptest::prop_assert!(matches!(location, Location::Postgres(_)));
            for shown in [location.to_string(), format!("{location:?}")] {
                proptest::prop_assert!(!shown.contains(password.as_str()), "{} shows {}", shown, password);
            }
        }
    }

    #[test]
    fn a_database_is_refused_with_what_to_do_instead() {
        let refused = location("postgres://m1nd@db/m1nd").dir().expect_err("refused").to_string();
        assert!(refused.contains("`postgres://m1nd@db/m1nd`"), "{refused}");
        assert!(refused.contains("--store DIR"), "{refused}");
    }
}
