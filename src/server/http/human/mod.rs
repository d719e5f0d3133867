//! The human's pages on `serve --http`: the cockpit at `/` and the tray at
//! `/tray`, where a person stamps with no model in between.
//!
//! # What every request goes through
//!
//! - **Host.** The same allow-list as `/mcp` (the loopback names and any
//!   `--allow-host`), against DNS rebinding: anything else gets 403.
//! - **A session** ([`authority`]): every page and JSON answer but `/login`
//!   needs the session cookie; without one the answer is 401 and says to
//!   open the link the server printed.
//! - **Writes** (`POST /tray/stamp`, `POST /tray/ratify`, `POST /logout`) also need an `Origin`
//!   equal to this server's own (`http://` + the `Host` sent), no
//!   cross-site `Sec-Fetch-Site`, the session's CSRF token in
//!   `X-M1nd-Csrf`, a JSON body of at most [`MAX_FORM_BYTES`]. Each check
//!   that fails answers before the store is opened.
//!
//! State strings reach the page only as JSON, which the page sets as text
//! nodes; the HTML itself holds no state.

pub mod authority;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use m1nd::store::Store;
use m1nd::store::tray::{Act, ActRefused, Acted, RECEIPT_HASH_LEN};
use m1nd::{COCKPIT, widget};
use m1nd_core::runtime::{self, Request as CockpitRequest, json as view_json};
use serde_json::{Value, json};

use authority::Authority;

/// The largest act request read.
pub const MAX_FORM_BYTES: usize = 8 * 1024;

/// The tray page (its script fetches the state and sets it as text).
const TRAY_PAGE: &str = include_str!("../../../../widget/tray.html");

/// Where the page's CSRF token is written when the page is served.
const CSRF_MARKER: &str = "m1nd-csrf-token";

/// How often the live stream looks at the store's version.
const POLL: Duration = Duration::from_millis(300);

/// The header carrying the CSRF token.
pub const CSRF_HEADER: &str = "x-m1nd-csrf";

/// What the human's handlers share.
pub struct Human {
    pub authority: Authority,
    pub store: PathBuf,
    pub hosts: Vec<String>,
}

/// The human's routes, behind the Host check.
pub fn router(human: Arc<Human>) -> Router {
    Router::new()
        .route("/", get(cockpit_page))
        .route("/cockpit.json", get(cockpit_json))
        .route("/login", get(login))
        .route("/logout", post(logout))
        .route("/tray", get(tray_page))
        .route("/tray/state.json", get(tray_state))
        .route("/tray/events", get(tray_events))
        .route("/tray/stamp", post(stamp))
        .route("/tray/ratify", post(ratify))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&human), check_host))
        .with_state(human)
}

/// A JSON answer, never cached.
fn answer(status: StatusCode, body: &impl serde::Serialize) -> Response {
    let text = serde_json::to_string(body).unwrap_or_else(|_| "null".to_owned());
    (status, [(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-store")], text).into_response()
}

fn problem(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    answer(status, &json!({ "ok": false, "code": code, "error": message.into() }))
}

/// A request refused before it reached the store: status, code, reason.
struct Refused(StatusCode, &'static str, String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        problem(self.0, self.1, self.2)
    }
}

/// The `Host` name without its port, lower-cased.
fn host_name(host: &str) -> String {
    let host = host.trim();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split_once(']').map_or(rest, |(n, _)| n)
    } else {
        host.rsplit_once(':').map_or(host, |(n, _)| n)
    };
    name.to_ascii_lowercase()
}

async fn check_host(State(human): State<Arc<Human>>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    let name = host_name(host);
    let allowed = super::security::LOOPBACK_HOSTS.contains(&name.as_str()) || human.hosts.contains(&name);
    if !allowed {
        return problem(StatusCode::FORBIDDEN, "host", "Forbidden: this Host is not one the server answers to");
    }
    next.run(request).await
}

fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::COOKIE).and_then(|c| c.to_str().ok())
}

