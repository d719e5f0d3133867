//! A gateway policy's session mode, through the public API: what a policy
//! that declares one, none, or a wrong one compiles to, and that m1nd's own
//! (cockpit) policy may not declare one.

use m1nd_policy::{Diagnostic, Law, PolicyFile, PolicySources, SessionMode, compile, compile_gateway};

const VERB: &str = "[verbs.read_it]\nsummary = \"Reads it\"\n\n[verbs.write_it]\nsummary = \"Writes it\"\n";
const DENY: &str = "tools = [\"write_it\"]\n";

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

fn mode_of(line: &str) -> Result<SessionMode, String> {
    let s = gateway_sources(format!("{line}\n{VERB}"));
    compile_gateway(&s).map(|g| g.mode).map_err(|p| rendered(&p, &s))
}

#[test]
fn a_gateway_policy_is_read_only_unless_it_says_read_write() {
    assert_eq!(mode_of(""), Ok(SessionMode::ReadOnly), "no `mode`: read-only (fail closed)");
    assert_eq!(mode_of("mode = \"read-only\""), Ok(SessionMode::ReadOnly));
    assert_eq!(mode_of("mode = \"read-write\""), Ok(SessionMode::ReadWrite));
}

#[test]
fn a_mode_that_is_not_one_is_an_m001_error_naming_the_nearest() {
    for (written, nearest) in [("readonly", "read-only"), ("Read_Write", "read-write"), ("rw", "")] {
        let s = gateway_sources(format!("mode = \"{written}\"\n{VERB}"));
        let problems = compile_gateway(&s).expect_err(written);
        assert_eq!(problems.len(), 1, "{}", rendered(&problems, &s));
        assert_eq!(problems[0].law, Law::M001);
        let text = rendered(&problems, &s);
        assert!(text.contains(&format!("`{written}` is not a session mode")), "{text}");
        assert!(text.contains("tools.toml:1:"), "the error points at the line: {text}");
        if nearest.is_empty() {
            assert!(text.contains("`mode = \"read-only\"` or `mode = \"read-write\"`"), "{text}");
        } else {
            assert!(text.contains(&format!("did you mean `mode = \"{nearest}\"`?")), "{text}");
        }
    }
}

#[test]
fn m1nds_own_policy_declares_no_mode() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy");
    let read = |f: PolicyFile| std::fs::read_to_string(dir.join(f.file_name())).ok();
    let tools = format!("mode = \"read-only\"\n{}", read(PolicyFile::Tools).expect("policy/tools.toml"));
    let files: Vec<(PolicyFile, String)> = PolicyFile::EVERY
        .into_iter()
        .filter_map(|f| if f == PolicyFile::Tools { Some((f, tools.clone())) } else { read(f).map(|t| (f, t)) })
        .collect();
    let s = PolicySources::from_bytes("policy", |f| {
        files.iter().find(|(g, _)| *g == f).map(|(_, t)| Box::leak(t.clone().into_boxed_str()).as_bytes())
    });
    let problems = compile(&s).expect_err("a cockpit policy with a mode");
    let text = rendered(&problems, &s);
    assert_eq!(problems.len(), 1, "{text}");
    assert_eq!(problems[0].law, Law::M001);
    assert!(text.contains("a cockpit policy declares no `mode`") && text.contains("--read-only"), "{text}");
}
