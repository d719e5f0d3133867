//! The effect laws (M019, M020, M021 and M022) on the repository's policy and on broken
//! copies of it: each copy breaks one thing and must fail with that law, at
//! that place, and nothing else.

use std::path::Path;

use m1nd_policy::{Law, PolicyFile, PolicySources, compile};

fn real() -> PolicySources {
    PolicySources::read_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy"), "policy")
}

/// The real policy with `file` edited by `edit`.
fn edited(file: PolicyFile, edit: impl Fn(&str) -> String) -> PolicySources {
    let real = real();
    let changed = edit(real.text(file));
    assert_ne!(changed, real.text(file), "the edit must change {}", file.file_name());
    PolicySources::from_bytes("policy", |f| {
        if f == file { Some(changed.as_bytes()) } else { real.file(f).text.as_ref().ok().map(|t| t.as_bytes()) }
    })
}

/// Every rendered diagnostic of a policy that must fail.
fn failures(sources: &PolicySources) -> Vec<(Law, String)> {
    let problems = compile(sources).expect_err("the edited policy must not compile");
    problems.iter().map(|d| (d.law, d.render(sources))).collect()
}

#[test]
fn the_real_policy_keeps_every_effect_law() {
    let sources = real();
    if let Err(problems) = compile(&sources) {
        let shown: Vec<String> = problems.iter().map(|d| d.render(&sources)).collect();
        panic!("{}", shown.join("\n"));
    }
}

#[test]
fn a_deny_list_that_lags_the_catalog_fails() {
    let sources = edited(PolicyFile::Deny, |t| t.replacen("  \"ghost_edges\",\n", "", 1));
    let found = failures(&sources);
    assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), [Law::M021, Law::M022], "{found:#?}");
    let text = &found[0].1;
    assert!(text.contains("`ghost_edges` reaches `graph.ghost_edges`"), "{text}");
    assert!(text.contains("floor SCOPED_GRANT_A2"), "{text}");
    assert!(text.contains("--> policy/tools.toml:"), "{text}");
    // No longer denied, its help card would be shown: the menu law sees it too.
    assert!(found[1].1.contains("help card `hidden_coupling` calls `ghost_edges`"), "{}", found[1].1);
}

#[test]
fn a_deny_entry_for_a_pure_read_fails() {
    let sources =
        edited(PolicyFile::Deny, |t| t.replacen("  \"ghost_edges\",\n", "  \"ghost_edges\",\n  \"warmup\",\n", 1));
    let found = failures(&sources);
    assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), [Law::M021], "{found:#?}");
    assert!(found[0].1.contains("denies `warmup`, whose every action read-only mode allows"), "{}", found[0].1);
}

#[test]
fn a_status_only_value_that_writes_fails() {
    let sources =
        edited(PolicyFile::Deny, |t| t.replacen("allowed = [\"status\"]", "allowed = [\"status\", \"save\"]", 1));
    let found = failures(&sources);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, Law::M021);
    assert!(
        found[0].1.contains("`persist` with `action = \"save\"`, which reaches `store.persist.save_runtime`"),
        "{}",
        found[0].1
    );
}

#[test]
fn an_unknown_effect_in_the_catalog_names_its_line_and_the_closest_name() {
    let sources = edited(PolicyFile::Catalog, |t| t.replacen("\"GRAPH_MUTATION\"", "\"GRAPH_MUTATON\"", 1));
    let found = failures(&sources);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, Law::M019);
    assert!(found[0].1.contains("unknown variant `GRAPH_MUTATON`"), "{}", found[0].1);
    assert!(found[0].1.contains("did you mean `GRAPH_MUTATION`?"), "{}", found[0].1);
    assert!(found[0].1.contains("--> policy/catalog.json:11:9"), "{}", found[0].1);
}

#[test]
fn a_route_to_an_action_the_catalog_lacks_fails() {
    let sources =
        edited(PolicyFile::Effects, |t| t.replacen("[\"mission.post.landed\"]", "[\"mission.post.landd\"]", 1));
    let found = failures(&sources);
    assert!(found.iter().all(|f| f.0 == Law::M019), "{found:#?}");
    assert!(
        found
            .iter()
            .any(|f| f.1.contains("which catalog.json lacks") && f.1.contains("did you mean `mission.post.landed`?"))
    );
    // mission.post.landed is now reached by nothing, and it is an MCP action.
    assert!(
        found.iter().any(|f| f.1.contains("the MCP action `mission.post.landed` is reached by no route")),
        "{found:#?}"
    );
}

