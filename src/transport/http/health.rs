//! `GET /health`: can this server read its store now?
//!
//! For a load balancer's checks (`deploy/haproxy.cfg`): a replica whose store
//! cannot be read is taken out of service, not only one that stops accepting
//! connections. The answer is
//! - 200 with `{"status": "ok", "store_version", "policy", "mode"}`: the
//!   version this read saw, the digest of the policy this binary enforces
//!   (replicas behind one address must enforce the same one, and a balancer
//!   or a person can compare them here), and `read-only` or `read-write`;
//!   on a PostgreSQL store also `clock_skew_ms`, how far this replica's
//!   clock is ahead of the database's (behind when negative), so a drifting
//!   replica shows up in the checks, not only in the warning at its start;
//! - 503 with `{"status": "unavailable", "cause", "reason"}` when the read
//!   fails or takes longer than [`BUDGET`]; `cause` says which:
//!   `database-unreachable`, `store-failed` or `slow`.
//!
//! It takes no argument and writes nothing. It answers under the rules of
//! `/mcp`: the same `Host` names and, when one is set, the same bearer
//! token. Answers are never cached.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use m1nd_policy::SessionMode;
use serde_json::json;

use super::HttpOptions;
use super::human::answer as json_answer;
use super::security::{self, LOOPBACK_HOSTS, host_name};
use crate::COCKPIT;
use crate::service::{Service, ServiceError};
use crate::store::StoreError;

/// Where the health answer is served.
pub const HEALTH_PATH: &str = "/health";

/// How long the store read may take before the answer is 503.
pub const BUDGET: Duration = Duration::from_secs(1);

/// `GET /health`, behind the `Host` rule and the token of `/mcp`.
pub fn router(service: Service, http: &HttpOptions) -> Router {
    behind_mcp_rules(Router::new().route(HEALTH_PATH, get(answer)).with_state(service), http)
}

/// `routes` behind the `Host` rule and the token of `/mcp`: for what a
/// balancer or a monitor asks (`/health`, `/metrics`), not a person.
pub fn behind_mcp_rules(routes: Router, http: &HttpOptions) -> Router {
    let hosts: Arc<Vec<String>> = Arc::new(
        LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).chain(http.allowed_hosts.iter().map(|h| host_name(h))).collect(),
    );
    security::guarded(routes.layer(middleware::from_fn_with_state(hosts, check_host)), http)
}

async fn answer(State(service): State<Service>) -> Response {
    let mode = if service.read_only() { SessionMode::ReadOnly } else { SessionMode::ReadWrite };
    let (status, body) = match tokio::time::timeout(BUDGET, service.health()).await {
        Ok(Ok(health)) => {
            let mut body = json!({
                "status": "ok",
                "store_version": health.store_version,
                "policy": &*COCKPIT.digest,
                "mode": mode.key(),
            });
            if let Some(skew) = health.clock_skew_millis {
                body["clock_skew_ms"] = json!(skew);
            }
            (StatusCode::OK, body)
        }
        Ok(Err(e)) => {
            let cause = match &e {
                ServiceError::Store(StoreError::Unavailable { .. })
                | ServiceError::Read { source: StoreError::Unavailable { .. }, .. } => Cause::DatabaseUnreachable,
                _ => Cause::StoreFailed,
            };
            (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({ "status": "unavailable", "cause": cause, "reason": e.to_string() }),
            )
        }
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({
                "status": "unavailable",
                "cause": Cause::Slow,
                "reason": format!("the store did not answer within {} ms", BUDGET.as_millis()),
            }),
        ),
    };
    json_answer(status, &body)
}

/// Why a 503: what an operator looks at first.
#[derive(serde::Serialize)]
#[serde(rename_all = "kebab-case")]
enum Cause {
    /// The store's database cannot be reached (PostgreSQL down, or the
    /// network to it); the replica itself is fine and serves again once
    /// the database is back.
    DatabaseUnreachable,
    /// The store answered with an error (damage, a full disk, a refusal).
    StoreFailed,
    /// The store did not answer within [`BUDGET`].
    Slow,
}

/// 403 unless `Host` names this server as `/mcp` accepts it.
async fn check_host(State(hosts): State<Arc<Vec<String>>>, request: Request, next: Next) -> Response {
    let host = request.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    if hosts.contains(&host_name(host)) {
        return next.run(request).await;
    }
    (StatusCode::FORBIDDEN, "Forbidden: this Host is not one the server answers to").into_response()
}
