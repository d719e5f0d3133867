//! Who may reach the human's pages, decided before a handler runs: the
//! instance host on every request (any other name the server answers to is
//! told where the tray lives, and nothing more), the session on every page,
//! and for a write also a same-origin `Origin`, no cross-site
//! `Sec-Fetch-Site` and the session's CSRF token. Each refusal is answered
//! before the store is opened.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::authority::{Authority, Session};
use super::refusals::not_here;
use super::{Human, Refused, problem};
use crate::transport::http::security::host_name;

/// The header carrying the CSRF token.
pub const CSRF_HEADER: &str = "x-m1nd-csrf";

/// Where a request to the human's pages may go: on to its handler on the
/// instance host; to an explanation (421, no cookie set or read) on the
/// other names the server answers to; to 403 anywhere else.
pub(super) async fn check_host(State(human): State<Arc<Human>>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    let name = host_name(host);
    if name == human.instance.name() {
        return next.run(request).await;
    }
    let allowed =
        crate::transport::http::security::LOOPBACK_HOSTS.contains(&name.as_str()) || human.hosts.contains(&name);
    if !allowed {
        return problem(StatusCode::FORBIDDEN, "host", "Forbidden: this Host is not one the server answers to");
    }
    not_here(request.headers())
}

pub(crate) fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::COOKIE).and_then(|c| c.to_str().ok())
}

pub(super) fn session(human: &Human, headers: &HeaderMap) -> Result<Session, Refused> {
    session_of(&human.authority, headers)
}

fn session_of(authority: &Authority, headers: &HeaderMap) -> Result<Session, Refused> {
    authority.session(cookie(headers)).ok_or_else(|| {
        Refused(
            StatusCode::UNAUTHORIZED,
            "login",
            "no session: open the login link that `m1nd serve --http` printed in its terminal (it works once)".into(),
        )
    })
}

/// Same origin, not cross-site, and the session's CSRF token.
pub(crate) fn check_write(authority: &Authority, headers: &HeaderMap) -> Result<(), Refused> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    let origin = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok());
    if origin != Some(&format!("http://{host}")) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "origin",
            "Forbidden: a write must come from the tray's own page".into(),
        ));
    }
    // Present, it must read `same-origin`: a value that is not text is no
    // more same-origin than `cross-site` is.
    let site = headers.get("sec-fetch-site").map(|s| s.to_str().ok());
    if site.is_some_and(|s| s != Some("same-origin")) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "origin",
            "Forbidden: a write must come from the tray's own page".into(),
        ));
    }
    let session = session_of(authority, headers)?;
    if !session.admits(headers.get(CSRF_HEADER).and_then(|c| c.to_str().ok())) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            "csrf",
            "Forbidden: the CSRF token is missing or wrong; reload the tray".into(),
        ));
    }
    Ok(())
}
