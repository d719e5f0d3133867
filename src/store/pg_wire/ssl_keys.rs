//! libpq's TLS keys, read out of a location before the driver sees it.
//!
//! The driver (`tokio-postgres`) knows `sslmode=disable|prefer|require`
//! only, and no `sslrootcert`: `verify-ca` and `verify-full` would be
//! refused as an invalid connection string. So both keys are taken out of
//! the location here, in either of libpq's forms (a `postgres://` URL's
//! query, or a `key=value` string), and the rest goes to the driver as
//! written. What they mean is [`super::tls`]'s job.

use std::fmt;

use super::super::location::is_postgres_url;

/// libpq's `sslmode`, every value but `allow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::store) enum SslMode {
    /// No TLS.
    Disable,
    /// TLS when the server offers it, with no check of its certificate.
    Prefer,
    /// TLS or nothing; the certificate is checked only when a CA file is
    /// there (then as `verify-ca`), as libpq does.
    Require,
    /// TLS, with a certificate signed by a trusted CA, for any host name.
    VerifyCa,
    /// TLS, with a certificate signed by a trusted CA for the host connected to.
    VerifyFull,
}

impl SslMode {
    const ALL: [(&'static str, SslMode); 5] = [
        ("disable", SslMode::Disable),
        ("prefer", SslMode::Prefer),
        ("require", SslMode::Require),
        ("verify-ca", SslMode::VerifyCa),
        ("verify-full", SslMode::VerifyFull),
    ];

    fn parse(value: &str) -> Result<SslMode, String> {
        if let Some((_, mode)) = SslMode::ALL.iter().find(|(name, _)| *name == value) {
            return Ok(*mode);
        }
        let known: Vec<&str> = SslMode::ALL.iter().map(|(name, _)| *name).collect();
        let hint = if value == "allow" {
            " (`allow` tries cleartext first, which the store never does: say `prefer`, or `disable` for no TLS)"
                .to_owned()
        } else {
            String::new()
        };
        Err(format!("`sslmode={value}` is not one of {}{hint}", known.join(", ")))
    }
}

impl fmt::Display for SslMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = SslMode::ALL.iter().find(|(_, mode)| mode == self).map_or("?", |(name, _)| name);
        f.write_str(name)
    }
}

/// The TLS keys a location gave, and the location without them.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::store) struct SslKeys {
    /// `sslmode`, when the location says one (libpq's default is `prefer`).
    pub mode: Option<SslMode>,
    /// `sslrootcert`: a PEM file of CAs, or `system` for the platform's.
    pub root_cert: Option<String>,
    /// The location with neither key, for the driver.
    pub rest: String,
}

/// Take `sslmode` and `sslrootcert` out of a URL or a `key=value` string;
/// an `sslmode` libpq does not know, or a key given twice, is an error
/// naming it.
pub(in crate::store) fn split(location: &str) -> Result<SslKeys, String> {
    let (pairs, rest) = if is_postgres_url(location) { from_url(location) } else { from_keywords(location) };
    let mut keys = SslKeys { mode: None, root_cert: None, rest };
    for (key, value) in pairs {
        let twice = || format!("`{key}` is given twice; give it once");
        match key {
            "sslmode" if keys.mode.is_none() => keys.mode = Some(SslMode::parse(&value)?),
            "sslrootcert" if keys.root_cert.is_none() => keys.root_cert = Some(value),
            _ => return Err(twice()),
        }
    }
    Ok(keys)
}

/// The keys taken out here; every other key goes to the driver.
const KEYS: [&str; 2] = ["sslmode", "sslrootcert"];

/// The URL's two keys (percent-decoded) and the URL without them.
fn from_url(url: &str) -> (Vec<(&'static str, String)>, String) {
    let Some((head, query)) = url.split_once('?') else { return (Vec::new(), url.to_owned()) };
    let mut taken = Vec::new();
    let mut kept = Vec::new();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_encoding::percent_decode_str(key).decode_utf8_lossy();
        match KEYS.into_iter().find(|k| *k == key) {
            Some(known) => taken.push((known, percent_encoding::percent_decode_str(value).decode_utf8_lossy().into())),
            None => kept.push(pair),
        }
    }
    let rest = if kept.is_empty() { head.to_owned() } else { format!("{head}?{}", kept.join("&")) };
    (taken, rest)
}

