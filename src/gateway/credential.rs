//! The upstream's credential: where it is read from, and how it stays unsaid.
//!
//! # The invariants
//!
//! 1. A credential is read once, from an environment variable or a file
//!    named on the command line, and then lives only in a [`Secret`] (whose
//!    `Debug` prints `<redacted>`) and, marked sensitive, in the upstream's
//!    HTTP client. Errors name where it came from (the variable, the file),
//!    never what it holds; `--help` shows no default for it.
//! 2. It goes to the upstream URL and nowhere else: the client follows no
//!    redirect and sends no credential over cleartext `http://` beyond
//!    loopback (see [`super::https`]); the downstream side never holds it.

// Without the `http-upstream` feature nothing sends a credential or builds a client.
#![cfg_attr(not(feature = "http-upstream"), allow(dead_code, unused_imports))]

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use axum::http::{HeaderName, HeaderValue, header};

/// Headers the MCP transport sets itself, which a credential may not replace.
const TRANSPORT_HEADERS: [&str; 10] = [
    "host",
    "content-type",
    "content-length",
    "accept",
    "connection",
    "transfer-encoding",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
];

/// The longest credential file read: a token is short, and a wrong path
/// (a log, a disk image) should fail at once rather than fill memory.
const MAX_FILE_BYTES: u64 = 64 * 1024;

/// Where a credential's value is read from.
#[derive(Clone, Debug)]
pub enum Source {
    /// An environment variable of the gateway's own process.
    Env(OsString),
    /// A file; one trailing line break is not part of the value.
    File(PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Env(name) => write!(f, "the variable {}", name.to_string_lossy()),
            Source::File(path) => write!(f, "the file {}", path.display()),
        }
    }
}

/// A header value that is never printed: `Debug` says `<redacted>`, and the
/// value itself is marked sensitive for the HTTP stack.
#[derive(Clone)]
pub struct Secret(HeaderValue);

impl Secret {
    pub(super) fn header_value(&self) -> HeaderValue {
        self.0.clone()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// One header the gateway sends with every request to the upstream, and
/// only there.
#[derive(Clone, Debug)]
pub struct Credential {
    pub(super) header: HeaderName,
    pub(super) value: Secret,
    /// Where the value came from, for messages.
    pub source: Source,
}

/// Why a credential could not be read. No variant holds the value.
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    #[error(
        "{flag} {name}: the variable {name} is not set (or is empty) in the gateway's environment; export it \
         where the gateway starts, or read the credential from a file with --upstream-bearer-file"
    )]
    EnvMissing { flag: &'static str, name: String },
    #[error("{flag} {name}: the variable {name} is not valid UTF-8 text")]
    EnvNotText { flag: &'static str, name: String },
    #[error("{flag} {}: cannot read it: {source}", .path.display())]
    FileRead { flag: &'static str, path: PathBuf, source: std::io::Error },
    #[error("{flag} {}: the file is empty", .path.display())]
    FileEmpty { flag: &'static str, path: PathBuf },
    #[error("{flag} {}: the file is over {MAX_FILE_BYTES} bytes; is it the right file?", .path.display())]
    FileTooLarge { flag: &'static str, path: PathBuf },
    #[error(
        "{flag}: the credential in {from} holds a character an HTTP header cannot carry (a control character \
         or a line break inside it); store the token alone, on one line"
    )]
    NotHeaderText { flag: &'static str, from: Source },
    #[error("--upstream-header-env {spec:?}: write HEADER=VARIABLE, e.g. X-Api-Key=UPSTREAM_API_KEY")]
    BadSpec { spec: String },
    #[error("--upstream-header-env: {name:?} is not an HTTP header name (letters, digits and -)")]
    BadHeaderName { name: String },
    #[error(
        "--upstream-header-env: {name} carries a bearer token; pass it with --upstream-bearer-env or \
         --upstream-bearer-file instead"
    )]
    AuthorizationHeader { name: String },
    #[error("--upstream-header-env: {name} is set by the MCP transport itself and cannot be replaced")]
    TransportHeader { name: String },
}

impl Credential {
    /// `Authorization: Bearer <the variable's value>` (`--upstream-bearer-env`).
    pub fn bearer_from_env(name: impl Into<OsString>) -> Result<Self, CredentialError> {
        let flag = "--upstream-bearer-env";
        let name = name.into();
        let token = read_env(flag, &name)?;
        Self::bearer(flag, &token, Source::Env(name))
    }

    /// `Authorization: Bearer <the file's first line>` (`--upstream-bearer-file`).
    pub fn bearer_from_file(path: impl Into<PathBuf>) -> Result<Self, CredentialError> {
        let flag = "--upstream-bearer-file";
        let path = path.into();
        let token = read_file(flag, &path)?;
        Self::bearer(flag, &token, Source::File(path))
    }

    /// `HEADER: <the variable's value>`, from `HEADER=VARIABLE` (`--upstream-header-env`).
    pub fn header_from_env(spec: &str) -> Result<Self, CredentialError> {
        let flag = "--upstream-header-env";
        let (name, variable) = spec
            .split_once('=')
            .filter(|(n, v)| !n.is_empty() && !v.is_empty())
            .ok_or_else(|| CredentialError::BadSpec { spec: spec.to_owned() })?;
        let header =
            HeaderName::try_from(name.trim()).map_err(|_| CredentialError::BadHeaderName { name: name.to_owned() })?;
        if header == header::AUTHORIZATION || header == header::PROXY_AUTHORIZATION {
            return Err(CredentialError::AuthorizationHeader { name: name.to_owned() });
        }
        if TRANSPORT_HEADERS.contains(&header.as_str()) {
            return Err(CredentialError::TransportHeader { name: name.to_owned() });
        }
        let variable = OsString::from(variable);
        let value = read_env(flag, &variable)?;
        let source = Source::Env(variable);
        Ok(Self { header, value: secret(flag, &value, &source)?, source })
    }

    fn bearer(flag: &'static str, token: &str, source: Source) -> Result<Self, CredentialError> {
        let value = secret(flag, &format!("Bearer {token}"), &source)?;
        Ok(Self { header: header::AUTHORIZATION, value, source })
    }

    /// The header this credential is sent in.
    pub fn header(&self) -> &str {
        self.header.as_str()
    }
}

fn read_env(flag: &'static str, name: &OsString) -> Result<String, CredentialError> {
    let shown = || name.to_string_lossy().into_owned();
    match std::env::var_os(name) {
        None => Err(CredentialError::EnvMissing { flag, name: shown() }),
        Some(value) => {
            let value = value.into_string().map_err(|_| CredentialError::EnvNotText { flag, name: shown() })?;
            if value.trim().is_empty() {
                return Err(CredentialError::EnvMissing { flag, name: shown() });
            }
            Ok(value)
        }
    }
}

fn read_file(flag: &'static str, path: &PathBuf) -> Result<String, CredentialError> {
    use std::io::Read;
    let read = |source| CredentialError::FileRead { flag, path: path.clone(), source };
    let file = std::fs::File::open(path).map_err(read)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(read)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(CredentialError::FileTooLarge { flag, path: path.clone() });
    }
    let source = Source::File(path.clone());
    let text = String::from_utf8(bytes).map_err(|_| CredentialError::NotHeaderText { flag, from: source })?;
    // One trailing line break (as `echo` and editors write) is not part of the token.
    let text = text.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(&text);
    if text.trim().is_empty() {
        return Err(CredentialError::FileEmpty { flag, path: path.clone() });
    }
    Ok(text.to_owned())
}

