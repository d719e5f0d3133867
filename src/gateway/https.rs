//! The HTTP client for a Streamable HTTP upstream: TLS through rustls, and
//! a refused certificate told in words.
//!
//! # The invariants
//!
//! 1. The upstream's certificate is checked against the machine's roots
//!    (rustls-platform-verifier: the OS verifier on macOS and Windows, the
//!    system's CA bundle on Linux, which honours `SSL_CERT_FILE` and
//!    `SSL_CERT_DIR`) plus the CAs of `--upstream-ca`, if given. There is no
//!    switch that skips the check.
//! 2. A credential ([`super::credential`]) rides in the client's default
//!    headers, marked sensitive; the client follows no redirect, so it
//!    reaches the URL given and no other, and it is never sent over
//!    cleartext `http://` except to a loopback address, and then through
//!    no proxy.
//! 3. A handshake refused for its certificate, or for its credential (401),
//!    is reported with the upstream, the reason (unknown authority, expired,
//!    wrong name, ...; where the credential came from) and what to do.

// Without the `http-upstream` feature nothing sends a credential or builds a client.
#![cfg_attr(not(feature = "http-upstream"), allow(dead_code, unused_imports))]

use std::path::{Path, PathBuf};

use super::credential::Credential;

/// How to reach an HTTP upstream, beyond its URL.
#[derive(Clone, Debug, Default)]
pub struct HttpClientOptions {
    /// A PEM file of certificate authorities trusted besides the machine's roots.
    pub ca_file: Option<PathBuf>,
    /// Headers sent with every request to the upstream.
    pub credentials: Vec<Credential>,
}

/// Why the HTTP upstream could not be reached safely.
#[derive(Debug, thiserror::Error)]
pub enum HttpsError {
    #[error(
        "--upstream-ca {}: cannot read it: {source}; pass the PEM file of the certificate authority that signed \
         the upstream's certificate",
        .path.display()
    )]
    CaRead { path: PathBuf, source: std::io::Error },
    #[error(
        "--upstream-ca {}: no PEM certificate in it (or one that does not parse); pass the CA certificate as PEM \
         (`-----BEGIN CERTIFICATE-----`)",
        .path.display()
    )]
    CaParse { path: PathBuf },
    #[error("--upstream {upstream}: not an http:// or https:// URL")]
    NotHttp { upstream: String },
    #[error(
        "refusing to send the upstream credential to `{upstream}` over cleartext http://, where anyone on the \
         way could read it; use https://, or reach the upstream on a loopback address"
    )]
    CleartextCredential { upstream: String },
    #[error(
        "cannot set up the HTTPS client for `{upstream}`: {message}; if no CA certificates were found, install \
         the system's CA bundle (the ca-certificates package) or pass --upstream-ca FILE"
    )]
    Client { upstream: String, message: String },
    #[error("refused the upstream `{upstream}` at the TLS handshake: {reason}; {remedy}")]
    Tls { upstream: String, reason: String, remedy: String },
    #[error(
        "the upstream `{upstream}` asks for a credential (HTTP 401); pass its token with --upstream-bearer-env \
         NAME or --upstream-bearer-file FILE (or an API-key header with --upstream-header-env HEADER=NAME); \
         the gateway does not run OAuth flows itself"
    )]
    CredentialNeeded { upstream: String },
    #[error(
        "the upstream `{upstream}` refused the credential from {sources} (HTTP 401 or 403); check that it is this \
         upstream's token, that it has not expired, and that it grants the access the tools need"
    )]
    CredentialRefused { upstream: String, sources: String },
}

/// `url` as it may be shown: no user name or password, no query (either may
/// hold a credential), at most 120 characters.
pub(super) fn without_secrets(url: &str) -> String {
    let (url, had_query) = match url.split_once('?') {
        Some((before, _)) => (before, true),
        None => (url, false),
    };
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let authority = match authority.rsplit_once('@') {
        Some((_, host)) => format!("…@{host}"),
        None => authority.to_owned(),
    };
    let sep = if scheme.is_empty() { "" } else { "://" };
    let shown = format!("{scheme}{sep}{authority}{path}{}", if had_query { "?…" } else { "" });
    shown.chars().take(120).collect()
}

