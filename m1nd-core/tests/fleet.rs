//! A fleet's laws over members built in memory: M001 on fleet.toml, each
//! member's own laws, and M017 across members for tools, prompts,
//! resources and templates, every problem reported with its place.

use m1nd_policy::gateway::fleet::{FleetProblem, FleetSources, compile_fleet};
use m1nd_policy::{Law, PolicyFile, PolicySources};

#[path = "support/unicode.rs"]
mod unicode;

/// A member policy from its tools.toml (nothing denied).
fn member(dir: &str, tools: &str) -> PolicySources {
    PolicySources::from_bytes(dir, |file| match file {
        PolicyFile::Tools => Some(tools.as_bytes()),
        PolicyFile::Deny => Some(b"tools = []\n".as_slice()),
        _ => None,
    })
}

fn fleet(prefixes: [&str; 2], members: [&str; 2]) -> (FleetSources, Result<(), Vec<FleetProblem>>) {
    let config = format!(
        "[upstreams.a]\npolicy = \"a\"\nprefix = \"{}\"\ncommand = [\"a\"]\n\n\
         [upstreams.b]\npolicy = \"b\"\nprefix = \"{}\"\ncommand = [\"b\"]\n",
        prefixes[0], prefixes[1]
    );
    let sources = FleetSources::from_parts(
        "fleet",
        Ok(config),
        vec![member("fleet/a", members[0]), member("fleet/b", members[1])],
    );
    let compiled = compile_fleet(&sources).map(drop);
    (sources, compiled)
}

fn rendered(sources: &FleetSources, problems: &[FleetProblem]) -> Vec<String> {
    problems.iter().map(|p| p.render(sources)).collect()
}

const STATUS: &str = "[verbs.git_status]\nsummary = \"s\"\n";

#[test]
fn distinct_prefixes_keep_the_same_tool_of_two_upstreams_apart() {
    let (_, compiled) = fleet(["app_", "docs_"], [STATUS, STATUS]);
    assert!(compiled.is_ok(), "{compiled:?}");
}

#[test]
fn tools_that_fold_together_after_prefixing_are_m017_at_the_second_prefix() {
    let (sources, compiled) = fleet(["repo_", "REPO-"], [STATUS, STATUS]);
    let problems = compiled.unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].law(), Law::M017);
    assert_eq!(problems[0].position(&sources), "fleet/fleet.toml:8:10");
    let text = &rendered(&sources, &problems)[0];
    assert!(
        text.starts_with(
            "[M017] upstreams `a` and `b` serve tools `repo_git_status` and `REPO-git_status`, which fold to the same name"
        ),
        "{text}"
    );
    assert!(text.contains("--> fleet/fleet.toml:8:10") && text.contains("fleet/a/tools.toml:1:8"), "{text}");
    assert!(text.contains("fleet/b/tools.toml:1:8"), "{text}");
}

#[test]
fn a_prefix_that_swallows_a_name_collides_too() {
    // `x_` + `git_status` and `x_git_` + `status` are one served name.
    let (_, compiled) = fleet(["x_", "x_git_"], [STATUS, "[verbs.status]\nsummary = \"s\"\n"]);
    assert_eq!(compiled.unwrap_err().iter().map(FleetProblem::law).collect::<Vec<_>>(), [Law::M017]);
}

#[test]
fn prompts_resources_and_templates_that_two_upstreams_answer_for_are_each_reported() {
    let a = format!(
        "{STATUS}[prompts.review]\n[resources.\"file:///shared/readme\"]\n[templates.\"note://{{id}}\"]\n\
         [templates.\"docs://{{page}}\"]\n"
    );
    let b = format!(
        "{STATUS}[prompts.Review]\n[resources.\"file:///shared/readme\"]\n[resources.\"note://today\"]\n\
         [templates.\"docs://v2/{{page}}\"]\n"
    );
    let (sources, compiled) = fleet(["p_", "P-"], [&a, &b]);
    let problems = compiled.unwrap_err();
    let titles: Vec<String> =
        rendered(&sources, &problems).iter().map(|r| r.lines().next().unwrap_or_default().to_owned()).collect();
    assert_eq!(problems.len(), 5, "{titles:#?}");
    assert!(problems.iter().all(|p| p.law() == Law::M017));
    let expect = [
        "serve tools `p_git_status` and `P-git_status`",
        "serve prompts `p_review` and `P-Review`",
        "both declare the resource `file:///shared/readme`",
        "both answer for `note://today`, which the template `note://{id}` matches",
        "declare templates `docs://{page}` and `docs://v2/{page}`, which may match the same URI",
    ];
    for e in expect {
        assert!(titles.iter().any(|t| t.contains(e)), "no problem says {e:?}: {titles:#?}");
    }
}

#[test]
fn templates_whose_literal_heads_differ_never_collide() {
    let a = format!("{STATUS}[templates.\"docs://{{page}}\"]\n");
    let b = format!("{STATUS}[templates.\"notes://{{page}}\"]\n[resources.\"doc://x\"]\n");
    let (_, compiled) = fleet(["a_", "b_"], [&a, &b]);
    assert!(compiled.is_ok(), "{compiled:?}");
}

