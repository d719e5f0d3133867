//! The keys a JWKS file holds, each with the one algorithm it verifies.
//! Only public keys: a shared secret (`kty: oct`, or an `HS*` algorithm)
//! in a resource server's key set would let anyone holding it mint tokens,
//! so a JWKS with one is refused whole.

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey};

/// A key of the JWKS.
pub(super) struct Key {
    pub kid: Option<String>,
    pub algorithm: Algorithm,
    pub key: DecodingKey,
}

/// Every key of the JWKS `text`, or why it cannot serve.
pub(super) fn keys(text: &str) -> Result<Vec<Key>, String> {
    let set: JwkSet = serde_json::from_str(text).map_err(|e| format!("not a JWKS ({e})"))?;
    let mut keys = Vec::new();
    for (n, jwk) in set.keys.iter().enumerate() {
        let algorithm = match (&jwk.algorithm, jwk.common.key_algorithm) {
            (AlgorithmParameters::OctetKey(_), _) => {
                return Err(format!("key {n} is a shared secret (kty oct); a resource server takes only public keys"));
            }
            (_, Some(named)) => named.to_string().parse::<Algorithm>().map_err(|e| format!("key {n}: {e}"))?,
            (AlgorithmParameters::RSA(_), None) => Algorithm::RS256,
            (AlgorithmParameters::EllipticCurve(ec), None) => match ec.curve {
                EllipticCurve::P256 => Algorithm::ES256,
                EllipticCurve::P384 => Algorithm::ES384,
                ref other => return Err(format!("key {n}: curve {other:?} is not supported")),
            },
            (AlgorithmParameters::OctetKeyPair(_), None) => Algorithm::EdDSA,
        };
        if matches!(algorithm, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512) {
            return Err(format!("key {n} names {algorithm:?}, a shared-secret algorithm"));
        }
        let key = DecodingKey::from_jwk(jwk).map_err(|e| format!("key {n}: {e}"))?;
        keys.push(Key { kid: jwk.common.key_id.clone(), algorithm, key });
    }
    if keys.is_empty() {
        return Err("it holds no key".to_owned());
    }
    Ok(keys)
}
