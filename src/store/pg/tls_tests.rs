//! TLS to a test server of its own (`test_server::Cluster`): `ssl` is
//! turned on with a certificate from a CA made here.

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

/// The server's certificate and key, and the CA that signed it, as PEM files in `dir`.
fn certificates(dir: &Path, owner: u32) {
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "m1nd test CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_key = KeyPair::generate().expect("CA key");
    std::fs::write(dir.join("ca.pem"), ca.self_signed(&ca_key).expect("CA").pem()).expect("ca.pem");
    let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).expect("params");
    leaf.distinguished_name.push(DnType::CommonName, "127.0.0.1");
    let key = KeyPair::generate().expect("key");
    let cert = leaf.signed_by(&key, &Issuer::from_params(&ca, &ca_key)).expect("sign");
    std::fs::write(dir.join("server.crt"), cert.pem()).expect("server.crt");
    std::fs::write(dir.join("server.key"), key.serialize_pem()).expect("server.key");
    // The server reads them as its own user, and takes a key only its owner can read.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).expect("chmod dir");
    std::fs::set_permissions(dir.join("server.key"), std::fs::Permissions::from_mode(0o600)).expect("chmod key");
    for file in ["server.crt", "server.key"] {
        chown(dir.join(file), Some(owner), None).expect("chown to the server's user");
    }
}

/// The location of `db` with `sslmode=require`.
fn requiring_tls(db: &Scratch) -> crate::store::PostgresUrl {
    let server = db.server();
    let joint = if server.contains('?') { '&' } else { '?' };
    match db.location_on(&format!("{server}{joint}sslmode=require")) {
        Location::Postgres(url) => url,
        Location::Dir(_) => panic!("a database location"),
    }
}

#[test]
#[ignore = "needs PostgreSQL (Debian's postgresql; the test starts the server): cargo test -- --ignored"]
fn sslmode_require_speaks_tls_and_trusts_only_the_named_ca() {
    // A server of its own: the test turns TLS on in its settings.
    let server = Cluster::up();
    let mut db = Scratch::on(&server.url);
    let owner = server.owner();
    let dir = tempfile::Builder::new().prefix("m1nd-tls-").tempdir().expect("dir");
    certificates(dir.path(), owner);
    let set = |db: &mut Scratch, sql: String| db.client.batch_execute(&sql).expect("set");
    set(&mut db, format!("ALTER SYSTEM SET ssl_cert_file = '{}'", dir.path().join("server.crt").display()));
    set(&mut db, format!("ALTER SYSTEM SET ssl_key_file = '{}'", dir.path().join("server.key").display()));
    set(&mut db, "ALTER SYSTEM SET ssl = on".into());
    set(&mut db, "SELECT pg_reload_conf()".into());
    let tls = requiring_tls(&db);
    let ca = dir.path().join("ca.pem");
    let deadline = Instant::now() + Duration::from_secs(10);
    let conn = loop {
        match connect_trusting(&tls, Some(&ca)) {
            Ok(conn) => break conn,
            // The reload reaches new connections a moment later.
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => panic!("TLS never came up: {e}"),
        }
    };
    let on: Vec<bool> = conn
        .query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", &[])
        .expect("pg_stat_ssl")
        .iter()
        .map(|r| r.get(0))
        .collect();
    let untrusted = connect_trusting(&tls, None).map(drop);

    assert_eq!(on, [true], "the connection is not TLS");
    let err = untrusted.expect_err("a CA the platform does not trust");
    let text = err.to_string();
    assert!(matches!(err, StoreError::Sql { .. }), "not worth a retry: {err:?}");
    assert!(text.contains("TLS handshake failed") && text.contains("PGSSLROOTCERT"), "{text}");
    assert!(!text.contains(&password_of(db.server())), "{text}");
}
