//! The human's pages on `serve --http`: the cockpit at `/` and the tray at
//! `/tray`, where a person stamps with no model in between.
//!
//! # What every request goes through
//!
//! - **Host.** The pages live on this server's own name,
//!   `m1nd-<random>.localhost` ([`instance`]), which only the login link
//!   names, so the session cookie reaches no other local server (see
//!   [`authority`], invariant 2). On the other names `/mcp` admits (the
//!   loopback names and any `--allow-host`) every page answers 421 and says
//!   where the tray lives, setting and reading no cookie; any other `Host`
//!   gets 403, against DNS rebinding.
//! - **A session** ([`authority`]): every page and JSON answer but `/login`
//!   needs the session cookie; without one the answer is 401 and says to
//!   open the link the server printed: as JSON, or, to a browser that asks
//!   for a page (`Accept: text/html`) on `/`, `/tray` or a spent `/login`,
//!   as a static page that says how to log in.
//! - **Writes** (`POST /tray/stamp`, `POST /tray/ratify`, `POST /logout`) also need an `Origin`
//!   equal to this server's own (`http://` + the `Host` sent), no
//!   cross-site `Sec-Fetch-Site`, the session's CSRF token in
//!   `X-M1nd-Csrf`, a JSON body of at most `acts::MAX_FORM_BYTES`. Each check
//!   that fails answers before the store is opened.
//!
//! State strings reach the page only as JSON, which the page sets as text
//! nodes; the HTML itself holds no state.

mod acts;
pub mod authority;
mod checks;
pub mod instance;
mod pages;
mod refusals;
pub mod streams;

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

use authority::Authority;
use instance::InstanceHost;

pub use acts::{MAX_FORM_BYTES, MAX_TARGET_BYTES};
pub use checks::CSRF_HEADER;
pub use streams::EVENTS_PATH;
// For `crate::fuzzing`, which hands these to the fuzz targets.
pub(crate) use acts::{NOT_WELL_FORMED, form, well_formed};
pub(crate) use checks::{check_write, cookie};
pub(crate) use pages::percent_decode;

use crate::service::{Service, ServiceError};

/// What the human's handlers share.
pub struct Human {
    pub authority: Authority,
    /// The one way to the store, shared with `/mcp`.
    pub service: Service,
    /// The `--allow-host` names: there, as on the loopback names, the pages
    /// only say where they live.
    pub hosts: Vec<String>,
    /// The one name the pages are served on.
    pub instance: InstanceHost,
    /// The tray's event streams: their cap and lifetime.
    pub streams: streams::EventStreams,
}

/// The human's routes, behind the Host check.
pub fn router(human: Arc<Human>) -> Router {
    Router::new()
        .route("/", get(pages::cockpit_page))
        .route("/cockpit.json", get(pages::cockpit_json))
        .route("/login", get(pages::login))
        .route("/logout", post(pages::logout))
        .route("/tray", get(pages::tray_page))
        .route("/tray/state.json", get(pages::tray_state))
        .route(streams::EVENTS_PATH, get(streams::tray_events))
        .route("/tray/stamp", post(acts::stamp))
        .route("/tray/ratify", post(acts::ratify))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&human), checks::check_host))
        .with_state(human)
}

/// A JSON answer, never cached (also `/health`'s).
pub(super) fn answer(status: StatusCode, body: &impl serde::Serialize) -> Response {
    let text = serde_json::to_string(body).unwrap_or_else(|_| "null".to_owned());
    (status, [(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-store")], text).into_response()
}

fn problem(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    answer(status, &json!({ "ok": false, "code": code, "error": message.into() }))
}

/// A request refused before it reached the store: status, code, reason.
pub(crate) struct Refused(StatusCode, &'static str, String);

impl Refused {
    /// The code a page reads (`origin`, `login`, `csrf`, …).
    pub(crate) fn code(&self) -> &'static str {
        self.1
    }
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        problem(self.0, self.1, self.2)
    }
}

fn html(body: String) -> Response {
    html_with_status(StatusCode::OK, body)
}

fn html_with_status(status: StatusCode, body: String) -> Response {
    let csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; \
               connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    (
        status,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")),
            (header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(csp)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            (header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
        ],
        body,
    )
        .into_response()
}

/// A failure of the service, answered with the status its kind says, and a
/// code a page can act on.
fn service_problem(e: &ServiceError) -> Response {
    let status = StatusCode::from_u16(e.kind().http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let code = match e {
        ServiceError::Cockpit(_) => "select",
        ServiceError::Act(refused) => acts::code(refused),
        _ => "store",
    };
    problem(status, code, e.to_string())
}
