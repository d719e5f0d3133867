//! An identity per agent: bearer access tokens checked as the MCP
//! authorization spec asks of a resource server.
//!
//! With `--jwks FILE|URL`, `--token-issuer` and `--token-audience`, every
//! request to `/mcp` (and `/health`, `/metrics`) carries a JWT that an
//! authorization server signed: its signature checks against a key of the
//! JWKS (the key its `kid` names, or the only key), with that key's
//! algorithm (never `none`, never a shared secret), and its `iss`, `aud`,
//! `exp` and `nbf` hold. Its `sub` names the agent, in the audit trail and
//! in the calls it makes. One agent is revoked by a line in
//! `--revoked-agents FILE`, without touching the others or the keys; both
//! files are read again whenever they change (`watched.rs`), and a JWKS
//! URL is fetched again as it ages or a new key appears (`fetched.rs`), so
//! keys rotate and agents are revoked without a restart. A refusal is 401 with
//! RFC 6750's `WWW-Authenticate` challenge pointing at the Protected
//! Resource Metadata (RFC 9728), served at
//! `/.well-known/oauth-protected-resource`.
//!
//! An agent's requests are served a few at a time (`turns.rs`), so one
//! agent's many connections do not take the processors from the others.
//!
//! A token whose signature checked is remembered until its `exp`
//! (`verified.rs`), so an agent's every request does not pay for a
//! signature check; revocation is looked at on every request all the same.

#[cfg(feature = "http-upstream")]
mod fetched;
mod jwks;
mod turns;
mod verified;
mod watched;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jsonwebtoken::{Validation, decode, decode_header};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;
use serde::Deserialize;

use jwks::Key;
use turns::Turns;
use verified::Verified;
use watched::Watched;

pub use crate::lane::Agent;
pub use turns::{AT_ONCE, MOST_WAITING, TooManyWaiting};

/// The longest agent name taken from a token's `sub`.
pub const MAX_AGENT_CHARS: usize = 128;

/// Seconds of clock difference allowed on `exp` and `nbf`.
const LEEWAY_SECONDS: u64 = 30;

/// Why the identity settings cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum IdentityError {
    #[error("cannot read the JWKS {}: {reason}", path.display())]
    Jwks { path: PathBuf, reason: String },
    #[error("{0}")]
    JwksUrl(String),
    #[error("cannot read --revoked-agents {}: {reason}", path.display())]
    Revoked { path: PathBuf, reason: String },
}

/// Why a token was refused: the `error_description` of the challenge.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenRefused {
    #[error("send an access token as `Authorization: Bearer <token>`")]
    Missing,
    #[error("the token is not a JWT this server accepts: {0}")]
    Malformed(String),
    #[error("the token's signature does not check against any key this server trusts")]
    BadSignature,
    #[error("the token has expired")]
    Expired,
    #[error("the token is not valid yet (nbf)")]
    NotYet,
    #[error("the token was issued for another audience; this server is {0}")]
    WrongAudience(String),
    #[error("the token was issued by another issuer")]
    WrongIssuer,
    #[error(
        "the token's sub must name the agent in at most {MAX_AGENT_CHARS} letters, digits or . _ - @ : + characters"
    )]
    BadAgent,
    #[error("this agent's access is revoked")]
    Revoked,
}

impl TokenRefused {
    /// A fixed word for the metrics.
    fn kind(&self) -> &'static str {
        match self {
            TokenRefused::Missing => "missing",
            TokenRefused::Malformed(_) => "malformed",
            TokenRefused::BadSignature => "signature",
            TokenRefused::Expired => "expired",
            TokenRefused::NotYet => "not_yet_valid",
            TokenRefused::WrongAudience(_) => "audience",
            TokenRefused::WrongIssuer => "issuer",
            TokenRefused::BadAgent => "agent",
            TokenRefused::Revoked => "revoked",
        }
    }
}

/// Where the keys come from.
enum Keys {
    /// A file, read again when it changes.
    File(Watched<Vec<Key>>),
    /// A URL, fetched again as it ages or a token names a key not held.
    #[cfg(feature = "http-upstream")]
    Url(Arc<fetched::Fetched>),
}

impl Keys {
    fn current(&self) -> Arc<Vec<Key>> {
        match self {
            Keys::File(file) => file.current(),
            #[cfg(feature = "http-upstream")]
            Keys::Url(url) => url.current(),
        }
    }

