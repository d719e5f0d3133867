//! A JWKS published at a URL (an authorization server's `jwks_uri`),
//! fetched at start and again as its keys rotate.
//!
//! - **At start** the key set must be fetched and usable, or the server
//!   does not start: the reason names the URL and what went wrong.
//! - **Over `https://`** only, with the machine's roots, or `http://` to a
//!   loopback address: a key
//!   set read over cleartext from elsewhere could be swapped on the way,
//!   and whoever swapped it could then mint any agent's token.
//! - **Kept fresh** without stalling a request: once the set is
//!   [`REFRESH`] old, the next request starts a fetch in the background and
//!   is checked against the set held.
//! - **A new key is taken at once**: a token whose signature checks against
//!   no key held makes the request wait for one fetch, then is checked
//!   again. At most one such fetch per [`LEAST_BETWEEN_FETCHES`], however
//!   many bad tokens arrive, so junk tokens cannot make this server hammer
//!   the authorization server.
//! - **A failed fetch keeps the last good set**, with a warning: an outage
//!   of the authorization server locks no agent out of keys it already had.
//!
//! One fetch waits at most [`FETCH_TIMEOUT`] and reads at most
//! [`super::watched::MAX_FILE_BYTES`].

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::jwks::{self, Key};
use super::watched::MAX_FILE_BYTES;
use crate::gateway::https::{builder, chain, is_loopback};

/// How old a key set gets before it is fetched again.
pub(super) const REFRESH: Duration = Duration::from_secs(300);

/// The least time between two fetches.
pub(super) const LEAST_BETWEEN_FETCHES: Duration = Duration::from_secs(30);

/// The longest one fetch may take, connection included.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The key set at a URL, as last fetched well.
pub(super) struct Fetched {
    url: String,
    client: reqwest::Client,
    keys: Mutex<Arc<Vec<Key>>>,
    /// When fetches started (held across one, so fetches never overlap).
    fetches: tokio::sync::Mutex<Fetches>,
}

struct Fetches {
    /// The last one, whatever started it.
    last: Instant,
    /// The last one a token naming no key held started.
    last_asked: Option<Instant>,
}

impl Fetched {
    /// Fetch the key set at `url` now; it must serve.
    pub(super) fn load(url: &str) -> Result<Fetched, String> {
        let client = client(url)?;
        let fetching = client.clone();
        let owned = url.to_owned();
        // The server's runtime does not run yet (and a caller may be inside
        // another one): the first fetch gets a thread and a runtime of its own.
        let first = std::thread::spawn(move || {
            let runtime =
                tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
            runtime.block_on(fetch_keys(&fetching, &owned))
        })
        .join()
        .map_err(|_| "the fetch failed".to_owned())??;
        Ok(Fetched {
            url: url.to_owned(),
            client,
            keys: Mutex::new(Arc::new(first)),
            fetches: tokio::sync::Mutex::new(Fetches { last: Instant::now(), last_asked: None }),
        })
    }

    /// The key set held; past [`REFRESH`], a fetch starts in the background.
    pub(super) fn current(self: &Arc<Self>) -> Arc<Vec<Key>> {
        if let Ok(fetches) = self.fetches.try_lock()
            && fetches.last.elapsed() >= REFRESH
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            drop(fetches);
            let fetched = Arc::clone(self);
            runtime.spawn(async move {
                let mut fetches = fetched.fetches.lock().await;
                if fetches.last.elapsed() >= REFRESH {
                    fetched.fetch(&mut fetches).await;
                }
            });
        }
        self.held()
    }

    /// A token named no key held: fetch again, unless such a fetch started
    /// less than [`LEAST_BETWEEN_FETCHES`] ago; whether a key set was fetched.
    pub(super) async fn refetch(&self) -> bool {
        let mut fetches = self.fetches.lock().await;
        if fetches.last_asked.is_some_and(|asked| asked.elapsed() < LEAST_BETWEEN_FETCHES) {
            return false;
        }
        fetches.last_asked = Some(Instant::now());
        self.fetch(&mut fetches).await
    }

    /// Fetch now; whether a key set was fetched.
    async fn fetch(&self, fetches: &mut Fetches) -> bool {
        fetches.last = Instant::now();
        match fetch_keys(&self.client, &self.url).await {
            Ok(keys) => {
                *self.keys.lock().unwrap_or_else(|p| p.into_inner()) = Arc::new(keys);
                true
            }
            Err(e) => {
                tracing::warn!("{e}; keeping the keys fetched before");
                false
            }
        }
    }

    fn held(&self) -> Arc<Vec<Key>> {
        Arc::clone(&self.keys.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// The client for `url` (the gateway's [`builder`]): `https://`, or
/// `http://` to a loopback address.
fn client(url: &str) -> Result<reqwest::Client, String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("{url}: not a URL ({e})"))?;
    match parsed.scheme() {
        "https" => {}
        "http" if is_loopback(&parsed) => {}
        "http" => {
            return Err(format!(
                "{url}: a key set fetched over cleartext http:// could be swapped on the way; publish it over \
                 https:// (http:// is taken only from a loopback address)"
            ));
        }
        other => return Err(format!("{url}: a JWKS URL is https://, not {other}://")),
    }
    builder(&parsed).build().map_err(|e| format!("cannot set up the HTTPS client for {url}: {}", chain(&e)))
}

/// One fetch of the key set at `url`, bounded in time and size.
async fn fetch_keys(client: &reqwest::Client, url: &str) -> Result<Vec<Key>, String> {
    let cannot = |why: String| format!("cannot fetch the JWKS {url}: {why}");
    let fetched = async {
        let mut response = client.get(url).send().await.map_err(|e| cannot(chain(&e)))?;
        if !response.status().is_success() {
            return Err(cannot(format!("HTTP {}", response.status())));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| cannot(e.to_string()))? {
            if (body.len() + chunk.len()) as u64 > MAX_FILE_BYTES {
                return Err(cannot(format!("more than the {MAX_FILE_BYTES} bytes read")));
            }
            body.extend_from_slice(&chunk);
        }
        let text = String::from_utf8(body).map_err(|_| cannot("not UTF-8 text".to_owned()))?;
        jwks::keys(&text).map_err(|e| format!("the JWKS {url}: {e}"))
    };
    tokio::time::timeout(FETCH_TIMEOUT, fetched)
        .await
        .map_err(|_| cannot(format!("no answer within {} s", FETCH_TIMEOUT.as_secs())))?
}
