//! The human's authority on the tray: one-time login links, sessions, CSRF.
//!
//! # The invariant
//!
//! 1. **Only the person who reads the server's terminal can act on the
//!    tray.** The server prints a login link carrying a 256-bit random token
//!    (from the operating system, `getrandom`). Opening it spends the token
//!    (a second use is refused) and sets a session cookie that is `HttpOnly`
//!    (no script reads it) and `SameSite=Strict` (no other site's page sends
//!    it); a fresh link is printed for the next login. A write also needs a
//!    CSRF token bound to that session, which only the tray page itself
//!    carries, and a same-origin `Origin`. Tokens, session ids and CSRF
//!    tokens live in this process's memory alone: never in the store, never
//!    in an MCP answer or a widget payload, so no agent can read or replay
//!    them. Sessions expire.
//! 2. **The session is this server's alone.** Cookies are scoped by host, not
//!    by port: a cookie set on `127.0.0.1` reaches every local server, which
//!    could replay it, and two m1nd servers on one machine would overwrite
//!    each other's. So the login link names a host of this server's own,
//!    `m1nd-<128 random bits>.localhost` ([`super::instance`]), and the
//!    cookie is set host-only (no `Domain`) on that name: the browser sends
//!    it to that name alone, and no other server knows the name. The human's
//!    pages answer on that name only; on `127.0.0.1`, `localhost` or an
//!    `--allow-host` name they say where the tray lives and never set or read
//!    a cookie (`checks::check_host`). `/mcp` is unchanged on those names.
//! 3. **The link goes to the person, not to a log collector.** The lines
//!    carrying a login link are logged under [`LOGIN_LINK_TARGET`], which
//!    `--log-format json` keeps out of its JSON objects and writes as one
//!    plain text line on stderr instead (`crate::log`).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The session cookie's name.
pub const COOKIE: &str = "m1nd_tray";

/// How long a session lasts by default.
pub const DEFAULT_SESSION: Duration = Duration::from_secs(8 * 60 * 60);

/// The most sessions held at once; the oldest goes first.
const MAX_SESSIONS: usize = 16;

/// Why a login could not be issued or spent.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    #[error("the operating system gave no randomness: {0}")]
    NoRandomness(getrandom::Error),
    #[error("this login link is not valid: it was already used, or never issued")]
    NotValid,
}

pub use crate::log::LOGIN_LINK_TARGET;

/// Random bytes in a token, a session id or a CSRF token: 256 bits.
const SECRET_BYTES: usize = 32;

/// `n` random bytes as `2n` lowercase hex digits.
pub(super) fn random_hex(n: usize) -> Result<String, LoginError> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(LoginError::NoRandomness)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A fresh 256-bit secret.
fn secret() -> Result<String, LoginError> {
    random_hex(SECRET_BYTES)
}

/// What a valid session carries.
#[derive(Clone, Debug)]
pub struct Session {
    pub csrf: String,
    expires: Instant,
}

struct Inner {
    /// The one unspent login token.
    login: String,
    /// blake3(session id) → session; the id itself is only in the cookie.
    sessions: HashMap<[u8; 32], Session>,
}

/// The login tokens and sessions of one server.
pub struct Authority {
    inner: Mutex<Inner>,
    lifetime: Duration,
    /// `http://<instance host>:port`, for printing login links.
    base: String,
}

/// A session just opened: the cookie value and its CSRF token.
pub struct Opened {
    pub session_id: String,
    pub lifetime: Duration,
}