fn session(human: &Human, headers: &HeaderMap) -> Result<authority::Session, Refused> {
    human.authority.session(cookie(headers)).ok_or_else(|| {
        Refused(
            StatusCode::UNAUTHORIZED,
            "login",
            "no session: open the login link that `m1nd serve --http` printed in its terminal (it works once)".into(),
        )
    })
}

/// Same origin, not cross-site, and the session's CSRF token.
fn check_write(human: &Human, headers: &HeaderMap) -> Result<(), Refused> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    let origin = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok());
    if origin != Some(&format!("http://{host}")) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "origin",
            "Forbidden: a write must come from the tray's own page".into(),
        ));
    }
    let site = headers.get("sec-fetch-site").and_then(|s| s.to_str().ok());
    if site.is_some_and(|s| s != "same-origin") {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "origin",
            "Forbidden: a write must come from the tray's own page".into(),
        ));
    }
    let session = session(human, headers)?;
    if !session.admits(headers.get(CSRF_HEADER).and_then(|c| c.to_str().ok())) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "csrf",
            "Forbidden: the CSRF token is missing or wrong; reload the tray".into(),
        ));
    }
    Ok(())
}

fn html(body: String) -> Response {
    let csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; \
               connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")),
            (header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(csp)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        ],
        body,
    )
        .into_response()
}

async fn login(State(human): State<Arc<Human>>, request: Request) -> Response {
    let token = request
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|pair| pair.strip_prefix("token=")))
        .unwrap_or_default();
    match human.authority.spend(token) {
        Ok(opened) => (
            StatusCode::SEE_OTHER,
            [(header::SET_COOKIE, authority::set_cookie(&opened)), (header::LOCATION, "/tray".to_owned())],
        )
            .into_response(),
        Err(why) => problem(StatusCode::UNAUTHORIZED, "login", why),
    }
}