/// The value as a sensitive header value; refused (without echoing it) when
/// a header cannot carry it.
fn secret(flag: &'static str, value: &str, source: &Source) -> Result<Secret, CredentialError> {
    let mut value =
        HeaderValue::from_str(value).map_err(|_| CredentialError::NotHeaderText { flag, from: source.clone() })?;
    value.set_sensitive(true);
    Ok(Secret(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "tok-3f1c9a7e5d";

    #[test]
    fn debug_output_never_shows_the_value() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, format!("{TOKEN}\n")).unwrap();
        let credential = Credential::bearer_from_file(&path).unwrap();
        let shown = format!("{credential:?} {:?}", credential.value.header_value());
        assert!(!shown.contains(TOKEN), "{shown}");
        assert!(shown.contains("<redacted>"), "{shown}");
        assert!(credential.value.header_value().is_sensitive());
        // The trailing line break is not part of the token.
        assert_eq!(credential.value.header_value().as_bytes(), format!("Bearer {TOKEN}").as_bytes());
    }

    #[test]
    fn a_value_a_header_cannot_carry_is_refused_without_echoing_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, format!("{TOKEN}\nsecond line {TOKEN}\n")).unwrap();
        let error = Credential::bearer_from_file(&path).unwrap_err();
        let shown = format!("{error} {error:?}");
        assert!(matches!(error, CredentialError::NotHeaderText { .. }), "{shown}");
        assert!(!shown.contains(TOKEN), "{shown}");
        assert!(shown.contains(&path.display().to_string()), "{shown}");
    }

    #[test]
    fn an_empty_or_missing_source_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty");
        std::fs::write(&path, "\n").unwrap();
        assert!(matches!(Credential::bearer_from_file(&path), Err(CredentialError::FileEmpty { .. })));
        let missing = dir.path().join("missing");
        let error = Credential::bearer_from_file(&missing).unwrap_err().to_string();
        assert!(error.contains("--upstream-bearer-file") && error.contains("missing"), "{error}");
        let error = Credential::bearer_from_env("M1ND_TEST_SURELY_UNSET_VARIABLE").unwrap_err().to_string();
        assert!(error.contains("M1ND_TEST_SURELY_UNSET_VARIABLE is not set"), "{error}");
    }

    #[test]
    fn a_generic_header_may_not_replace_the_transport_or_authorization() {
        for (spec, expected) in [
            ("Authorization=X", "--upstream-bearer-env"),
            ("Mcp-Session-Id=X", "set by the MCP transport"),
            ("Host=X", "set by the MCP transport"),
            ("X-Api-Key", "write HEADER=VARIABLE"),
            ("bad header=X", "not an HTTP header name"),
        ] {
            let error = Credential::header_from_env(spec).unwrap_err().to_string();
            assert!(error.contains(expected), "{spec}: {error}");
        }
    }
}
