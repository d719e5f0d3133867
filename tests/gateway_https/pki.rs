//! A throwaway certificate authority, made fresh by each test run, and the
//! server certificates the HTTPS tests need: good, expired, for another
//! name, and from a CA nobody trusts.

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose, date_time_ymd};
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// A CA: what it signs with, and its certificate as PEM (an `--upstream-ca` file).
pub struct Authority {
    params: CertificateParams,
    key: KeyPair,
    pub pem: String,
}

/// A server certificate and its key, as rustls serves them.
pub struct Leaf {
    pub chain: Vec<CertificateDer<'static>>,
    pub key: PrivateKeyDer<'static>,
}

impl Authority {
    pub fn new(name: &str) -> Authority {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("CA key");
        let pem = params.self_signed(&key).expect("self-sign the CA").pem();
        Authority { params, key, pem }
    }

    /// A server certificate for `names` (an IP address becomes an IP SAN),
    /// valid now unless `expired`.
    pub fn issue(&self, names: &[&str], expired: bool) -> Leaf {
        let mut params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).expect("leaf params");
        params.distinguished_name.push(DnType::CommonName, names[0]);
        if expired {
            params.not_before = date_time_ymd(2020, 1, 1);
            params.not_after = date_time_ymd(2021, 1, 1);
        }
        let key = KeyPair::generate().expect("leaf key");
        let issuer = Issuer::from_params(&self.params, &self.key);
        let cert = params.signed_by(&key, &issuer).expect("sign the leaf");
        Leaf { chain: vec![cert.der().clone()], key: PrivatePkcs8KeyDer::from(key.serialize_der()).into() }
    }
}