async fn logout(State(human): State<Arc<Human>>, headers: HeaderMap) -> Response {
    if let Err(refused) = check_write(&human, &headers) {
        return refused.into_response();
    }
    human.authority.logout(cookie(&headers));
    ([(header::SET_COOKIE, authority::clear_cookie())], answer(StatusCode::OK, &json!({ "ok": true }))).into_response()
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, Refused> {
    tokio::task::spawn_blocking(f).await.map_err(|_| {
        Refused(StatusCode::INTERNAL_SERVER_ERROR, "internal", "the request failed inside the server".into())
    })
}

fn store_problem(e: impl std::fmt::Display) -> Response {
    problem(StatusCode::SERVICE_UNAVAILABLE, "store", e.to_string())
}

/// The cockpit's JSON view at `?select=REF` (the root without one).
fn view(store: &PathBuf, select: Option<String>) -> Result<Value, String> {
    let store = Store::open(store).map_err(|e| e.to_string())?;
    let snapshot = store.snapshot().map_err(|e| e.to_string())?;
    let request = CockpitRequest { select, seen_store_version: None };
    let view = runtime::cockpit(&COCKPIT, &snapshot, &request).map_err(|e| e.to_string())?;
    Ok(view_json::to_value(&view))
}

/// `select` from the query, percent-decoded; undecodable text is passed on
/// as written, and the cockpit's reference grammar refuses it.
fn select_of(request: &Request) -> Option<String> {
    let query = request.uri().query()?;
    let raw = query.split('&').find_map(|pair| pair.strip_prefix("select="))?;
    Some(percent_decode(raw).unwrap_or_else(|| raw.to_owned()))
}

fn percent_decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The widget, pasted with `view`, told that it is served here: a choice
/// opens `/?select=REF` on this origin.
fn served_widget(view: &Value) -> String {
    let meta = "<meta name=\"m1nd-cockpit-http\" content=\"/\">";
    widget::pasted(view).replacen("<head>", &format!("<head>\n{meta}"), 1)
}

async fn cockpit_page(State(human): State<Arc<Human>>, request: Request) -> Response {
    if let Err(refused) = session(&human, request.headers()) {
        return refused.into_response();
    }
    let (store, select) = (human.store.clone(), select_of(&request));
    match blocking(move || view(&store, select)).await {
        Ok(Ok(view)) => html(served_widget(&view)),
        Ok(Err(e)) => store_problem(e),
        Err(r) => r.into_response(),
    }
}

async fn cockpit_json(State(human): State<Arc<Human>>, request: Request) -> Response {
    if let Err(refused) = session(&human, request.headers()) {
        return refused.into_response();
    }
    let (store, select) = (human.store.clone(), select_of(&request));
    match blocking(move || view(&store, select)).await {
        Ok(Ok(view)) => answer(StatusCode::OK, &view),
        Ok(Err(e)) => store_problem(e),
        Err(r) => r.into_response(),
    }
}

async fn tray_page(State(human): State<Arc<Human>>, headers: HeaderMap) -> Response {
    match session(&human, &headers) {
        Ok(session) => html(TRAY_PAGE.replacen(CSRF_MARKER, &session.csrf, 1)),
        Err(refused) => refused.into_response(),
    }
}

async fn tray_state(State(human): State<Arc<Human>>, headers: HeaderMap) -> Response {
    if let Err(refused) = session(&human, &headers) {
        return refused.into_response();
    }
    let store = human.store.clone();
    match blocking(move || Store::open(&store).and_then(|s| s.tray())).await {
        Ok(Ok(tray)) => answer(StatusCode::OK, &tray),
        Ok(Err(e)) => store_problem(e),
        Err(r) => r.into_response(),
    }
}

/// `store` events carrying the store_version whenever it moves.
async fn tray_events(State(human): State<Arc<Human>>, headers: HeaderMap) -> Response {
    if let Err(refused) = session(&human, &headers) {
        return refused.into_response();
    }
    let store = human.store.clone();
    let stream = futures_util::stream::unfold((store, None::<u64>), |(store, last)| async move {
        loop {
            let path = store.clone();
            let now = tokio::task::spawn_blocking(move || Store::open(&path).and_then(|s| s.version()).ok())
                .await
                .ok()
                .flatten();
            if now.is_some() && now != last {
                let event = Event::default().event("store").data(now.unwrap_or(0).to_string());
                return Some((Ok::<_, std::convert::Infallible>(event), (store, now)));
            }
            tokio::time::sleep(POLL).await;
        }
    });
    Sse::new(stream).into_response()
}

/// The policy's verb for each act: the tray performs an act only while the
/// policy makes its verb human-only (M013 keeps that verb out of MCP).
pub const fn verb(act: Act) -> &'static str {
    match act {
        Act::Stamp => "mission_stamp",
        Act::Ratify => "system_blocks_ratify",
    }
}

/// What an act names: exactly what the human saw.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StampForm {
    mission: String,
    receipt_hash: String,
    store_version: u64,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RatifyForm {
    block: String,
    receipt_hash: String,
    store_version: u64,
}

async fn stamp(State(human): State<Arc<Human>>, request: Request) -> Response {
    act(human, request, Act::Stamp).await
}

async fn ratify(State(human): State<Arc<Human>>, request: Request) -> Response {
    act(human, request, Act::Ratify).await
}

/// `(target, receipt_hash, store_version)` from the act's JSON body.
fn form(act: Act, bytes: &[u8]) -> Result<(String, String, u64), String> {
    let shown = |e: serde_json::Error| e.to_string().chars().take(160).collect::<String>();
    match act {
        Act::Stamp => serde_json::from_slice::<StampForm>(bytes)
            .map(|f| (f.mission, f.receipt_hash, f.store_version))
            .map_err(|e| format!("a stamp is {{\"mission\", \"receipt_hash\", \"store_version\"}}: {}", shown(e))),
        Act::Ratify => serde_json::from_slice::<RatifyForm>(bytes)
            .map(|f| (f.block, f.receipt_hash, f.store_version))
            .map_err(|e| format!("a ratification is {{\"block\", \"receipt_hash\", \"store_version\"}}: {}", shown(e))),
    }
}

