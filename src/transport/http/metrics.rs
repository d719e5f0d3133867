//! `GET /metrics`: what a replica has done and holds, for Prometheus.
//!
//! The Prometheus text format (version 0.0.4), written by the Prometheus
//! project's own client (`prometheus-client`), every name prefixed `m1nd_`:
//! the service's counters and histograms (calls by verb and decision, their
//! latency, commit group sizes, commits, reads; `service/stats.rs`), the
//! store version this replica's watchers were told and the calls waiting
//! for a reader (`service/metrics.rs`), and here the transport's own: open
//! MCP sessions and tray event streams, and one read of the store per
//! scrape (whether it answered, its version, the clock skew). Labels come from the compiled table and fixed
//! words only, never from a caller, so a scrape is bounded whatever clients
//! send. It answers under the rules of `/mcp`, as `/health` does: the same
//! `Host` names and, when one is set, the same bearer token.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::HttpOptions;
use super::health::{BUDGET, behind_mcp_rules};
use super::human::streams::{EventStreams, OpenStreams};
use super::sessions::CappedSessions;
use crate::service::{Service, gauge};

/// Where the metrics are served.
pub const METRICS_PATH: &str = "/metrics";

/// The content type of the Prometheus text format.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// `GET /metrics` for `service`, with the transport's `open` counts.
pub fn router(service: &Service, open: Open, http: &HttpOptions) -> Router {
    let mut registry = Registry::with_prefix("m1nd");
    service.register_metrics(&mut registry);
    registry.register_collector(Box::new(open));
    if let Some(identity) = &http.identity {
        identity.register(&mut registry);
    }
    let store = StoreGauges::default();
    store.register(&mut registry);
    let scrape_state = Arc::new(Scrape { registry, service: service.clone(), store });
    behind_mcp_rules(Router::new().route(METRICS_PATH, get(scrape)).with_state(scrape_state), http)
}

/// What a scrape needs: the registry, and the service to read the store through.
struct Scrape {
    registry: Registry,
    service: Service,
    store: StoreGauges,
}

/// What one read of the store at each scrape gives (the read `/health`
/// makes, within its budget); absent when that read fails, so a replica
/// whose store is unreachable shows no stale figure.
#[derive(Default)]
struct StoreGauges {
    up: Gauge,
    version: Gauge,
    skew_ms: Gauge,
}

impl StoreGauges {
    fn register(&self, registry: &mut Registry) {
        registry.register("store_up", "1 when this scrape's store read succeeded, else 0", self.up.clone());
        registry.register(
            "store_version_read",
            "The store_version this scrape read from the store (0 when the read failed)",
            self.version.clone(),
        );
        registry.register(
            "clock_skew_milliseconds",
            "How far this replica's clock is ahead of the database's (PostgreSQL; 0 on SQLite)",
            self.skew_ms.clone(),
        );
    }
}

async fn scrape(State(scrape): State<Arc<Scrape>>) -> Response {
    let read = tokio::time::timeout(BUDGET, scrape.service.health()).await;
    let health = read.ok().and_then(Result::ok);
    let store = &scrape.store;
    store.up.set(i64::from(health.is_some()));
    store.version.set(health.as_ref().map_or(0, |h| i64::try_from(h.store_version).unwrap_or(i64::MAX)));
    store.skew_ms.set(health.and_then(|h| h.clock_skew_millis).unwrap_or(0));
    let mut body = String::new();
    match prometheus_client::encoding::prometheus_text::encode(&mut body, &scrape.registry) {
        Ok(()) => ([(header::CONTENT_TYPE, CONTENT_TYPE), (header::CACHE_CONTROL, "no-store")], body).into_response(),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "the metrics could not be written").into_response(),
    }
}

/// The transport's counts, read at each scrape.
#[derive(Debug)]
pub struct Open {
    sessions: Arc<CappedSessions>,
    streams: OpenStreams,
}

impl Open {
    pub fn new(sessions: &Arc<CappedSessions>, streams: &EventStreams) -> Open {
        Open { sessions: Arc::clone(sessions), streams: streams.open_count() }
    }
}

impl Collector for Open {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let help = "MCP sessions open (clients of a protocol before 2026-07-28)";
        gauge(&mut encoder, "sessions", help, self.sessions.open())?;
        gauge(&mut encoder, "event_streams", "Tray event streams open (one per open tray tab)", self.streams.now())
    }
}