/// The keyword string's two keys and the string without them, libpq's way:
/// `key = value` with spaces allowed around `=`, and a value either
/// single-quoted (`\'` and `\\` escaped) or running to the next space.
fn from_keywords(s: &str) -> (Vec<(&'static str, String)>, String) {
    let mut taken = Vec::new();
    let mut rest = String::new();
    let mut at = 0;
    while let Some((start, end, key, value)) = next_pair(s, at) {
        match KEYS.into_iter().find(|k| *k == key) {
            Some(known) => taken.push((known, value)),
            None => {
                if !rest.is_empty() {
                    rest.push(' ');
                }
                rest.push_str(&s[start..end]);
            }
        }
        at = end;
    }
    // Whatever could not be read as a pair stays, for the driver to refuse in its words.
    let tail = s[at..].trim();
    if !tail.is_empty() {
        if !rest.is_empty() {
            rest.push(' ');
        }
        rest.push_str(tail);
    }
    (taken, rest)
}

/// The next `key=value` from byte `at`: its span, key and unescaped value.
fn next_pair(s: &str, at: usize) -> Option<(usize, usize, &str, String)> {
    let bytes = s.as_bytes();
    let skip = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let start = skip(at);
    let mut i = start;
    while i < bytes.len() && bytes[i] != b'=' && !bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    let key = &s[start..i];
    i = skip(i);
    if key.is_empty() || bytes.get(i) != Some(&b'=') {
        return None;
    }
    i = skip(i + 1);
    let mut value = String::new();
    let quoted = bytes.get(i) == Some(&b'\'');
    if quoted {
        i += 1;
    }
    let mut chars = s[i..].char_indices();
    let end = loop {
        match chars.next() {
            None if quoted => return None,
            None => break s.len(),
            Some((n, '\'')) if quoted => break i + n + 1,
            Some((n, c)) if !quoted && c.is_whitespace() => break i + n,
            Some((_, '\\')) => value.extend(chars.next().map(|(_, c)| c)),
            Some((_, c)) => value.push(c),
        }
    };
    Some((start, end, key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_s_tls_keys_are_taken_and_the_rest_kept_in_order() {
        let keys = split("postgres://m1nd:pw@db.example/m1nd?connect_timeout=2&sslmode=verify-full&sslrootcert=%2Fetc%2Fca%20x.pem&application_name=a").expect("keys");
        assert_eq!(keys.mode, Some(SslMode::VerifyFull));
        assert_eq!(keys.root_cert.as_deref(), Some("/etc/ca x.pem"));
        assert_eq!(keys.rest, "postgres://m1nd:pw@db.example/m1nd?connect_timeout=2&application_name=a");
        let only = split("postgresql://db/m1nd?sslmode=disable").expect("keys");
        assert_eq!((only.mode, only.rest.as_str()), (Some(SslMode::Disable), "postgresql://db/m1nd"));
        let none = split("postgres://db/m1nd").expect("keys");
        assert_eq!((none.mode, none.root_cert, none.rest.as_str()), (None, None, "postgres://db/m1nd"));
    }

    #[test]
    fn a_keyword_string_s_tls_keys_are_taken_quoted_or_not() {
        let keys =
            split(r"host=db.example  sslmode = verify-ca sslrootcert='/etc/my ca\'s.pem' dbname=m1nd").expect("keys");
        assert_eq!(keys.mode, Some(SslMode::VerifyCa));
        assert_eq!(keys.root_cert.as_deref(), Some("/etc/my ca's.pem"));
        assert_eq!(keys.rest, "host=db.example dbname=m1nd");
    }

    #[test]
    fn an_unknown_mode_or_a_key_given_twice_is_named() {
        let err = split("postgres://db/m1nd?sslmode=verify_full").expect_err("unknown");
        assert!(err.contains("`sslmode=verify_full`") && err.contains("verify-full"), "{err}");
        let err = split("host=db sslmode=allow").expect_err("allow");
        assert!(err.contains("`allow`") && err.contains("prefer"), "{err}");
        let err = split("postgres://db/m1nd?sslmode=require&sslmode=disable").expect_err("twice");
        assert!(err.contains("`sslmode` is given twice"), "{err}");
    }

    #[test]
    fn every_mode_reads_back_as_libpq_spells_it() {
        for (name, mode) in SslMode::ALL {
            assert_eq!(SslMode::parse(name), Ok(mode));
            assert_eq!(mode.to_string(), name);
        }
    }
}
