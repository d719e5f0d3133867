//! TLS to the database, with libpq's `sslmode` and `sslrootcert` meanings.
//!
//! | `sslmode` | TLS | the server's certificate |
//! |---|---|---|
//! | `disable` | never | — |
//! | `prefer` (the default) | when the server offers it; always to a host off this machine | not checked, unless a CA file is there |
//! | `require` | always | not checked, unless a CA file is there (then as `verify-ca`) |
//! | `verify-ca` | always | signed by a trusted CA |
//! | `verify-full` | always | signed by a trusted CA, for the host connected to |
//!
//! The CAs are `sslrootcert` (a PEM file, or `system` for this machine's
//! roots), else `PGSSLROOTCERT`, else `~/.postgresql/root.crt` when it
//! exists, as libpq reads them. One departure from libpq, on purpose:
//! under `prefer`, a host that is not this machine (loopback or a Unix
//! socket) must speak TLS, since the connection carries every write of the
//! store; cleartext over a network takes an explicit `sslmode=disable`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use postgres::config::{Host, SslMode as DriverMode};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::super::error::StoreError;
use super::ssl_keys::{SslKeys, SslMode};
use super::verifiers::{AnyCertificate, AnyName};

/// The variable naming the CAs to trust, as in libpq.
pub const ROOT_CERT_ENV: &str = "PGSSLROOTCERT";

/// The `sslrootcert` value that means this machine's roots (libpq 16's).
const SYSTEM: &str = "system";

/// How to connect: in cleartext, or through TLS (`required`, or only when
/// the server offers it).
pub(super) enum Plan {
    Cleartext,
    Tls { connector: MakeRustlsConnect, required: bool },
}

impl Plan {
    /// The driver's mode for this plan.
    pub(super) fn driver_mode(&self) -> DriverMode {
        match self {
            Plan::Cleartext => DriverMode::Disable,
            Plan::Tls { required: true, .. } => DriverMode::Require,
            Plan::Tls { required: false, .. } => DriverMode::Prefer,
        }
    }
}

/// Where the CAs to trust come from.
enum Roots {
    File(PathBuf),
    System,
}

/// The plan for the store at `at`: its TLS keys, the hosts it names, and
/// the CA file to trust when the location names none (`PGSSLROOTCERT`, else
/// `~/.postgresql/root.crt`: [`home_root_cert`]).
pub(super) fn plan(
    at: &Path,
    keys: &SslKeys,
    hosts: &[Host],
    default_roots: Option<&Path>,
) -> Result<Plan, StoreError> {
    let refuse = |message: String| StoreError::Sql { path: at.to_owned(), op: "set up TLS to", message };
    let mode = keys.mode.unwrap_or(SslMode::Prefer);
    if mode == SslMode::Disable {
        return Ok(Plan::Cleartext);
    }
    let roots = match (keys.root_cert.as_deref(), default_roots) {
        (Some(SYSTEM), _) => Some(Roots::System),
        (Some(file), _) => Some(Roots::File(PathBuf::from(file))),
        (None, file) => file.map(|file| Roots::File(file.to_owned())),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = match (mode, roots) {
        (SslMode::VerifyCa | SslMode::VerifyFull, None) => {
            return Err(refuse(format!(
                "sslmode={mode} checks the server's certificate against CAs to trust, and none is named: add \
                 sslrootcert=FILE (a PEM file of CAs) or sslrootcert=system (this machine's roots) to the \
                 location, or set {ROOT_CERT_ENV}"
            )));
        }
        (SslMode::VerifyFull, Some(roots)) => verifier(&provider, &roots).map_err(refuse)?,
        (_, Some(roots)) => Arc::new(AnyName(verifier(&provider, &roots).map_err(refuse)?)),
        (_, None) => AnyCertificate::new(&provider),
    };
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| refuse(e.to_string()))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let required = mode != SslMode::Prefer || !hosts.iter().all(is_this_machine);
    Ok(Plan::Tls { connector: MakeRustlsConnect::new(config), required })
}