/// The reqwest client for `url`: rustls with ring, the platform's roots and
/// the extra CAs, the credentials as sensitive default headers, no redirects.
#[cfg(feature = "http-upstream")]
pub(super) fn client(url: &str, shown: &str, options: &HttpClientOptions) -> Result<reqwest::Client, HttpsError> {
    let parsed = reqwest::Url::parse(url).map_err(|_| HttpsError::NotHttp { upstream: shown.to_owned() })?;
    match parsed.scheme() {
        "https" => {}
        "http" if options.credentials.is_empty() || is_loopback(&parsed) => {}
        "http" => return Err(HttpsError::CleartextCredential { upstream: shown.to_owned() }),
        _ => return Err(HttpsError::NotHttp { upstream: shown.to_owned() }),
    }
    let mut headers = reqwest::header::HeaderMap::new();
    for credential in &options.credentials {
        headers.insert(credential.header.clone(), credential.value.header_value());
    }
    let mut builder = builder(&parsed).default_headers(headers);
    if parsed.scheme() == "http" {
        // A proxy would read a cleartext request whole, credential included
        // (over https:// it sees only the CONNECT line: host and port).
        if !options.credentials.is_empty() {
            builder = builder.no_proxy();
        }
    } else if let Some(path) = &options.ca_file {
        builder = builder.tls_certs_merge(ca_certificates(path)?);
    }
    builder.build().map_err(|e| HttpsError::Client { upstream: shown.to_owned(), message: chain(&e) })
}

/// What every HTTP client of m1nd starts from (the gateway's upstreams, a
/// JWKS URL): rustls with ring and the machine's roots, no idle
/// connection kept, no redirect followed; over `http://`, no roots loaded.
#[cfg(feature = "http-upstream")]
pub(crate) fn builder(parsed: &reqwest::Url) -> reqwest::ClientBuilder {
    // reqwest's rustls backend takes the process's default crypto provider;
    // ring is the one built in (no cmake, no nasm). An error means one is
    // already installed, which is as good.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = reqwest::Client::builder()
        // As rmcp's own client: no idle pooling, against Delayed-ACK stalls.
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none());
    if parsed.scheme() == "http" {
        // No TLS will be spoken (and no redirect followed): no roots to
        // load, so a machine without a CA bundle still reaches http://.
        return builder.tls_certs_only(Vec::new());
    }
    builder
}

/// Every certificate in the PEM file at `path`; at least one.
#[cfg(feature = "http-upstream")]
fn ca_certificates(path: &Path) -> Result<Vec<reqwest::Certificate>, HttpsError> {
    let pem = std::fs::read(path).map_err(|source| HttpsError::CaRead { path: path.to_owned(), source })?;
    let certs =
        reqwest::Certificate::from_pem_bundle(&pem).map_err(|_| HttpsError::CaParse { path: path.to_owned() })?;
    if certs.is_empty() {
        return Err(HttpsError::CaParse { path: path.to_owned() });
    }
    Ok(certs)
}

/// 127.0.0.0/8, ::1 or `localhost`: what is sent there never crosses a
/// network (a credential here, a JWKS fetched in `transport::http::identity`).
#[cfg(feature = "http-upstream")]
pub(crate) fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else { return false };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(feature = "http-upstream")]
/// The TLS refusal inside a failed handshake, if that is what failed.
pub(super) fn tls_refusal(error: &(dyn std::error::Error + 'static), upstream: &str) -> Option<HttpsError> {
    let refused = find_rustls(error)?;
    let (reason, remedy) = explain(refused, upstream);
    Some(HttpsError::Tls { upstream: upstream.to_owned(), reason, remedy })
}

/// Each distinct message along `error`'s chain of causes, joined by `: `.
/// rmcp and reqwest keep the cause out of their own `Display`.
pub(crate) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(error);
    for _ in 0..16 {
        let Some(error) = next else { break };
        let text = error.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = cause(error);
    }
    parts.join(": ")
}

/// The next link of the chain, looking inside the wrappers whose `source`
/// skips their content: rmcp's transport errors and `std::io::Error`.
fn cause<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a (dyn std::error::Error + 'static)> {
    if let Some(rmcp::service::ClientInitializeError::TransportError { error, .. }) = error.downcast_ref() {
        return Some(error);
    }
    #[cfg(feature = "http-upstream")]
    if let Some(rmcp::transport::streamable_http_client::StreamableHttpError::Client(inner)) =
        error.downcast_ref::<rmcp::transport::streamable_http_client::StreamableHttpError<reqwest::Error>>()
    {
        return Some(inner);
    }
    if let Some(io) = error.downcast_ref::<std::io::Error>()
        && let Some(inner) = io.get_ref()
    {
        return Some(inner);
    }
    error.source()
}

