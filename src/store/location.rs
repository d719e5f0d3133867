//! Where a store is: a directory holding `state.db` (the embedded default),
//! or a PostgreSQL connection URL, as `--store` and `M1ND_STORE` name it.
//!
//! A URL may carry a password (`postgres://user:secret@host/db`, or
//! `?password=secret`), so a [`Location`] never shows one: its `Display`
//! and `Debug` print `***` in its place, and every message built from a
//! location goes through them. The URL itself is kept private, for the one
//! place that will connect with it.
//!
//! A PostgreSQL location is recognised in every form libpq takes, so that
//! a command that works on directories only refuses it with its own words
//! (see [`Location::dir`]) instead of taking it for a directory called
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
        "`{0}` names a PostgreSQL database; this command works on a store in a directory (SQLite) only so \
         far: give a directory instead (`--store DIR`, default `.m1nd`)"
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

    /// A `postgres://` or `postgresql://` URL (any case, after any leading
    /// space), or a libpq keyword string (`host=db user=m1nd ...`), is a
    /// database; anything else is a directory path, taken as written. A
    /// keyword string is recognised so that it is refused and shown
    /// redacted, never created as a directory whose name holds a password.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(if is_postgres_url(s) || is_keyword_string(s) {
            Location::Postgres(PostgresUrl(s.to_owned()))
        } else {
            Location::Dir(PathBuf::from(s))
        })
    }
}

/// Every key a PostgreSQL location may hold: the driver's, and the two m1nd
/// reads before it (`sslmode`'s libpq values and `sslrootcert`,
/// `pg_wire/ssl_keys.rs`). Any of them makes a string a keyword string,
/// not a path; an unknown one is refused with the nearest of them.
pub(super) const POSTGRES_KEYS: [&str; 21] = [
    "user",
    "password",
    "dbname",
    "options",
    "application_name",
    "sslmode",
    "sslrootcert",
    "sslnegotiation",
    "host",
    "hostaddr",
    "port",
    "connect_timeout",
    "tcp_user_timeout",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_retries",
    "target_session_attrs",
    "channel_binding",
    "load_balance_hosts",
    "replication",
];

/// Whether `s` is a `postgres://` or `postgresql://` URL (any case, after
/// any leading space), as opposed to a keyword string.
pub(super) fn is_postgres_url(s: &str) -> bool {
    let trimmed = s.trim_start();
    POSTGRES_SCHEMES
        .iter()
        .any(|scheme| trimmed.get(..scheme.len()).is_some_and(|head| head.eq_ignore_ascii_case(scheme)))
}

/// Whether `s` holds `KEYWORD=` for one of [`POSTGRES_KEYS`], at its start or
/// after a space (libpq's `keyword = value` form allows spaces around `=`).
fn is_keyword_string(s: &str) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    words.iter().enumerate().any(|(at, word)| {
        let (key, then_equals) = match word.split_once('=') {
            Some((key, _)) => (key, true),
            None => (*word, words.get(at + 1).is_some_and(|next| next.starts_with('='))),
        };
        then_equals && POSTGRES_KEYS.iter().any(|k| key.eq_ignore_ascii_case(k))
    })
}

/// A path that is not UTF-8 is a directory (a URL is always UTF-8).
impl From<std::ffi::OsString> for Location {
    fn from(s: std::ffi::OsString) -> Self {
        match s.into_string() {
            Ok(s) => s.parse().unwrap_or_else(|never| match never {}),
            Err(path) => Location::Dir(PathBuf::from(path)),
        }
    }
}

impl From<PathBuf> for Location {
    fn from(dir: PathBuf) -> Self {
        Location::Dir(dir)
    }
}

impl From<&Path> for Location {
    fn from(dir: &Path) -> Self {
        Location::Dir(dir.to_owned())
    }
}

impl From<&PathBuf> for Location {
    fn from(dir: &PathBuf) -> Self {
        Location::Dir(dir.clone())
    }
}

impl PostgresUrl {
    /// The URL as given, password and all: only for connecting
    /// (`pg_wire::conn::connect`), never for a message.
    pub(super) fn connection_string(&self) -> &str {
        &self.0
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
/// - a `password=` parameter (or keyword, with spaces around `=`, its name
///   percent-encoded or not): from its value to the end of the URL (an
///   unencoded `&` inside it could otherwise end it early).
fn redacted(url: &str) -> String {
    const KEY: &str = "password";
    let mut hidden = vec![false; url.len()];
    let start = url.find("://").map_or(0, |at| at + "://".len());
    if let Some(at) = url.rfind('@').filter(|&at| at >= start)
        && let Some(colon) = url[start..at].find(':')
    {
        hidden[start + colon + 1..at].fill(true);
    }
    // `password=`, `password = ` (a keyword string), any case: the rest is hidden.
    let lower = url.to_ascii_lowercase();
    for (at, _) in lower.match_indices(KEY) {
        let after = &lower[at + KEY.len()..];
        if let Some(equals) = after.trim_start().strip_prefix('=') {
            hidden[url.len() - equals.len()..].fill(true);
            break;
        }
    }
    // A parameter name may be percent-encoded (`%70assword=`), as libpq decodes names.
    if let Some(query) = url.find('?') {
        let mut start = query + 1;
        for parameter in url[query + 1..].split('&') {
            if let Some((key, _)) = parameter.split_once('=')
                && percent_decoded(key).eq_ignore_ascii_case("password")
            {
                hidden[start + key.len() + 1..].fill(true);
                break;
            }
            start += parameter.len() + 1;
        }
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

/// `text` with each `%XX` decoded (anything else kept), for comparing a name.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes.get(at + 1..at + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[at], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                at += 3;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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
    fn a_keyword_string_or_a_url_after_spaces_is_a_database_and_shown_without_its_password() {
        for s in [
            format!("host=db user=m1nd password={CANARY}"),
            format!("dbname = m1nd password = {CANARY}"),
            format!("  postgres://m1nd:{CANARY}@h/db"),
            format!("postgres://m1nd@h/db?%70assword={CANARY}"),
        ] {
            let location = location(&s);
            assert!(matches!(location, Location::Postgres(_)), "{s}");
            assert!(!location.to_string().contains("Canary"), "{location}");
        }
        for dir in ["hosts", "my=dir", "a b", "user"] {
            assert!(matches!(location(dir), Location::Dir(_)), "{dir}");
        }
    }

    #[test]
    fn a_path_that_is_not_utf8_is_a_directory() {
        use std::os::unix::ffi::OsStringExt;
        let raw = std::ffi::OsString::from_vec(vec![b'd', 0xff, b'r']);
        assert_eq!(Location::from(raw.clone()), Location::Dir(PathBuf::from(raw)));
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
