//! The human's pages: the login link, the cockpit at `/` (the widget with a
//! view pasted in, one page load per choice), the tray page and its JSON
//! (its live stream of store versions is `streams.rs`). None of them writes
//! the store.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use m1nd_policy::runtime::{Request as CockpitRequest, json as view_json};
use serde_json::{Value, json};

use super::checks::{check_write, cookie, session};
use super::refusals::for_a_person;
use super::{Human, Refused, answer, authority, html, service_problem};
use crate::widget;

/// The tray page (its script fetches the state and sets it as text).
const TRAY_PAGE: &str = include_str!("../../../../widget/tray.html");

/// Where the page's CSRF token is written when the page is served.
const CSRF_MARKER: &str = "m1nd-csrf-token";

pub(super) async fn login(State(human): State<Arc<Human>>, request: Request) -> Response {
    let token = request
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|pair| pair.strip_prefix("token=")))
        .unwrap_or_default();
    match human.authority.spend(token) {
        Ok(opened) => (
            StatusCode::SEE_OTHER,
            [
                (header::SET_COOKIE, authority::set_cookie(&opened)),
                (header::LOCATION, "/tray".to_owned()),
                (header::CACHE_CONTROL, "no-store".to_owned()),
                (header::REFERRER_POLICY, "no-referrer".to_owned()),
            ],
        )
            .into_response(),
        Err(why) => for_a_person(Refused(StatusCode::UNAUTHORIZED, "login", why.to_string()), request.headers()),
    }
}

pub(super) async fn logout(State(human): State<Arc<Human>>, headers: HeaderMap) -> Response {
    if let Err(refused) = check_write(&human.authority, &headers) {
        return refused.into_response();
    }
    human.authority.logout(cookie(&headers));
    ([(header::SET_COOKIE, authority::clear_cookie())], answer(StatusCode::OK, &json!({ "ok": true }))).into_response()
}

/// The cockpit's JSON view at `?select=REF` (the root without one).
async fn view(human: &Human, select: Option<String>) -> Result<Value, Response> {
    let request = CockpitRequest { select, seen_store_version: None };
    let view = human.service.view(request).await.map_err(|e| service_problem(&e))?;
    Ok(view_json::to_value(&view))
}

/// `select` from the query, percent-decoded; undecodable text is passed on
/// as written, and the cockpit's reference grammar refuses it.
fn select_of(request: &Request) -> Option<String> {
    let query = request.uri().query()?;
    let raw = query.split('&').find_map(|pair| pair.strip_prefix("select="))?;
    Some(percent_decode(raw).unwrap_or_else(|| raw.to_owned()))
}

pub(crate) fn percent_decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                // Two hex digits, nothing else: `from_str_radix` alone would
                // also take a sign (`%+1`).
                let hex = bytes.get(i + 1..i + 3).filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
                out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
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

pub(super) async fn cockpit_page(State(human): State<Arc<Human>>, request: Request) -> Response {
    if let Err(refused) = session(&human, request.headers()) {
        return for_a_person(refused, request.headers());
    }
    match view(&human, select_of(&request)).await {
        Ok(view) => html(served_widget(&view)),
        Err(problem) => problem,
    }
}

pub(super) async fn cockpit_json(State(human): State<Arc<Human>>, request: Request) -> Response {
    if let Err(refused) = session(&human, request.headers()) {
        return refused.into_response();
    }
    match view(&human, select_of(&request)).await {
        Ok(view) => answer(StatusCode::OK, &view),
        Err(problem) => problem,
    }
}

pub(super) async fn tray_page(State(human): State<Arc<Human>>, headers: HeaderMap) -> Response {
    match session(&human, &headers) {
        Ok(session) => html(TRAY_PAGE.replacen(CSRF_MARKER, &session.csrf, 1)),
        Err(refused) => for_a_person(refused, &headers),
    }
}

pub(super) async fn tray_state(State(human): State<Arc<Human>>, headers: HeaderMap) -> Response {
    if let Err(refused) = session(&human, &headers) {
        return refused.into_response();
    }
    match human.service.tray().await {
        Ok(tray) => answer(StatusCode::OK, &tray),
        Err(e) => service_problem(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_is_percent_decoded() {
        assert_eq!(percent_decode("2.1%40mc_0a1b2c3d").as_deref(), Some("2.1@mc_0a1b2c3d"));
        assert_eq!(percent_decode("%3F+").as_deref(), Some("? "));
        assert_eq!(percent_decode("%4"), None);
        assert_eq!(percent_decode("%ff"), None);
    }
}
