//! The service's part of `GET /metrics`: its counters (`stats.rs`), and the
//! values read at each scrape (the store version this replica's watchers
//! were told, and how many calls wait for a reader).

use std::sync::{Arc, Weak};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

use super::{Service, Shared};

impl Service {
    /// Register what the service counts and knows in `registry`.
    pub fn register_metrics(&self, registry: &mut Registry) {
        self.0.counters.register(registry);
        registry.register_collector(Box::new(Live(Arc::downgrade(&self.0))));
    }
}

/// The values read when scraped. Weak: a registry kept by the transport
/// does not keep the service's threads alive.
struct Live(Weak<Shared>);

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Live")
    }
}

impl Collector for Live {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Some(shared) = self.0.upgrade() else { return Ok(()) };
        if let Some(version) = *shared.writer.versions.borrow() {
            let help = "The newest store_version this replica's watchers (tray tabs) were told of; \
                        store_version_read minus this is how far behind they are";
            gauge(&mut encoder, "store_version_heard", help, version)?;
        }
        let (reads, looks) = (shared.reads.waiting(), shared.looks.waiting());
        gauge(&mut encoder, "reads_waiting", "Calls waiting for a reader (the argument-driven reads)", reads)?;
        gauge(&mut encoder, "looks_waiting", "Calls waiting for the look reader (the cockpit, the tray)", looks)
    }
}

/// One gauge read at the scrape, for a collector: `value` under `name`.
pub fn gauge(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    value: impl TryInto<i64>,
) -> Result<(), std::fmt::Error> {
    let gauge = ConstGauge::new(value.try_into().unwrap_or(i64::MAX));
    gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)
}
