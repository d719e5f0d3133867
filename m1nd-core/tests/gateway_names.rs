//! Names as servers spell them, through the public API: a gateway policy
//! declares tools under their upstream names, M001 holds them to the MCP
//! specification, M016 refuses two that fold together, and the guard folds
//! a client's spelling to the one exact upstream name it forwards.

#[path = "support/gateway_policy.rs"]
mod gateway_policy;

use m1nd_policy::gateway::{self, Gateway, GatewayRefused, View, Why};
use m1nd_policy::guard::{Guard, Refused};
use m1nd_policy::{Law, compile_gateway};
use serde_json::{Value, json};

const TOOLS: &str = r#"[verbs.get-sum]
summary = "Adds two integers."
requires = ["a", "b"]

[verbs."files.read"]
summary = "Reads one item."
requires = ["name"]

[verbs.deleteItem]
summary = "Deletes one item."
requires = ["name"]
"#;

use gateway_policy::{rendered, sources};

const DENY: &str = "tools = [\"deleteItem\"]\n";

fn policy() -> Gateway {
    let s = sources(TOOLS, DENY);
    compile_gateway(&s).unwrap_or_else(|p| panic!("{}", rendered(&p, &s)))
}

fn listed(names: &[&str]) -> Vec<Value> {
    names.iter().map(|n| json!({"name": n, "inputSchema": {"type": "object"}})).collect()
}

#[test]
fn a_gateway_policy_keeps_every_upstream_name_exactly() {
    let g = policy();
    let names: Vec<&str> = g.policy.verbs.iter().map(|v| &*v.name).collect();
    assert_eq!(names, ["get-sum", "files.read", "deleteItem"]);
    assert_eq!(g.policy.deny.tools.iter().map(|t| &**t).collect::<Vec<_>>(), ["deleteItem"]);
    // A deny entry in another spelling names the same tool, lowered to its exact name.
    let s = sources(TOOLS, "tools = [\"DELETE-ITEM\"]\n");
    let g = compile_gateway(&s).unwrap_or_else(|p| panic!("{}", rendered(&p, &s)));
    assert_eq!(g.policy.deny.tools.iter().map(|t| &**t).collect::<Vec<_>>(), ["deleteItem"]);
}

#[test]
fn a_client_spelling_resolves_to_the_exact_upstream_name_or_is_refused_in_every_form() {
    let g = policy();
    let guard = Guard::for_gateway(&g, true);
    let view = View::new(&g, &guard, &listed(&["get-sum", "files.read", "deleteItem"]));
    let arguments = json!({"a": 1, "b": 2}).as_object().cloned();
    for written in ["get-sum", "getSum", "GET_SUM", "get.sum", "m1nd.get-sum", "M1ND_GetSum", " getsum "] {
        let forward = gateway::check(&g, &guard, &view, written, arguments.as_ref()).expect(written);
        assert_eq!(forward.upstream, "get-sum", "{written:?}");
    }
    for written in ["deleteItem", "delete-item", "delete_item", "DELETE.ITEM", "m1nd.deleteItem", "m1nd-delete-item"] {
        let refused = gateway::check(&g, &guard, &view, written, None).expect_err(written);
        assert!(matches!(refused, GatewayRefused::Guard(Refused::ReadOnly(_))), "{written:?}: {refused:?}");
        assert!(refused.to_string().contains("read_only_denied.toml lists `deleteItem` in `tools`"), "{refused}");
    }
    let look_alike = gateway::check(&g, &guard, &view, "d\u{0435}leteItem", None);
    assert!(matches!(look_alike, Err(GatewayRefused::Guard(Refused::LookAlike { .. }))), "{look_alike:?}");
}

#[test]
fn an_upstream_name_outside_the_spec_is_hidden_saying_why() {
    let g = policy();
    let guard = Guard::for_gateway(&g, false);
    let long = "x".repeat(129);
    let huge = "y".repeat(300);
    let view = View::new(&g, &guard, &listed(&["get-sum", "files/read", &long, "getSum", &huge]));
    let hidden: Vec<(&str, &Why)> = view.hidden().iter().map(|h| (h.upstream.as_str(), &h.why)).collect();
    assert!(matches!(hidden[0], ("files/read", Why::OutsideSpec { .. })), "{hidden:?}");
    assert!(
        matches!(hidden[1].1, Why::OutsideSpec { problem } if problem == "it is 129 characters long"),
        "{hidden:?}"
    );
    let huge_why = Why::OutsideSpec { problem: "it is 300 bytes long".into() };
    assert!(hidden.iter().any(|(_, w)| **w == huge_why), "{hidden:?}");
    let text = view.hidden()[0].to_string();
    assert!(text.contains("no policy can declare") && text.contains("1 to 128 characters"), "{text}");
    // Two upstream tools that fold to one declared name: neither is served.
    assert!(view.offered().iter().all(|o| o.upstream != "get-sum" && o.upstream != "getSum"), "{:?}", view.offered());
    assert!(hidden.iter().any(|(_, w)| matches!(w, Why::Ambiguous { verb } if verb == "get-sum")), "{hidden:?}");
}

#[test]
fn m001_refuses_a_name_the_spec_does_not_allow_quoting_the_rule() {
    let long = "x".repeat(129);
    for (name, why) in [("files/read", "it holds `/`"), (long.as_str(), "it is 129 characters long")] {
        let s = sources(&format!("[verbs.{name:?}]\nsummary = \"s\"\n"), "tools = []\n");
        let problems = compile_gateway(&s).expect_err(name);
        assert_eq!(problems.len(), 1, "{}", rendered(&problems, &s));
        assert_eq!(problems[0].law, Law::M001);
        let text = problems[0].render(&s);
        assert!(text.contains(why) && text.contains("1 to 128 characters"), "{text}");
    }
    // m1nd's own rule is not a gateway's: snake_case is one shape among several there.
    let s = sources("[verbs.getSum]\nsummary = \"s\"\n", "tools = []\n");
    assert!(compile_gateway(&s).is_ok());
}

#[test]
fn m016_points_at_both_names_that_fold_together() {
    let tools = format!("{TOOLS}\n[verbs.GET_SUM]\nsummary = \"Adds, again.\"\nrequires = [\"a\", \"b\"]\n");
    let s = sources(&tools, DENY);
    let problems = compile_gateway(&s).expect_err("M016");
    assert_eq!(problems.iter().map(|d| d.law).collect::<Vec<_>>(), [Law::M016], "{}", rendered(&problems, &s));
    let text = problems[0].render(&s);
    assert!(text.starts_with("[M016] tools `get-sum` and `GET_SUM` fold to the same name `getsum`"), "{text}");
    let second = tools.lines().position(|l| l == "[verbs.GET_SUM]").expect("written") + 1;
    assert!(text.contains(&format!("--> gw/tools.toml:{second}:8")), "{text}");
    assert!(text.contains("::: gw/tools.toml:1:8"), "{text}");
}
