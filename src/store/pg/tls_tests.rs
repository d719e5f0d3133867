//! TLS to a test server of its own (`test_server::Cluster`), in each of
//! libpq's `sslmode`s: first with `ssl` off, then on, with a certificate
//! for `localhost` (not `127.0.0.1`) from a CA made here.

use std::os::unix::fs::{PermissionsExt, chown};
use std::path::Path;
use std::time::{Duration, Instant};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};

use super::super::error::StoreError;
use super::super::location::Location;
use super::super::pg_wire::conn::connect_trusting;
use super::scratch::Scratch;
use super::store_tests::password_of;
use super::test_server::Cluster;

/// A CA's certificate as `NAME.pem` in `dir`, and its issuer.
fn ca(dir: &Path, name: &str) -> Issuer<'static, KeyPair> {
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, format!("m1nd test CA {name}"));
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let key = KeyPair::generate().expect("CA key");
    std::fs::write(dir.join(format!("{name}.pem")), ca.self_signed(&key).expect("CA").pem()).expect("CA file");
    Issuer::new(ca, key)
}

/// The server's certificate (for `localhost` only) and key, signed by
/// `issuer`, as files the server's user `owner` reads.
fn server_certificate(dir: &Path, issuer: &Issuer<'_, KeyPair>, owner: u32) {
    let mut leaf = CertificateParams::new(vec!["localhost".to_owned()]).expect("params");
    leaf.distinguished_name.push(DnType::CommonName, "localhost");
    let key = KeyPair::generate().expect("key");
    let cert = leaf.signed_by(&key, issuer).expect("sign");
    std::fs::write(dir.join("server.crt"), cert.pem()).expect("server.crt");
    std::fs::write(dir.join("server.key"), key.serialize_pem()).expect("server.key");
    // The server reads them as its own user, and takes a key only its owner can read.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).expect("chmod dir");
    std::fs::set_permissions(dir.join("server.key"), std::fs::Permissions::from_mode(0o600)).expect("chmod key");
    for file in ["server.crt", "server.key"] {
        chown(dir.join(file), Some(owner), None).expect("chown to the server's user");
    }
}

/// Whether this session is TLS, in the server's own words.
const SSL_IN_USE: &str = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()";

/// Connect to `db` on `host` with `keys` added to its location: whether
/// the session is TLS, or why it was refused.
fn tls_of(db: &Scratch, host: &str, keys: &str) -> Result<bool, StoreError> {
    let server = db.server().replacen("@127.0.0.1:", &format!("@{host}:"), 1);
    let joint = if server.contains('?') { '&' } else { '?' };
    let location = if keys.is_empty() { server } else { format!("{server}{joint}{keys}") };
    let Location::Postgres(url) = db.location_on(&location) else { panic!("a database location") };
    let conn = connect_trusting(&url, None)?;
    let rows = conn.query(SSL_IN_USE, &[]).expect("pg_stat_ssl");
    Ok(rows.iter().any(|r| r.get::<_, bool>(0)))
}

/// The refusal's text, which never holds the password.
fn refusal(db: &Scratch, host: &str, keys: &str) -> String {
    let err = tls_of(db, host, keys).map(|tls| format!("connected, TLS {tls}")).expect_err(keys);
    assert!(matches!(err, StoreError::Sql { .. }), "not worth a retry: {err:?}");
    let text = err.to_string();
    assert!(!text.contains(&password_of(db.server())), "{text}");
    text
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn every_sslmode_means_what_it_means_to_libpq() {
    // A server of its own: the test turns TLS on in its settings.
    let server = Cluster::up();
    let db = Scratch::on(&server.url);
    let dir = tempfile::Builder::new().prefix("m1nd-tls-").tempdir().expect("dir");
    let ca_file = |name: &str| dir.path().join(format!("{name}.pem")).display().to_string();

    // No TLS on the server: `prefer` (the default) falls back on loopback; `require` refuses.
    assert!(!tls_of(&db, "127.0.0.1", "").expect("prefer"));
    assert!(!tls_of(&db, "127.0.0.1", "sslmode=disable").expect("disable"));
    let text = refusal(&db, "127.0.0.1", "sslmode=require");
    assert!(text.contains("offers no TLS") && text.contains("sslmode=disable"), "{text}");

    let issuer = ca(dir.path(), "ca");
    ca(dir.path(), "other");
    server_certificate(dir.path(), &issuer, server.owner());
    let mut admin = Scratch::on(&server.url);
    for sql in [
        format!("ALTER SYSTEM SET ssl_cert_file = '{}'", dir.path().join("server.crt").display()),
        format!("ALTER SYSTEM SET ssl_key_file = '{}'", dir.path().join("server.key").display()),
        "ALTER SYSTEM SET ssl = on".to_owned(),
        "SELECT pg_reload_conf()".to_owned(),
    ] {
        admin.client.batch_execute(&sql).expect("turn TLS on");
    }
    // The reload reaches new connections a moment later.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !tls_of(&db, "127.0.0.1", "").expect("prefer") {
        assert!(Instant::now() < deadline, "TLS never came up");
        std::thread::sleep(Duration::from_millis(100));
    }

    assert!(!tls_of(&db, "127.0.0.1", "sslmode=disable").expect("disable"));
    // `require` takes a certificate no CA here vouches for, as libpq does.
    assert!(tls_of(&db, "127.0.0.1", "sslmode=require").expect("require"));
    // `verify-ca`: the chain to the named CA, whatever the host name.
    let ca_ok = format!("sslmode=verify-ca&sslrootcert={}", ca_file("ca"));
    assert!(tls_of(&db, "127.0.0.1", &ca_ok).expect("verify-ca"));
    let text = refusal(&db, "127.0.0.1", &format!("sslmode=verify-ca&sslrootcert={}", ca_file("other")));
    assert!(text.contains("TLS handshake failed under sslmode=verify-ca"), "{text}");
    // `require` with a CA named checks the chain too.
    let text = refusal(&db, "127.0.0.1", &format!("sslmode=require&sslrootcert={}", ca_file("other")));
    assert!(text.contains("TLS handshake failed under sslmode=require"), "{text}");
    // `verify-full`: the chain and the name.
    let full = format!("sslmode=verify-full&sslrootcert={}", ca_file("ca"));
    assert!(tls_of(&db, "localhost", &full).expect("verify-full on the certificate's host"));
    let text = refusal(&db, "127.0.0.1", &full);
    assert!(text.contains("under sslmode=verify-full") && text.contains("name the host connected to"), "{text}");
    let text = refusal(&db, "localhost", "sslmode=verify-full&sslrootcert=system");
    assert!(text.contains("TLS handshake failed"), "this machine does not trust the test's CA: {text}");
}