/// The upstream's 401 or 403 inside a failed handshake, told as what to do.
#[cfg(feature = "http-upstream")]
pub(super) fn auth_refusal(
    error: &(dyn std::error::Error + 'static),
    upstream: &str,
    options: &HttpClientOptions,
) -> Option<HttpsError> {
    use rmcp::transport::streamable_http_client::StreamableHttpError as E;
    find::<E<reqwest::Error>>(error, |e| matches!(e, E::AuthRequired(_) | E::InsufficientScope(_)))?;
    let upstream = upstream.to_owned();
    if options.credentials.is_empty() {
        return Some(HttpsError::CredentialNeeded { upstream });
    }
    let sources: Vec<String> = options.credentials.iter().map(|c| c.source.to_string()).collect();
    Some(HttpsError::CredentialRefused { upstream, sources: sources.join(" and ") })
}

#[cfg(feature = "http-upstream")]
fn find_rustls<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    find::<rustls::Error>(error, |_| true)
}

/// The first link of `error`'s chain that is a `T` and passes `wanted`.
fn find<'a, T: std::error::Error + 'static>(
    error: &'a (dyn std::error::Error + 'static),
    wanted: impl Fn(&T) -> bool,
) -> Option<&'a T> {
    let mut next = Some(error);
    for _ in 0..16 {
        let error = next?;
        if let Some(found) = error.downcast_ref::<T>().filter(|found| wanted(found)) {
            return Some(found);
        }
        next = cause(error);
    }
    None
}

#[cfg(feature = "http-upstream")]
/// What was wrong with the certificate, and what the user can do.
fn explain(error: &rustls::Error, upstream: &str) -> (String, String) {
    use rustls::CertificateError as C;
    let ca = "if the upstream's certificate comes from a private certificate authority, pass that CA's \
              certificate with --upstream-ca FILE (PEM); if it is a public one, check that this machine's CA \
              bundle is installed and current; the gateway never skips the check";
    let Some(certificate) = (match error {
        rustls::Error::InvalidCertificate(certificate) => Some(certificate),
        _ => None,
    }) else {
        return (
            format!("the TLS handshake failed ({error})"),
            format!("check that `{upstream}` serves HTTPS on that port"),
        );
    };
    match certificate {
        C::UnknownIssuer => {
            ("its certificate is signed by a certificate authority this machine does not trust".into(), ca.into())
        }
        C::Expired | C::ExpiredContext { .. } => (
            format!("its certificate has expired ({certificate})"),
            "the upstream's certificate must be renewed; the gateway does not connect past an expired one".into(),
        ),
        C::NotValidYet | C::NotValidYetContext { .. } => (
            format!("its certificate is not valid yet ({certificate})"),
            "check this machine's clock, or wait until the certificate is valid".into(),
        ),
        C::NotValidForName | C::NotValidForNameContext { .. } => (
            format!("its certificate is not valid for the host name in the URL ({certificate})"),
            "reach the upstream by a name its certificate lists".into(),
        ),
        other => (format!("its certificate was refused ({other})"), ca.into()),
    }
}

#[cfg(all(test, feature = "http-upstream"))]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_user_password_or_query() {
        for (url, shown) in [
            ("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"),
            ("https://user:pa55@mcp.example.com/mcp", "https://…@mcp.example.com/mcp"),
            ("https://mcp.example.com/mcp?api_key=s3cret", "https://mcp.example.com/mcp?…"),
            ("https://a@b@mcp.example.com", "https://…@mcp.example.com"),
        ] {
            assert_eq!(without_secrets(url), shown);
        }
    }

    #[test]
    fn a_credential_is_refused_over_cleartext_beyond_loopback_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        std::fs::write(&path, "tok-0123456789").unwrap();
        let credentials = vec![Credential::bearer_from_file(&path).unwrap()];
        let options = HttpClientOptions { ca_file: None, credentials };
        for url in ["http://127.0.0.1:8080/mcp", "http://localhost/mcp", "http://[::1]:9/mcp", "https://example.com/"] {
            assert!(client(url, url, &options).is_ok(), "{url}");
        }
        for url in ["http://example.com/mcp", "http://10.0.0.1/mcp", "http://localhost.example.com/"] {
            assert!(matches!(client(url, url, &options), Err(HttpsError::CleartextCredential { .. })), "{url}");
        }
        assert!(client("http://example.com/mcp", "", &HttpClientOptions::default()).is_ok());
        assert!(matches!(client("ftp://example.com/", "", &options), Err(HttpsError::NotHttp { .. })));
    }

    #[test]
    fn a_ca_file_without_a_certificate_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, "not a certificate\n").unwrap();
        let options = HttpClientOptions { ca_file: Some(path.clone()), credentials: Vec::new() };
        let error = client("https://example.com/", "", &options).unwrap_err().to_string();
        assert!(error.contains("no PEM certificate") && error.contains("ca.pem"), "{error}");
        let options = HttpClientOptions { ca_file: Some(dir.path().join("missing.pem")), credentials: Vec::new() };
        let error = client("https://example.com/", "", &options).unwrap_err().to_string();
        assert!(error.contains("cannot read it") && error.contains("missing.pem"), "{error}");
    }
}