#[test]
fn a_members_own_violations_are_reported_in_its_files_and_m017_waits_for_them() {
    let broken = "[verbs.\"get-sum\"]\nsummary = \"s\"\n[verbs.getSum]\nsummary = \"s\"\n";
    let (sources, compiled) = fleet(["same_", "same_"], [broken, broken]);
    let problems = compiled.unwrap_err();
    assert_eq!(problems.iter().map(FleetProblem::law).collect::<Vec<_>>(), [Law::M016, Law::M016]);
    assert_eq!(problems[1].position(&sources), "fleet/b/tools.toml:3:8");
}

#[test]
fn a_served_name_past_128_characters_is_refused_at_the_prefix() {
    let long = format!("[verbs.{}]\nsummary = \"s\"\n", "t".repeat(120));
    let (sources, compiled) = fleet(["a_long_prefix_", "b_"], [&long, STATUS]);
    let problems = compiled.unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].law(), Law::M001);
    assert_eq!(problems[0].position(&sources), "fleet/fleet.toml:3:10");
}

#[test]
fn a_missing_fleet_file_is_m001_and_names_what_a_fleet_holds() {
    let sources = FleetSources::from_parts("fleet", Err(m1nd_policy::policy::ReadProblem::Missing), Vec::new());
    let problems = compile_fleet(&sources).unwrap_err();
    let text = problems[0].render(&sources);
    assert!(text.starts_with("[M001] fleet.toml cannot be used: the file is missing"), "{text}");
    assert!(text.contains("--> fleet/fleet.toml"), "{text}");
}

#[test]
fn the_digest_moves_with_a_prefix_an_endpoint_or_a_member_policy() {
    let digest = |config: &str, tools: &str| {
        let sources = FleetSources::from_parts("f", Ok(config.to_owned()), vec![member("f/a", tools)]);
        compile_fleet(&sources).expect("a sound fleet").digest()
    };
    let base = "[upstreams.a]\npolicy = \"a\"\nprefix = \"a_\"\ncommand = [\"srv\"]\n";
    let d = digest(base, STATUS);
    assert_eq!(d, digest(base, STATUS));
    assert_ne!(d, digest(&base.replace("a_", "b_"), STATUS));
    assert_ne!(d, digest(&base.replace("srv", "other"), STATUS));
    assert_ne!(d, digest(base, "[verbs.git_log]\nsummary = \"s\"\n"));
}

#[test]
fn two_names_of_one_upstream_that_fold_together_only_once_prefixed_are_m017() {
    // Folding strips `m1nd_` at the start of a name only: `m1nd_x` and `m1ndx` pass M016 (`x` and
    // `m1ndx`), but served as `git_m1nd_x` and `git_m1ndx` they are one name.
    let one = "[verbs.m1nd_x]\nsummary = \"s\"\n[verbs.m1ndx]\nsummary = \"s\"\n";
    let (sources, compiled) = fleet(["git_", "b_"], [one, STATUS]);
    let problems = compiled.unwrap_err();
    assert_eq!(problems.len(), 1);
    let text = problems[0].render(&sources);
    assert!(
        text.starts_with("[M017] upstream `a` serves tools `git_m1nd_x` and `git_m1ndx`, which fold to the same name"),
        "{text}"
    );
}

/// A fleet's diagnostics quote `fleet.toml` (an upstream's name, an unknown
/// key), which may hold a line break, a terminal escape or a bidi override;
/// each text must stay the one display-safe line its field promises.
#[test]
fn fuzz_fleet_diagnostics_quote_fleet_toml_on_one_line() {
    let forged = "a\\nerror: [M017] forged\\r\\u2028\\u202emanifest\\u001b[2J";
    for config in [
        format!("[upstreams.\"{forged}\"]\npolicy = \"a\"\nprefix = \"a_\"\n"),
        format!("[upstreams.a]\npolicy = \"a\"\nprefix = \"a_\"\ncommand = [\"a\"]\n\"{forged}\" = 1\n"),
    ] {
        let sources = FleetSources::from_parts("fleet", Ok(config), vec![]);
        let problems = compile_fleet(&sources).expect_err("a fleet.toml with a forged name");
        for problem in &problems {
            let FleetProblem::Fleet(d) = problem else { panic!("a problem of fleet.toml: {problem:?}") };
            let notes = d.related.iter().map(|(_, note)| note.as_str());
            for text in [&*d.title, &*d.label, &*d.help].into_iter().chain(notes) {
                let bad: Vec<String> = text
                    .chars()
                    .filter(|c| unicode::is_invisible(*c) || unicode::breaks_text(*c))
                    .map(|c| format!("U+{:04X}", c as u32))
                    .collect();
                assert!(bad.is_empty(), "{bad:?} in {text:?}");
            }
            let rendered = problem.render(&sources);
            assert!(!rendered.lines().any(|l| l.starts_with("error: [M017] forged")), "{rendered}");
        }
    }
}
