//! Writes while the database restarts and stops, against a PostgreSQL
//! server of the test's own (`test_server::Cluster`, so no other test's
//! server goes down): every write the store acknowledged is in the
//! database, and every write it refused as "nothing changed" is not. A
//! write whose outcome could not be learnt ([`StoreError::OutcomeUnknown`])
//! may be either, and is counted.
//!
//! Ignored by `cargo test`: it needs Debian's postgresql package and takes
//! about a minute. CI runs it (`.ci/run`, the tests step), and so can you:
//! `cargo test -p m1nd --lib store::pg::outage_tests -- --ignored`.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};

use super::super::location::Location;
use super::super::{DEFAULT_MAX_BYTES, State, Store, StoreError};
use super::test_server::{Cluster, cluster};

/// What the store said of one write.
#[derive(Default)]
struct Outcomes {
    acknowledged: BTreeSet<String>,
    refused: BTreeSet<String>,
    unknown: BTreeSet<String>,
}

/// Write claims one after another until `stop`, reopening the store (every
/// 50 ms, while the server is down) after any failure.
fn burst(at: &Location, stop: &AtomicBool) -> Outcomes {
    let mut outcomes = Outcomes::default();
    let mut store = Store::open_at(at).ok();
    let mut n = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
        let Some(open) = store.as_mut() else {
            thread::sleep(Duration::from_millis(50));
            store = Store::open_at(at).ok();
            continue;
        };
        n += 1;
        let claim = format!("claim {n}");
        match open.memorize(&claim, "outage", None, None) {
            Ok(_) => {
                outcomes.acknowledged.insert(claim);
            }
            Err(StoreError::OutcomeUnknown { .. }) => {
                outcomes.unknown.insert(claim);
                store = None;
            }
            Err(_) => {
                outcomes.refused.insert(claim);
                store = None;
            }
        }
    }
    outcomes
}

#[test]
#[ignore = "starts, restarts and stops a PostgreSQL server of its own (Debian's postgresql); CI runs it with --ignored"]
fn writes_across_restarts_and_stops_are_stored_exactly_when_acknowledged() {
    let server = Cluster::up();
    let at = Location::from(std::ffi::OsString::from(&server.url));
    drop(Store::create_at(&at, &State::empty(), DEFAULT_MAX_BYTES).expect("a store"));
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (at, stop) = (at.clone(), Arc::clone(&stop));
        thread::spawn(move || burst(&at, &stop))
    };
    // Five fast restarts and two stops of a second, each mid-burst.
    for round in 0..7 {
        thread::sleep(Duration::from_millis(400));
        if round % 3 == 2 {
            cluster(&["pause", "1", &server.dir]);
        } else {
            cluster(&["restart", &server.dir]);
        }
    }
    thread::sleep(Duration::from_millis(400));
    stop.store(true, Ordering::Relaxed);
    let outcomes = writer.join().expect("the writer");

    let mut client = Client::connect(&server.url, NoTls).expect("connect after the outages");
    let stored: BTreeSet<String> =
        client.query("SELECT claim FROM memories", &[]).expect("read").iter().map(|row| row.get(0)).collect();
    let lost: Vec<_> = outcomes.acknowledged.difference(&stored).collect();
    let phantom: Vec<_> = outcomes.refused.intersection(&stored).collect();
    eprintln!(
        "{} acknowledged, {} refused, {} unknown ({} of those stored), {} stored",
        outcomes.acknowledged.len(),
        outcomes.refused.len(),
        outcomes.unknown.len(),
        outcomes.unknown.intersection(&stored).count(),
        stored.len()
    );
    assert!(lost.is_empty(), "acknowledged but not stored: {lost:?}");
    assert!(phantom.is_empty(), "refused as \"nothing changed\" but stored: {phantom:?}");
    assert!(outcomes.refused.len() + outcomes.unknown.len() >= 7, "the outages cut no write: the test proved nothing");
    assert!(outcomes.acknowledged.len() > 50, "too few writes landed to mean anything");
}
