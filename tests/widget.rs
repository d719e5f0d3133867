//! The widget as the server and the CLI hand it out: one template, compiled
//! in, served as an MCP App resource and pasted with a view by `--html`.

mod server_support;

use std::path::Path;
use std::process::Command;

use m1nd::widget;
use m1nd_policy::runtime::parse_reference;
use serde_json::{Value, json};
use server_support::{BIN, Mcp, demo_store, edited_demo_store, is_error, text};

/// The one list of references both grammars are held to (the browser suite
/// evaluates the widget's `isReference` over the same file).
const CORPUS: &str = include_str!("widget/references.json");

#[test]
fn the_rust_parser_agrees_with_the_reference_corpus() {
    let corpus: Vec<Value> = serde_json::from_str(CORPUS).expect("the corpus is JSON");
    assert!(corpus.iter().any(|c| c["valid"] == true) && corpus.iter().any(|c| c["valid"] == false));
    for case in &corpus {
        let reference = case["reference"].as_str().expect("a reference string");
        let valid = case["valid"].as_bool().expect("a verdict");
        assert_eq!(parse_reference(reference).is_ok(), valid, "{reference:?}: {:?}", parse_reference(reference));
    }
}

#[test]
fn the_template_loads_nothing_from_a_network() {
    let lower = widget::TEMPLATE.to_ascii_lowercase();
    for needle in
        ["http:", "https:", "//cdn", " src=", "href=", "@import", "url(", "@font-face", "fetch(", "xmlhttprequest"]
    {
        assert!(!lower.contains(needle), "the template contains `{needle}`");
    }
}

/// The widget digest a client can pin is the digest of the file in this
/// repository, and the template's URI carries its first 8 digits.
#[test]
fn the_server_attests_the_widget_template_in_the_repository() {
    let file = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("widget/cockpit.html")).expect("template");
    let digest = blake3::hash(&file).to_hex().to_string();
    let (_dir, store) = demo_store("widget-attested");
    let mcp = Mcp::read_only(&store);
    assert_eq!(mcp.init["_meta"]["io.m1nd/attestation"]["widget"], json!(digest), "{}", mcp.init);
    assert!(widget::uri().contains(&format!("-{}.html", &digest[..8])), "{}", widget::uri());
}

#[test]
fn the_server_serves_the_template_as_an_mcp_app() {
    let (_dir, store) = demo_store("widget-app");
    let mut mcp = Mcp::read_only(&store);
    assert_eq!(
        mcp.init["capabilities"]["extensions"]["io.modelcontextprotocol/ui"],
        json!({ "mimeTypes": [widget::MIME_TYPE] }),
        "{}",
        mcp.init["capabilities"]
    );

    let tools = mcp.tools();
    let cockpit = tools.iter().find(|t| t["name"] == "cockpit").expect("the cockpit tool");
    assert_eq!(cockpit["_meta"]["ui"]["resourceUri"], widget::uri());
    assert_eq!(cockpit["_meta"]["ui/resourceUri"], widget::uri());
    let others: Vec<&Value> = tools.iter().filter(|t| t["name"] != "cockpit" && t.get("_meta").is_some()).collect();
    assert!(others.is_empty(), "only the cockpit points at the widget: {others:?}");

    let listed = mcp.request("resources/list", json!({}));
    let resources = listed["result"]["resources"].as_array().expect("resources");
    assert_eq!(resources.len(), 1, "{listed}");
    assert_eq!(resources[0]["uri"], widget::uri());
    assert_eq!(resources[0]["mimeType"], widget::MIME_TYPE);

    let read = mcp.request("resources/read", json!({ "uri": widget::uri() }));
    let contents = &read["result"]["contents"];
    assert_eq!(contents.as_array().map(Vec::len), Some(1), "{read}");
    assert_eq!(contents[0]["uri"], widget::uri());
    assert_eq!(contents[0]["mimeType"], "text/html;profile=mcp-app");
    assert_eq!(contents[0]["text"], widget::TEMPLATE);
    let csp = &contents[0]["_meta"]["ui"]["csp"];
    let domains = csp.as_object().expect("a csp object");
    assert!(!domains.is_empty() && domains.values().all(|d| d == &json!([])), "{csp}");

    let stale = format!("ui://m1nd/{}-00000000.html", widget::VERSION);
    let missing = mcp.request("resources/read", json!({ "uri": stale }));
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
    assert!(missing["error"]["message"].as_str().unwrap_or_default().contains(widget::uri()), "{missing}");
}

#[test]
fn every_cockpit_result_carries_the_card_and_the_view() {
    let (_dir, store) = demo_store("widget-skins");
    let mut mcp = Mcp::read_only(&store);
    for select in ["", "2", "2.1", "2.1.1", "1", "0"] {
        let result = mcp.call("cockpit", json!({ "select": select }));
        assert!(!is_error(&result), "{select}: {result}");
        let card = cli(&store, &[select]);
        let view: Value = serde_json::from_str(&cli(&store, &[select, "--json"])).expect("JSON view");
        assert_eq!(text(&result), card.trim_end(), "{select}: the text card");
        assert_eq!(result["structuredContent"], view, "{select}: the JSON view");
    }
}

#[test]
fn pasted_mode_embeds_the_view_so_no_state_string_ends_the_script() {
    let hostile = "</script><script>window.__pwned=1</script><!--\u{2028}\u{2029}&amp;";
    let (_dir, store) = edited_demo_store("widget-pasted", |state| {
        state["missions"][0]["title"] = json!(hostile);
    });

    let page = cli(&store, &["3", "--html"]);
    let view: Value = serde_json::from_str(&cli(&store, &["3", "--json"])).expect("JSON view");
    assert!(view.to_string().contains("</script>"), "the hostile title reaches the view: {view}");
    assert_eq!(page.matches("</script>").count(), widget::TEMPLATE.matches("</script>").count());
    assert!(!page.contains('\u{2028}') && !page.contains('\u{2029}') && !page.contains("<!--\u{2028}"));

    let (before, after) = widget::TEMPLATE.split_once(widget::MARKER).expect("the marker");
    let embedded = page.strip_prefix(before).and_then(|rest| rest.trim_end().strip_suffix(after.trim_end()));
    let embedded: Value = serde_json::from_str(embedded.expect("the template around the view")).expect("JSON");
    assert_eq!(embedded, view);
}

fn cli(store: &Path, args: &[&str]) -> String {
    let out = Command::new(BIN).arg("cockpit").args(args).arg("--store").arg(store).output().expect("run m1nd");
    assert!(out.status.success(), "m1nd cockpit {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}
