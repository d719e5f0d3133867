//! A gateway policy's `client_capabilities`, through the public API: what a
//! policy that names some, none, or a wrong one compiles to, and that m1nd's
//! own (cockpit) policy may not name any.

use m1nd_policy::{ClientCapability, Diagnostic, Law, PolicyFile, PolicySources, compile, compile_gateway};

const VERB: &str = "[verbs.read_it]\nsummary = \"Reads it\"\n";
const DENY: &str = "tools = []\n";

fn gateway_sources(tools: String) -> PolicySources {
    PolicySources::from_bytes("gw", move |f| match f {
        PolicyFile::Tools => Some(Box::leak(tools.clone().into_boxed_str()).as_bytes()),
        PolicyFile::Deny => Some(DENY.as_bytes()),
        _ => None,
    })
}

fn rendered(problems: &[Diagnostic], s: &PolicySources) -> String {
    problems.iter().map(|d| d.render(s)).collect::<Vec<_>>().join("\n")
}

fn offered(line: &str) -> Result<Vec<ClientCapability>, String> {
    let s = gateway_sources(format!("{line}\n{VERB}"));
    compile_gateway(&s).map(|g| g.client.to_vec()).map_err(|p| rendered(&p, &s))
}

#[test]
fn a_gateway_policy_offers_nothing_upstream_unless_it_says_so() {
    use ClientCapability::*;
    assert_eq!(offered(""), Ok(vec![]), "no `client_capabilities`: none offered (fail closed)");
    assert_eq!(offered("client_capabilities = []"), Ok(vec![]));
    assert_eq!(offered("client_capabilities = [\"roots\"]"), Ok(vec![Roots]));
    assert_eq!(
        offered("client_capabilities = [\"roots\", \"elicitation\", \"sampling\"]"),
        Ok(vec![Sampling, Elicitation, Roots]),
        "in one order, whatever the file's"
    );
}

#[test]
fn a_value_that_is_not_a_capability_is_an_m001_error_naming_the_nearest() {
    for (written, nearest) in [("samplng", "sampling"), ("Roots", "roots"), ("prompts", "")] {
        let s = gateway_sources(format!("client_capabilities = [\"{written}\"]\n{VERB}"));
        let problems = compile_gateway(&s).expect_err(written);
        let text = rendered(&problems, &s);
        assert_eq!(problems.len(), 1, "{text}");
        assert_eq!(problems[0].law, Law::M001);
        assert!(text.contains(&format!("`{written}` is not a client capability")), "{text}");
        assert!(text.contains("tools.toml:1:"), "the error points at the line: {text}");
        assert!(
            text.contains("the client capabilities here are `sampling`, `elicitation`, `roots`"),
            "the help lists every one: {text}"
        );
        if !nearest.is_empty() {
            assert!(text.contains(&format!("did you mean `{nearest}`?")), "{text}");
        }
    }
    let twice = offered("client_capabilities = [\"roots\", \"roots\"]").expect_err("named twice");
    assert!(twice.contains("`roots` is named twice"), "{twice}");
}

#[test]
fn m1nds_own_policy_offers_no_client_capabilities() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy");
    let read = |f: PolicyFile| std::fs::read_to_string(dir.join(f.file_name())).ok();
    let tools = format!("client_capabilities = [\"roots\"]\n{}", read(PolicyFile::Tools).expect("policy/tools.toml"));
    let files: Vec<(PolicyFile, String)> = PolicyFile::EVERY
        .into_iter()
        .filter_map(|f| if f == PolicyFile::Tools { Some((f, tools.clone())) } else { read(f).map(|t| (f, t)) })
        .collect();
    let s = PolicySources::from_bytes("policy", |f| {
        files.iter().find(|(g, _)| *g == f).map(|(_, t)| Box::leak(t.clone().into_boxed_str()).as_bytes())
    });
    let problems = compile(&s).expect_err("a cockpit policy with client capabilities");
    let text = rendered(&problems, &s);
    assert_eq!(problems.len(), 1, "{text}");
    assert_eq!(problems[0].law, Law::M001);
    assert!(text.contains("a cockpit policy declares no `client_capabilities`"), "{text}");
}
