//! TLS to the database, when the location asks for it (`sslmode=require`).
//!
//! The server's certificate is always verified, chain and name, which is
//! stricter than libpq's `require` (libpq checks neither unless told
//! `verify-full`): a store's connection carries every write, and a
//! connection anyone in the middle could take would not be TLS worth the
//! name. The roots are the ones the HTTP upstream trusts (the platform's
//! verifier: the system's CA bundle on Linux), unless `PGSSLROOTCERT` names
//! a PEM file of CAs to trust instead, as libpq reads it. A location
//! without `sslmode=require` (libpq's default is `prefer`) connects without
//! TLS: a `prefer` that fell back to plain text would protect nothing.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls_platform_verifier::BuilderVerifierExt;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::super::error::StoreError;

/// The variable naming the CAs to trust instead of the platform's, as in libpq.
pub const ROOT_CERT_ENV: &str = "PGSSLROOTCERT";

/// A TLS connector for the store at `at`, trusting `roots` (a PEM file) or,
/// without one, the platform's roots.
pub(super) fn connector(at: &Path, roots: Option<&Path>) -> Result<MakeRustlsConnect, StoreError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let refuse = |message: String| StoreError::Sql { path: at.to_owned(), op: "set up TLS to", message };
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| refuse(e.to_string()))?;
    let config = match roots {
        Some(file) => {
            let mut store = rustls::RootCertStore::empty();
            let certs = CertificateDer::pem_file_iter(file)
                .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                .map_err(|e| refuse(format!("cannot read {ROOT_CERT_ENV}={}: {e}", file.display())))?;
            let (added, _) = store.add_parsable_certificates(certs);
            if added == 0 {
                return Err(refuse(format!(
                    "{ROOT_CERT_ENV}={} holds no CA certificate; give a PEM file of the CAs to trust",
                    file.display()
                )));
            }
            builder.with_root_certificates(store).with_no_client_auth()
        }
        None => builder.with_platform_verifier().map_err(|e| refuse(e.to_string()))?.with_no_client_auth(),
    };
    Ok(MakeRustlsConnect::new(config))
}

/// What to say when connecting failed in the TLS handshake: the server's
/// certificate was not trusted, or TLS could not be agreed. Not worth a
/// retry: the same server will be refused the same way.
pub(super) fn handshake_refusal(e: &postgres::Error) -> Option<String> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
    while let Some(error) = source {
        let tls = error.downcast_ref::<rustls::Error>().or_else(|| {
            let io = error.downcast_ref::<std::io::Error>()?;
            io.get_ref()?.downcast_ref::<rustls::Error>()
        });
        if let Some(tls) = tls {
            return Some(format!(
                "the TLS handshake failed ({tls}): the server's certificate must be signed by a CA this machine \
                 trusts and name the host connected to; to trust another CA, name its PEM file with {ROOT_CERT_ENV}"
            ));
        }
        source = error.source();
    }
    None
}
