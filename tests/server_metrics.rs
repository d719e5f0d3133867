//! `GET /metrics` on `m1nd serve --http`: the Prometheus text format, with
//! calls counted by verb and decision, the latency of those that ran, group
//! commits, one read of the store per scrape, and the transport's sessions;
//! labels from the table only, never a caller's words; behind `/mcp`'s
//! `Host` rule and token. Debian's Prometheus scrapes two replicas in the
//! end-to-end suite (`tests/e2e/test_metrics_prometheus.py`).

mod server_support;

use serde_json::json;
use server_support::http::{Era, HttpMcp, HttpServer, Reply};
use server_support::{demo_store, is_error};

const TOKEN: &str = "a-metrics-scrape-token-0123456789";

/// The value of the sample `series` (its name and labels, as written).
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn metrics(server: &HttpServer, headers: &[(&str, &str)]) -> Reply {
    server.get(&server.host(), "/metrics", headers)
}

#[test]
fn metrics_count_calls_by_verb_and_decision_and_read_the_store_once_a_scrape() {
    let (_dir, store) = demo_store("metrics");
    let mut mcp = HttpMcp::over(HttpServer::start(&store, &[], &[]), Era::Stateless, vec![]);
    for _ in 0..3 {
        assert!(!is_error(&mcp.call("cockpit", json!({}))));
    }
    let wrote = mcp.call("memorize", json!({"node_label": "test", "claims": [{ "label": "counted" }]}));
    assert!(!is_error(&wrote), "{wrote}");
    // A name no table knows, with markup in it: refused, and counted under a fixed word.
    let hostile = "no_such_verb\"} 1\nm1nd_forged 9";
    assert!(is_error(&mcp.call(hostile, json!({}))));

    let reply = metrics(&mcp.server, &[]);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.header("content-type"), Some("text/plain; version=0.0.4; charset=utf-8"));
    let text = reply.text();
    assert_eq!(sample(&text, r#"m1nd_calls_total{verb="cockpit",decision="answered"}"#), Some(3.0), "{text}");
    assert_eq!(sample(&text, r#"m1nd_calls_total{verb="memorize",decision="answered"}"#), Some(1.0), "{text}");
    assert_eq!(sample(&text, r#"m1nd_calls_total{verb="unresolved",decision="refused"}"#), Some(1.0), "{text}");
    assert!(!text.contains("no_such_verb") && !text.contains("m1nd_forged"), "{text}");
    assert_eq!(sample(&text, r#"m1nd_call_duration_seconds_count{verb="cockpit"}"#), Some(3.0), "{text}");
    assert_eq!(sample(&text, "m1nd_commits_total"), Some(1.0), "{text}");
    assert_eq!(sample(&text, r#"m1nd_commit_group_size_bucket{le="1"}"#), Some(1.0), "{text}");
    let version = server_support::version(&store);
    assert_eq!(sample(&text, "m1nd_store_up"), Some(1.0), "{text}");
    assert_eq!(sample(&text, "m1nd_store_version_read"), Some(version as f64), "{text}");
    assert_eq!(sample(&text, "m1nd_sessions"), Some(0.0), "{text}");
    assert_eq!(sample(&text, "m1nd_event_streams"), Some(0.0), "{text}");
}

#[test]
fn metrics_answer_under_the_host_rule_and_the_token_of_mcp() {
    let (_dir, store) = demo_store("metrics-guarded");
    let open = HttpServer::start(&store, &[], &[]);
    let reply = open.get("evil.example", "/metrics", &[]);
    assert_eq!(reply.status, 403, "{}", reply.text());

    let guarded = HttpServer::start(&store, &[], &[("M1ND_HTTP_TOKEN", TOKEN)]);
    assert_eq!(metrics(&guarded, &[]).status, 401);
    assert_eq!(metrics(&guarded, &[("Authorization", "Bearer not-the-token-0123456789")]).status, 401);
    let bearer = format!("Bearer {TOKEN}");
    let reply = metrics(&guarded, &[("Authorization", &bearer)]);
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(sample(&reply.text(), "m1nd_store_up"), Some(1.0), "{}", reply.text());
}
