//! A malformed call is refused at the service's edge, on the caller's task:
//! no reader thread runs it and no read transaction is opened for it.
//!
//! The service's own counters say what ran: a refused call adds no read.

use m1nd::service::{Options, Service};
use m1nd::store::Store;
use serde_json::{Value, json};

fn object(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_arguments_and_references_never_reach_a_reader() {
    let dir = tempfile::Builder::new().prefix("m1nd-edge-").tempdir().expect("dir");
    Store::init(dir.path(), true).expect("init");
    let service = Service::start(Options::new(dir.path())).expect("service");
    let refused = [
        (json!({ "select": "9.9.9.9.9" }), "valid forms"),
        (json!({ "select": "3.x" }), "valid forms"),
        (json!({ "select": true }), "must be a reference"),
        (json!({ "seen_store_version": "7" }), "must be an integer"),
        (json!({ "bogus": 1 }), "has no argument `bogus`"),
    ];
    for (args, why) in refused {
        let answer = service.call("cockpit", Some(&object(args.clone()))).await;
        assert!(answer.is_error(), "{args} was not refused");
        let text = String::from_utf8_lossy(answer.json()).into_owned();
        assert!(text.contains(why), "{args}: {text}");
    }
    assert_eq!(service.stats().reads, 0, "a refused call ran on a reader: {:?}", service.stats());

    // The control: a well-formed call does run on a reader.
    let answer = service.call("cockpit", Some(&object(json!({ "select": "3" })))).await;
    assert!(!answer.is_error(), "{}", String::from_utf8_lossy(answer.json()));
    assert_eq!(service.stats().reads, 1, "{:?}", service.stats());
}