#[test]
fn a_verb_without_a_route_and_a_second_route_fail() {
    let sources = edited(PolicyFile::Effects, |t| {
        t.replacen(
            "[routes.mission_stamp]",
            "[routes.doctor]\nactions = [\"query.read\"]\n\n[routes.mission_stamp_]",
            1,
        )
    });
    let found = failures(&sources);
    let texts: Vec<&str> = found.iter().map(|f| f.1.as_str()).collect();
    assert!(found.iter().all(|f| f.0 == Law::M019), "{texts:#?}");
    assert!(texts.iter().any(|t| t.contains("`doctor` is routed twice")), "{texts:#?}");
    assert!(
        texts
            .iter()
            .any(|t| t.contains("a route names `mission_stamp_`") && t.contains("did you mean `mission_stamp`?"))
    );
    assert!(texts.iter().any(|t| t.contains("`mission_stamp` has no route to the catalog")), "{texts:#?}");
}

#[test]
fn an_allowance_without_a_reason_fails() {
    let sources = edited(PolicyFile::Effects, |t| {
        t.replacen(
            "[mode.read_only]\neffects = [\"READ\"]",
            "[mode.read_only]\neffects = [\"READ\", \"RUNTIME_STORE_WRITE\", \"GRAPH_MUTATON\"]",
            1,
        )
    });
    let found = failures(&sources);
    let texts: Vec<&str> = found.iter().map(|f| f.1.as_str()).collect();
    assert!(
        texts.iter().any(|t| t.starts_with("[M020] [mode.read_only] allows RUNTIME_STORE_WRITE without a reason")),
        "{texts:#?}"
    );
    assert!(texts.iter().any(|t| t.contains("did you mean `GRAPH_MUTATION`?")), "{texts:#?}");
}

#[test]
fn the_menu_may_not_reach_a_write_through_a_card() {
    // The map slot reading `audit` instead of the blocks snapshot.
    let sources = edited(PolicyFile::Cards, |t| t.replacen("tool = \"system_blocks_snapshot\"", "tool = \"audit\"", 1));
    let found = failures(&sources);
    assert!(
        found.iter().any(|f| f.0 == Law::M022
            && f.1.contains("slot 2's card `map` calls `audit`, which reaches `graph.audit.replace`")),
        "{found:#?}"
    );
}

#[test]
fn effect_files_come_together() {
    let real = real();
    let sources = PolicySources::from_bytes("policy", |f| match f {
        PolicyFile::Routes => None,
        f => real.file(f).text.as_ref().ok().map(|t| t.as_bytes()),
    });
    let found = failures(&sources);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].1.starts_with("[M001] routes.toml is missing, though the policy has effects.toml and catalog.json"),
        "{}",
        found[0].1
    );
}

#[test]
fn the_table_keeps_the_effects_and_they_survive_a_round_trip() {
    let table = compile(&real()).expect("the real policy compiles");
    assert_eq!(table.effects.modes.iter().map(|m| &*m.name).collect::<Vec<_>>(), ["read_only", "menu"]);
    let audit = table.effects.route("audit").expect("audit is routed");
    assert_eq!(&audit.actions[..], ["graph.audit.replace"]);
    let replace = table.effects.action("graph.audit.replace").expect("its action is kept");
    assert_eq!(replace.floor, "POSITIVE_SOVEREIGN");
    let read_only = table.effects.mode("read_only").expect("read-only mode");
    assert!(table.effects.excess(read_only, "audit").iter().any(|(_, what)| what == "floor POSITIVE_SOVEREIGN"));
    assert!(table.effects.excess(read_only, "doctor").is_empty());
    // Written back as policy files, the table compiles to itself.
    let sources = m1nd_policy::policy::decompile(&table, "generated");
    match compile(&sources) {
        Ok(again) => assert_eq!(again, table),
        Err(problems) => panic!("{}", problems.iter().map(|d| d.render(&sources)).collect::<Vec<_>>().join("\n")),
    }
}

#[test]
fn sarif_and_github_annotations_carry_the_effect_laws() {
    let sources = edited(PolicyFile::Deny, |t| t.replacen("  \"ghost_edges\",\n", "", 1));
    let problems = compile(&sources).expect_err("a deny list that lags");
    let sarif = m1nd_policy::policy::report::sarif(&problems, &sources);
    let rules: Vec<&str> = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    for law in ["M019", "M020", "M021", "M022"] {
        assert!(rules.contains(&law), "{rules:?}");
    }
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results[0]["ruleId"], "M021");
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "policy/tools.toml");
    let github = m1nd_policy::policy::report::github(&problems, &sources);
    assert!(
        github.lines().any(|l| l.starts_with("::error file=policy/tools.toml,line=") && l.contains("M021")),
        "{github}"
    );
}

#[test]
fn two_routes_claiming_one_value_are_refused_where_the_second_stands() {
    let sources = edited(PolicyFile::Routes, |t| {
        t.replacen(
            "status = [\"store.persist.status\"]\n",
            "status = [\"store.persist.status\"]\nstatus = [\"store.persist.save_runtime\"]\n",
            1,
        )
    });
    let found = failures(&sources);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].0, Law::M001);
    assert!(found[0].1.contains("duplicate key"), "{}", found[0].1);
    assert!(found[0].1.contains("each argument value once"), "{}", found[0].1);
}