async fn act(human: Arc<Human>, request: Request, act: Act) -> Response {
    let (parts, body) = request.into_parts();
    if let Err(refused) = check_write(&human, &parts.headers) {
        return refused.into_response();
    }
    if !COCKPIT.human_only.lists(verb(act)) {
        return problem(
            StatusCode::FORBIDDEN,
            "policy",
            format!("the policy does not make `{}` human-only, so the tray does not perform it", verb(act)),
        );
    }
    let json_body = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|c| c.to_str().ok())
        .is_some_and(|c| c.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")));
    if !json_body {
        return problem(StatusCode::UNSUPPORTED_MEDIA_TYPE, "form", "the request is a JSON body (application/json)");
    }
    let Ok(bytes) = axum::body::to_bytes(Body::new(body), MAX_FORM_BYTES).await else {
        return problem(StatusCode::PAYLOAD_TOO_LARGE, "form", format!("a request is at most {MAX_FORM_BYTES} bytes"));
    };
    let (target, receipt_hash, store_version) = match form(act, &bytes) {
        Ok(form) => form,
        Err(why) => return problem(StatusCode::BAD_REQUEST, "form", why),
    };
    let hash_ok = receipt_hash.len() == RECEIPT_HASH_LEN
        && receipt_hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !hash_ok || target.is_empty() || target.len() > 256 {
        return problem(
            StatusCode::BAD_REQUEST,
            "form",
            "the target is an id and `receipt_hash` 64 lowercase hex digits",
        );
    }
    let store = human.store.clone();
    let outcome = blocking(move || {
        let mut store = Store::open(&store).map_err(ActRefused::Store)?;
        store.act(act, &target, &receipt_hash, store_version)
    })
    .await;
    let done = match act {
        Act::Stamp => "stamped",
        Act::Ratify => "ratified",
    };
    match outcome {
        Err(r) => r.into_response(),
        Ok(Ok(Acted::Now { store_version })) => {
            answer(StatusCode::OK, &json!({ "ok": true, done: true, "store_version": store_version }))
        }
        Ok(Ok(Acted::Already { store_version, at })) => answer(
            StatusCode::OK,
            &json!({
                "ok": true, done: false, "already": true, "store_version": store_version,
                "note": format!("already {done} at store_version {store_version} ({at}); nothing more was written"),
            }),
        ),
        Ok(Err(refused)) => {
            let (status, code) = match &refused {
                ActRefused::Unknown { .. } => (StatusCode::NOT_FOUND, "unknown"),
                ActRefused::NotWaiting { .. } => (StatusCode::CONFLICT, "not_waiting"),
                ActRefused::StateMoved { .. } => (StatusCode::CONFLICT, "state_moved"),
                ActRefused::FutureVersion { .. } => (StatusCode::BAD_REQUEST, "form"),
                ActRefused::Store(_) => (StatusCode::SERVICE_UNAVAILABLE, "store"),
            };
            problem(status, code, refused.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every act the tray performs is a human-only, denied verb of the policy.
    #[test]
    fn every_act_is_a_human_only_verb() {
        for act in [Act::Stamp, Act::Ratify] {
            assert!(COCKPIT.human_only.lists(verb(act)), "`{}` is not human-only", verb(act));
            assert!(COCKPIT.deny.lists(verb(act)), "`{}` is not denied", verb(act));
        }
    }

    #[test]
    fn select_is_percent_decoded_and_hosts_lose_their_port() {
        assert_eq!(percent_decode("2.1%40mc_0a1b2c3d").as_deref(), Some("2.1@mc_0a1b2c3d"));
        assert_eq!(percent_decode("%3F+").as_deref(), Some("? "));
        assert_eq!(percent_decode("%4"), None);
        assert_eq!(percent_decode("%ff"), None);
        assert_eq!(host_name("LOCALHOST:1338"), "localhost");
        assert_eq!(host_name("[::1]:80"), "::1");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
    }
}