/// rustls' full verifier over `roots`.
fn verifier(provider: &Arc<CryptoProvider>, roots: &Roots) -> Result<Arc<dyn ServerCertVerifier>, String> {
    match roots {
        Roots::System => rustls_platform_verifier::Verifier::new(provider.clone())
            .map(|v| Arc::new(v) as Arc<dyn ServerCertVerifier>)
            .map_err(|e| format!("cannot read this machine's roots (sslrootcert=system): {e}")),
        Roots::File(file) => {
            let shown = file.display();
            let certs = CertificateDer::pem_file_iter(file)
                .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                .map_err(|e| format!("cannot read the CA file {shown} (sslrootcert or {ROOT_CERT_ENV}): {e}"))?;
            let mut store = rustls::RootCertStore::empty();
            if store.add_parsable_certificates(certs).0 == 0 {
                return Err(format!(
                    "the CA file {shown} holds no CA certificate; give a PEM file of the CAs to trust"
                ));
            }
            WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider.clone())
                .build()
                .map(|v| v as Arc<dyn ServerCertVerifier>)
                .map_err(|e| e.to_string())
        }
    }
}

/// libpq's default CA file, when it exists.
pub(super) fn home_root_cert() -> Option<PathBuf> {
    let file = PathBuf::from(std::env::var_os("HOME")?).join(".postgresql/root.crt");
    file.is_file().then_some(file)
}

/// Whether `host` is this machine: a Unix socket, `localhost`, or a loopback address.
fn is_this_machine(host: &Host) -> bool {
    match host {
        Host::Tcp(name) => {
            let bare = name.trim_start_matches('[').trim_end_matches(']');
            name.eq_ignore_ascii_case("localhost") || bare.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        Host::Unix(_) => true,
    }
}

/// What to say when connecting failed in TLS: the server's certificate was
/// not trusted, TLS could not be agreed, or the server offers none. Not
/// worth a retry: the same server will be refused the same way.
pub(super) fn handshake_refusal(e: &postgres::Error, mode: Option<SslMode>) -> Option<String> {
    let mode = mode.unwrap_or(SslMode::Prefer);
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(error) = source {
        let tls = error.downcast_ref::<rustls::Error>().or_else(|| {
            let io = error.downcast_ref::<std::io::Error>()?;
            io.get_ref()?.downcast_ref::<rustls::Error>()
        });
        if let Some(tls) = tls {
            return Some(format!(
                "the TLS handshake failed under sslmode={mode} ({tls}): the server's certificate must be signed \
                 by a CA named in sslrootcert (or {ROOT_CERT_ENV}){}",
                if mode == SslMode::VerifyFull { " and name the host connected to" } else { "" }
            ));
        }
        if error.to_string() == "server does not support TLS" {
            return Some(format!(
                "the server offers no TLS, and sslmode={mode} {}: turn on ssl in the server's settings, or \
                 say sslmode=disable to send the store's data in cleartext",
                if mode == SslMode::Prefer { "needs it to a host off this machine" } else { "needs it" }
            ));
        }
        source = error.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::pg_wire::ssl_keys::split;

    fn plan_of(location: &str) -> Result<Plan, StoreError> {
        let keys = split(location).expect("keys");
        let config: postgres::Config = keys.rest.parse().expect("a location");
        plan(Path::new("db"), &keys, config.get_hosts(), None)
    }

    #[test]
    fn prefer_is_the_default_and_needs_tls_only_off_this_machine() {
        for (location, want) in [
            ("postgres://m1nd@127.0.0.1/m1nd", DriverMode::Prefer),
            ("postgres://m1nd@localhost/m1nd", DriverMode::Prefer),
            ("postgres://m1nd@[::1]/m1nd", DriverMode::Prefer),
            ("host=/var/run/postgresql dbname=m1nd", DriverMode::Prefer),
            ("postgres://m1nd@db.internal/m1nd", DriverMode::Require),
            ("postgres://m1nd@10.0.0.7/m1nd?sslmode=prefer", DriverMode::Require),
            ("postgres://m1nd@localhost,db.internal/m1nd", DriverMode::Require),
            ("postgres://m1nd@db.internal/m1nd?sslmode=disable", DriverMode::Disable),
            ("postgres://m1nd@127.0.0.1/m1nd?sslmode=require", DriverMode::Require),
        ] {
            let got = plan_of(location).unwrap_or_else(|e| panic!("{location}: {e}")).driver_mode();
            assert_eq!(got, want, "{location}");
        }
    }

    #[test]
    fn verify_modes_without_cas_say_how_to_name_them() {
        for mode in ["verify-ca", "verify-full"] {
            let err = plan_of(&format!("postgres://db.internal/m1nd?sslmode={mode}")).err().expect("no CAs");
            let text = err.to_string();
            assert!(text.contains(&format!("sslmode={mode}")) && text.contains("sslrootcert=system"), "{text}");
        }
        let err = plan_of("postgres://db.internal/m1nd?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem")
            .err()
            .expect("a missing CA file");
        assert!(err.to_string().contains("cannot read the CA file /nonexistent/ca.pem"), "{err}");
    }
}
