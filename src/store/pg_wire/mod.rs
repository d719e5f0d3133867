//! The PostgreSQL wire: what the store needs of the server before any of
//! its own logic runs, so that the backend-neutral modules (`db`, `reads`,
//! `schema`) can hold a PostgreSQL connection without reaching up into the
//! backend (`pg`), which runs their code.
//!
//! - [`ddl`]: every migration step rendered for PostgreSQL from the one
//!   history in `schema.rs`, held to SQLite's tables in the tests, which
//!   also prepare there every statement of `sql.rs` the backend runs;
//! - [`conn`]: a connection set up as the store relies on, with its
//!   statements prepared once, over TLS as libpq's `sslmode` and
//!   `sslrootcert` say ([`ssl_keys`] reads them, [`tls`] applies them);
//! - [`dollar_placeholders`]: SQLite's statement text as PostgreSQL's.

pub(super) mod conn;
pub(super) mod ddl;
mod ssl_keys;
mod tls;
mod verifiers;

/// `text` with SQLite's numbered placeholders (`?1`) written as
/// PostgreSQL's (`$1`), outside quoted literals. The numbers are kept, so a
/// value bound once and used twice (`TALLY_ADD`) binds the same on both.
pub(super) fn dollar_placeholders(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if q == c => quote = None,
            (None, '?') if chars.peek().is_some_and(char::is_ascii_digit) => {
                out.push('$');
                continue;
            }
            _ => {}
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod placeholder_tests {
    use super::dollar_placeholders;

    #[test]
    fn numbered_placeholders_become_dollars_outside_literals() {
        assert_eq!(
            dollar_placeholders("UPDATE t SET n = t.n + ?2 WHERE a = ?1 AND b = '?3' AND c = \"?4\" AND d = ?"),
            "UPDATE t SET n = t.n + $2 WHERE a = $1 AND b = '?3' AND c = \"?4\" AND d = ?"
        );
    }
}