    /// Fetch the keys afresh if they come from a URL and may be; whether they changed.
    async fn refetch(&self) -> bool {
        match self {
            Keys::File(_) => false,
            #[cfg(feature = "http-upstream")]
            Keys::Url(url) => url.refetch().await,
        }
    }
}

/// What the tokens are checked against.
pub struct Identity {
    keys: Keys,
    issuer: String,
    audience: String,
    revoked: Option<Watched<HashSet<String>>>,
    /// Tokens whose signature already checked (`verified.rs`).
    verified: Verified<Vec<Key>>,
    /// Each agent's requests in hand (`turns.rs`).
    turns: Turns,
    /// Requests admitted, by agent: only agents the issuer signed for, so
    /// as many series as agents the operator made.
    admitted: Family<AgentLabel, Counter>,
    /// Requests refused, by why (fixed words).
    refused: Family<RefusalLabel, Counter>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AgentLabel {
    agent: Arc<str>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RefusalLabel {
    reason: &'static str,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("keys", &self.keys.current().len())
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .finish_non_exhaustive()
    }
}

/// The claims read from a token (the rest are ignored).
#[derive(Deserialize)]
struct Claims {
    sub: String,
    exp: u64,
}

impl Identity {
    /// Read the JWKS at `jwks` (a file, or an `https://` URL), for tokens
    /// from `issuer` to `audience`.
    pub fn load(
        jwks: &Path,
        issuer: String,
        audience: String,
        revoked: Option<PathBuf>,
    ) -> Result<Identity, IdentityError> {
        let keys = match jwks.to_str().filter(|written| is_url(written)) {
            #[cfg(feature = "http-upstream")]
            Some(url) => Keys::Url(Arc::new(fetched::Fetched::load(url).map_err(IdentityError::JwksUrl)?)),
            #[cfg(not(feature = "http-upstream"))]
            Some(url) => {
                return Err(IdentityError::JwksUrl(format!(
                    "{url}: this m1nd was built without an HTTP client (the http-upstream feature); save the key \
                     set to a file and pass that"
                )));
            }
            None => Keys::File(
                Watched::load(jwks.to_owned(), jwks::keys)
                    .map_err(|reason| IdentityError::Jwks { path: jwks.to_owned(), reason })?,
            ),
        };
        let revoked = match revoked {
            Some(path) => Some(
                Watched::load(path.clone(), revoked_agents)
                    .map_err(|reason| IdentityError::Revoked { path, reason })?,
            ),
            None => None,
        };
        Ok(Identity {
            keys,
            issuer,
            audience,
            revoked,
            verified: Verified::default(),
            turns: Turns::default(),
            admitted: Family::default(),
            refused: Family::default(),
        })
    }

    /// The agent `authorization` (the header's value) names, or why not;
    /// counted either way. A signature that checks against no key held
    /// fetches a URL's keys again (at most so often) and is checked once more.
    pub async fn verify(&self, authorization: Option<&str>) -> Result<Agent, TokenRefused> {
        let mut verified = self.check(authorization);
        if verified == Err(TokenRefused::BadSignature) && self.keys.refetch().await {
            verified = self.check(authorization);
        }
        match &verified {
            Ok(agent) => self.admitted.get_or_create(&AgentLabel { agent: Arc::clone(&agent.0) }).inc(),
            Err(refused) => self.refused.get_or_create(&RefusalLabel { reason: refused.kind() }).inc(),
        };
        verified
    }

    /// Wait for `agent`'s turn to be served; the turn lasts while the permit is held.
    pub async fn turn(&self, agent: &Agent) -> Result<tokio::sync::OwnedSemaphorePermit, TooManyWaiting> {
        self.turns.take(agent).await
    }

    /// Count this server's admissions and refusals in `registry`.
    pub fn register(&self, registry: &mut Registry) {
        registry.register("agent_requests", "Requests admitted, by the agent their token named", self.admitted.clone());
        registry.register("token_refusals", "Requests refused for their access token, by why", self.refused.clone());
    }