impl Authority {
    pub fn new(base: String, lifetime: Duration) -> Result<Self, LoginError> {
        let inner = Inner { login: secret()?, sessions: HashMap::new() };
        Ok(Self { inner: Mutex::new(inner), lifetime, base })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The link that logs in once, for the terminal.
    pub fn login_link(&self) -> String {
        format!("{}/login?token={}", self.base, self.lock().login)
    }

    /// Spend `presented` if it is the unspent token: open a session and
    /// print the next link. Anything else opens nothing.
    pub fn spend(&self, presented: &str) -> Result<Opened, LoginError> {
        let mut inner = self.lock();
        if !constant_time_eq::constant_time_eq(presented.as_bytes(), inner.login.as_bytes()) {
            return Err(LoginError::NotValid);
        }
        inner.login = secret()?;
        let session_id = secret()?;
        let session = Session { csrf: secret()?, expires: Instant::now() + self.lifetime };
        let now = Instant::now();
        inner.sessions.retain(|_, s| s.expires > now);
        if inner.sessions.len() >= MAX_SESSIONS
            && let Some(oldest) = inner.sessions.iter().min_by_key(|(_, s)| s.expires).map(|(k, _)| *k)
        {
            inner.sessions.remove(&oldest);
        }
        inner.sessions.insert(key(&session_id), session);
        let next = format!("{}/login?token={}", self.base, inner.login);
        drop(inner);
        tracing::info!(target: LOGIN_LINK_TARGET, "the tray: a session was opened; the next login link is {next}");
        Ok(Opened { session_id, lifetime: self.lifetime })
    }

    /// The live session the `Cookie` header names, if any.
    pub fn session(&self, cookie_header: Option<&str>) -> Option<Session> {
        let id = session_id(cookie_header?)?;
        let mut inner = self.lock();
        let k = key(id);
        match inner.sessions.get(&k) {
            Some(s) if s.expires > Instant::now() => Some(s.clone()),
            Some(_) => {
                inner.sessions.remove(&k);
                None
            }
            None => None,
        }
    }

    /// End the session the `Cookie` header names.
    pub fn logout(&self, cookie_header: Option<&str>) {
        if let Some(id) = cookie_header.and_then(session_id) {
            self.lock().sessions.remove(&key(id));
        }
    }
}

impl Session {
    /// Whether `presented` is this session's CSRF token (constant time).
    pub fn admits(&self, presented: Option<&str>) -> bool {
        presented.is_some_and(|p| constant_time_eq::constant_time_eq(p.as_bytes(), self.csrf.as_bytes()))
    }
}

fn key(session_id: &str) -> [u8; 32] {
    *blake3::hash(session_id.as_bytes()).as_bytes()
}

/// The value of our cookie in a `Cookie` header.
fn session_id(header: &str) -> Option<&str> {
    header.split(';').map(str::trim).find_map(|pair| pair.strip_prefix(COOKIE)?.strip_prefix('='))
}

/// The `Set-Cookie` value that opens a session: host-only (no `Domain`, so
/// it goes back to the instance host it was set on and to no other name),
/// `HttpOnly`, `SameSite=Strict`.
pub fn set_cookie(opened: &Opened) -> String {
    format!(
        "{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}",
        opened.session_id,
        opened.lifetime.as_secs().max(1)
    )
}

/// The `Set-Cookie` value that ends one.
pub fn clear_cookie() -> String {
    format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(link: &str) -> String {
        link.rsplit_once("token=").expect("token").1.to_owned()
    }

    #[test]
    fn a_login_token_works_once_and_is_256_bits() {
        let a = Authority::new("http://127.0.0.1:1".into(), Duration::from_secs(60)).expect("authority");
        let first = token(&a.login_link());
        assert_eq!(first.len(), 64);
        assert!(first.bytes().all(|b| b.is_ascii_hexdigit()));
        let opened = a.spend(&first).expect("first use");
        assert!(a.spend(&first).is_err(), "a spent token opened a second session");
        assert_ne!(token(&a.login_link()), first);
        let cookie = format!("other=1; {COOKIE}={}", opened.session_id);
        let session = a.session(Some(&cookie)).expect("session");
        assert!(session.admits(Some(&session.csrf.clone())));
        assert!(!session.admits(Some("0")) && !session.admits(None));
        a.logout(Some(&cookie));
        assert!(a.session(Some(&cookie)).is_none());
    }

    #[test]
    fn the_cookie_is_host_only_http_only_and_strict() {
        let opened = Opened { session_id: "ab".into(), lifetime: Duration::from_secs(60) };
        for cookie in [set_cookie(&opened), clear_cookie()] {
            let attributes: Vec<_> = cookie.split(';').map(|a| a.trim().to_ascii_lowercase()).collect();
            assert!(!attributes.iter().any(|a| a.starts_with("domain")), "{cookie}");
            assert!(attributes.contains(&"httponly".to_owned()), "{cookie}");
            assert!(attributes.contains(&"samesite=strict".to_owned()), "{cookie}");
        }
    }

    #[test]
    fn sessions_expire() {
        let a = Authority::new("http://127.0.0.1:1".into(), Duration::from_millis(1)).expect("authority");
        let opened = a.spend(&token(&a.login_link())).expect("use");
        std::thread::sleep(Duration::from_millis(5));
        assert!(a.session(Some(&format!("{COOKIE}={}", opened.session_id))).is_none());
    }
}
