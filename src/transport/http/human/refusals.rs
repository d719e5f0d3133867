//! How a person who may not see a page is answered: a browser gets the
//! static login page (no state, no script), a script or an agent the JSON
//! refusal. Both the checks in front of the pages and the pages themselves
//! answer this way, so it lives apart from either.

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::{Refused, html_with_status};

/// What a browser that has not logged in sees instead of a 401's JSON: a
/// static page (no state, no script) saying where the login link is.
pub(super) const LOGIN_PAGE: &str = include_str!("../../../../widget/login.html");

/// Whether the client asked for a page: a browser's navigation names
/// `text/html` in `Accept`; a script or an agent asks for JSON.
pub(super) fn wants_a_page(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|media| media.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("text/html")))
}

/// The answer to a request for the human's pages on a name that is not the
/// instance host (`127.0.0.1`, `localhost`, an `--allow-host` name): 421, and
/// where the tray lives, as the login page for a browser or as JSON. It names
/// no instance host (that name is printed only in the login link), and sets
/// and reads no cookie, so a session never lives on a name every local
/// server shares.
pub(super) fn not_here(headers: &HeaderMap) -> Response {
    if wants_a_page(headers) {
        return html_with_status(StatusCode::MISDIRECTED_REQUEST, LOGIN_PAGE.to_owned());
    }
    Refused(
        StatusCode::MISDIRECTED_REQUEST,
        "tray_host",
        "the tray and the cockpit are served only at the address in the login link `m1nd serve --http` printed in \
         its terminal (http://m1nd-<random>.localhost:<port>/login?token=…), not on this host name; agents keep \
         using /mcp here"
            .into(),
    )
    .into_response()
}

/// A refused page request as its client should see it: a missing session
/// is the login page for a browser, and the JSON refusal for anything else.
pub(super) fn for_a_person(refused: Refused, headers: &HeaderMap) -> Response {
    if refused.0 == StatusCode::UNAUTHORIZED && wants_a_page(headers) {
        return html_with_status(StatusCode::UNAUTHORIZED, LOGIN_PAGE.to_owned());
    }
    refused.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, value.parse().expect("header"));
        headers
    }

    #[test]
    fn a_browser_asks_for_a_page_and_a_script_does_not() {
        let firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert!(wants_a_page(&accept(firefox)));
        assert!(wants_a_page(&accept("Text/HTML; charset=utf-8")));
        assert!(!wants_a_page(&accept("application/json")));
        assert!(!wants_a_page(&accept("*/*")));
        assert!(!wants_a_page(&HeaderMap::new()));
    }

    #[test]
    fn the_login_page_is_static() {
        assert!(!LOGIN_PAGE.contains("<script"), "the login page runs nothing");
        assert!(LOGIN_PAGE.contains("/login?token="), "it shows the shape of the link to open");
    }
}