    fn check(&self, authorization: Option<&str>) -> Result<Agent, TokenRefused> {
        let token = authorization
            .and_then(|value| value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer ")))
            .map(str::trim)
            .filter(|token| !token.is_empty())
            .ok_or(TokenRefused::Missing)?;
        let keys = self.keys.current();
        let now = verified::now();
        let agent = match self.verified.agent(token, &keys, now) {
            Some(agent) => agent,
            None => {
                let (agent, expires) = self.check_signed(token, &keys)?;
                self.verified.remember(token, &keys, &agent, expires, now);
                agent
            }
        };
        if self.revoked.as_ref().is_some_and(|revoked| revoked.current().contains(&*agent.0)) {
            return Err(TokenRefused::Revoked);
        }
        Ok(agent)
    }

    /// The agent `token` names and its `exp`, if its signature checks
    /// against `keys` and its claims hold.
    fn check_signed(&self, token: &str, keys: &[Key]) -> Result<(Agent, u64), TokenRefused> {
        let header = decode_header(token).map_err(|e| TokenRefused::Malformed(e.to_string()))?;
        let key = match &header.kid {
            Some(kid) => keys.iter().find(|k| k.kid.as_deref() == Some(kid)),
            None if keys.len() == 1 => keys.first(),
            None => None,
        }
        .filter(|key| key.algorithm == header.alg)
        .ok_or(TokenRefused::BadSignature)?;
        let mut validation = Validation::new(key.algorithm);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        validation.set_audience(&[&self.audience]);
        validation.set_issuer(&[&self.issuer]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let claims = decode::<Claims>(token, &key.key, &validation).map_err(|e| self.refusal(e.into_kind()))?.claims;
        let agent = claims.sub;
        let well_formed = !agent.is_empty()
            && agent.chars().count() <= MAX_AGENT_CHARS
            && agent.chars().all(|c| c.is_ascii_alphanumeric() || "._-@:+".contains(c));
        if !well_formed {
            return Err(TokenRefused::BadAgent);
        }
        Ok((Agent(agent.into()), claims.exp))
    }

    fn refusal(&self, kind: jsonwebtoken::errors::ErrorKind) -> TokenRefused {
        use jsonwebtoken::errors::ErrorKind;
        match kind {
            ErrorKind::ExpiredSignature => TokenRefused::Expired,
            ErrorKind::ImmatureSignature => TokenRefused::NotYet,
            ErrorKind::InvalidAudience => TokenRefused::WrongAudience(self.audience.clone()),
            ErrorKind::InvalidIssuer => TokenRefused::WrongIssuer,
            ErrorKind::InvalidSignature | ErrorKind::InvalidAlgorithm => TokenRefused::BadSignature,
            ErrorKind::MissingRequiredClaim(claim) => TokenRefused::Malformed(format!("it has no `{claim}` claim")),
            other => TokenRefused::Malformed(format!("{other:?}")),
        }
    }

    /// This server as the tokens' audience names it.
    pub fn audience(&self) -> &str {
        &self.audience
    }

    /// The Protected Resource Metadata (RFC 9728).
    pub fn metadata(&self) -> serde_json::Value {
        serde_json::json!({
            "resource": self.audience,
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],
            "resource_name": "m1nd",
        })
    }

    /// Where the metadata is, for the challenge: the well-known path on the
    /// audience's origin, with the audience's path after it (RFC 9728 §3.1).
    pub fn metadata_url(&self) -> String {
        let (scheme, rest) = self.audience.split_once("://").unwrap_or(("https", &self.audience));
        let (origin, path) = rest.split_once('/').map_or((rest, ""), |(origin, path)| (origin, path));
        let path = path.trim_end_matches('/');
        let tail = if path.is_empty() { String::new() } else { format!("/{path}") };
        format!("{scheme}://{origin}{METADATA_PATH}{tail}")
    }

    /// The `WWW-Authenticate` value for `refused`.
    pub fn challenge(&self, refused: &TokenRefused) -> String {
        let description = refused.to_string().replace('"', "'");
        match refused {
            TokenRefused::Missing => format!("Bearer resource_metadata=\"{}\"", self.metadata_url()),
            _ => format!(
                "Bearer resource_metadata=\"{}\", error=\"invalid_token\", error_description=\"{description}\"",
                self.metadata_url()
            ),
        }
    }
}

/// Whether `--jwks` names a URL (`scheme://...`) rather than a file.
fn is_url(written: &str) -> bool {
    written.split_once("://").is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    })
}

/// Where the Protected Resource Metadata is served.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The revoked agents of `text`: one a line, `#` starting a comment.
fn revoked_agents(text: &str) -> Result<HashSet<String>, String> {
    let agents = text.lines().map(|l| l.split('#').next().unwrap_or("").trim()).filter(|l| !l.is_empty());
    Ok(agents.map(str::to_owned).collect())
}
