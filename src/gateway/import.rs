//! `m1nd policy import`: list an upstream's tools and write a gateway policy
//! for a person to review (`--update` is update.rs).
//!
//! `tools.toml` gets the session mode, read-only (a person who reviewed the
//! deny list may change it), each tool's summary (the first line of its
//! description), its arguments (`requires` from the schema's `required`,
//! `accepts` for the rest) and the digest of its whole definition.
//! `read_only_denied.toml` is a proposal, every entry marked for review: by
//! default every tool is proposed denied, since an upstream's hints are not
//! evidence; with `--read-only-from-hints` only the tools that do not claim
//! `readOnlyHint: true` are, and the others are listed as comments. A tool
//! with an argument that may carry a language of its own (SQL, a shell
//! command; see [`super::free_text`]) gets a `# REVIEW:` line in `tools.toml`
//! and is proposed denied whatever it hints. `definitions.json` keeps the
//! definitions the pins match, as listed (see [`super::reviewed`]), every
//! invisible or control character written as a JSON escape; any such
//! character is reported under law M018 with its place and field (see
//! [`super::visible_review`]), and the import fails until a person allows
//! or drops it.
//!
//! Invariant: import takes every tool the upstream lists, under its exact
//! name, or writes nothing. A name the MCP specification does not allow, and
//! two names that fold together (law M016), are refused with the rule they
//! break; no tool is ever left out silently.

use std::fmt::Write as _;

use m1nd_policy::SessionMode;
use m1nd_policy::gateway::digest;
use m1nd_policy::guard::printable;
use m1nd_policy::names::spec::{self, toml_key};
use m1nd_policy::policy::Declared as PolicyDeclared;
use m1nd_policy::sanitize::escape::{Layout, escape};
use serde_json::Value;

use super::error::GatewayError;
use super::free_text;
use super::import_capabilities;
pub use super::import_listing::{ImportOptions, Listing, listing};
use super::import_surfaces;
use super::name_problem::NameProblem;
use super::reviewed::{DEFINITIONS_FILE, Reviewed};
use super::visible_review;

/// What an import produced.
pub struct Imported {
    pub tools_toml: String,
    pub deny_toml: String,
}

/// What `policy import` did, and what it left for the user to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// What to print.
    pub text: String,
    /// Why the command fails, with what to do, when work is left pending
    /// (`--update` found changed definitions and did not apply them).
    pub pending: Option<String>,
}

/// Run `policy import` without `--update`: write a new policy (see
/// the gateway module's `import`, which sends `--update` to update.rs).
pub async fn import(options: ImportOptions) -> Result<Report, GatewayError> {
    // A new policy offers no client capability: import lists as its gateway will.
    let Listing { tools: listed, surfaces } = listing(&options, &[]).await?;
    let needs = import_capabilities::needing(&options, &[], &listed).await?;
    let mut imported = files(&listed, options.read_only_from_hints).map_err(GatewayError::Names)?;
    imported.tools_toml.push_str(&import_surfaces::tables(&surfaces));
    let tools_path = options.dir.join("tools.toml");
    if tools_path.exists() {
        return Err(GatewayError::WouldOverwrite(tools_path));
    }
    std::fs::create_dir_all(&options.dir).map_err(|source| io("create", &options.dir, source))?;
    std::fs::write(&tools_path, &imported.tools_toml).map_err(|source| io("write", &tools_path, source))?;
    let deny_path = options.dir.join("read_only_denied.toml");
    std::fs::write(&deny_path, &imported.deny_toml).map_err(|source| io("write", &deny_path, source))?;
    let definitions_path = options.dir.join(DEFINITIONS_FILE);
    let reviewed = Reviewed { definitions: listed, surfaces: import_surfaces::declared(&surfaces) };
    let rendered = reviewed.render();
    std::fs::write(&definitions_path, &rendered).map_err(|source| io("write", &definitions_path, source))?;
    let shown = definitions_path.display().to_string();
    let hidden = visible_review::problems(&shown, &rendered, &reviewed, &PolicyDeclared::default());
    let pending = (!hidden.is_empty()).then(|| {
        let reports = hidden.iter().map(|r| format!("error: {r}")).collect::<Vec<_>>().join("\n\n");
        format!(
            "the upstream's definitions hold characters a reader cannot see ({} string{}, law M018; written \
             escaped in {shown}): `policy check` refuses the policy until each field is allowed in tools.toml or \
             its entry is left out\n\n{reports}",
            hidden.len(),
            if hidden.len() == 1 { "" } else { "s" },
        )
    });
    let dir = crate::invocation::shell_word(&options.dir.to_string_lossy());
    let mut text = format!(
        "wrote {}, {} and {} (the definitions the pins match, kept so that `--update` can show a change as a \
         readable diff): review every deny entry, then check with `{}`\n",
        tools_path.display(),
        deny_path.display(),
        definitions_path.display(),
        crate::invocation::m1nd(&format!("policy check --gateway {dir}"))
    );
    let update = crate::invocation::m1nd(&format!("policy import --update --policy {dir}"));
    text.push_str(&import_capabilities::report(&needs, &[], &tools_path.display().to_string(), &update));
    Ok(Report { text, pending })
}

fn io(op: &'static str, path: &std::path::Path, source: std::io::Error) -> GatewayError {
    GatewayError::Io { op, path: path.to_owned(), source }
}

/// Every listed tool's name, or every reason some cannot be declared.
fn names(listed: &[Value]) -> Result<Vec<&str>, Vec<NameProblem>> {
    let mut problems = Vec::new();
    let mut names = Vec::new();
    for (i, definition) in listed.iter().enumerate() {
        match definition.get("name").and_then(Value::as_str) {
            None => problems.push(NameProblem::Unnamed { position: i + 1 }),
            Some(name) => match spec::spec_problem(name) {
                Some(problem) => problems.push(NameProblem::OutsideSpec { name: printable(name), problem }),
                None => names.push(name),
            },
        }
    }
    for collision in spec::collisions(names.iter().copied()) {
        problems.push(NameProblem::Folded {
            first: names[collision.first].to_owned(),
            second: names[collision.second].to_owned(),
            folded: collision.folded,
        });
    }
    if problems.is_empty() { Ok(names) } else { Err(problems) }
}

/// The two files for a listing, or why its names cannot all be declared.
pub fn files(listed: &[Value], read_only_from_hints: bool) -> Result<Imported, Vec<NameProblem>> {
    let names = names(listed)?;
    let mut tools = String::from(
        "# tools.toml: imported by `m1nd policy import` from the upstream's tools/list.\n\
         # `definition` pins the digest of each tool's whole definition: if the upstream changes it, the\n\
         # gateway hides and refuses the tool until it is reviewed again (`m1nd policy import --update`).\n",
    );
    let _ = writeln!(
        tools,
        "\n# The session mode. {read_only}: the tools read_only_denied.toml lists are neither listed nor\n\
         # callable. Write \"{read_write}\" only if every session through this gateway may write; `--read-only`\n\
         # on the command line still makes a session read-only.\nmode = \"{read_only}\"",
        read_only = SessionMode::ReadOnly.key(),
        read_write = SessionMode::ReadWrite.key(),
    );
    let mut deny = String::from(
        "# read_only_denied.toml: PROPOSED by `m1nd policy import`. Review every entry: a read-only session\n\
         # may call exactly the tools that are not listed here.\n\
         tools = [\n",
    );
    let mut not_denied = String::new();
    for (definition, name) in listed.iter().zip(names) {
        tools.push('\n');
        tools.push_str(&verb_block(definition, name));
        let carries_text = free_text::arguments(definition);
        let hinted_read_only =
            definition.get("annotations").and_then(|a| a.get("readOnlyHint")).and_then(Value::as_bool) == Some(true);
        if read_only_from_hints && hinted_read_only && carries_text.is_empty() {
            let _ = writeln!(
                not_denied,
                "#   {} -- REVIEW: not proposed denied only because the upstream hints readOnlyHint: true",
                quote(name)
            );
        } else {
            let why = match (hinted_read_only, carries_text.first()) {
                (_, Some(flagged)) => {
                    format!("`{}` may carry {}, which no guard can read", flagged.argument, flagged.language)
                }
                (true, None) => "the upstream's hints are not trusted".to_owned(),
                (false, None) => "no readOnlyHint: true".to_owned(),
            };
            let _ = writeln!(deny, "  {}, # REVIEW: proposed denied ({why})", quote(name));
        }
    }
    deny.push_str("]\n");
    if !not_denied.is_empty() {
        deny.push_str("\n# Not listed above, so callable in read-only sessions:\n");
        deny.push_str(&not_denied);
    }
    Ok(Imported { tools_toml: tools, deny_toml: deny })
}

/// The `[verbs.NAME]` table `policy import` writes for one upstream tool:
/// its summary, arguments, definition pin and `# REVIEW:` lines. `--update`
/// proposes a tool new upstream with the same block.
pub fn verb_block(definition: &Value, name: &str) -> String {
    let mut block = String::new();
    let schema = definition.get("inputSchema");
    let properties: Vec<&str> = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).filter(|r| properties.contains(r)).collect())
        .unwrap_or_default();
    let accepts: Vec<&str> = properties.iter().copied().filter(|p| !required.contains(p)).collect();
    let summary = definition
        .get("description")
        .and_then(Value::as_str)
        .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(|l| l.chars().take(200).collect::<String>())
        .unwrap_or_else(|| format!("{name} (the upstream gives no description)"));
    // The summary is served as the description of an unpinned tool: visible, as law M018 wants.
    let _ = writeln!(block, "[verbs.{}]\nsummary = {}", toml_key(name), quote(&escape(&summary, Layout::Escape)));
    if !required.is_empty() {
        let _ = writeln!(block, "requires = {}", array(&required));
    }
    if !accepts.is_empty() {
        let _ = writeln!(block, "accepts = {}", array(&accepts));
    }
    let _ = writeln!(block, "definition = \"{}\"", digest(definition));
    let carries_text = free_text::arguments(definition);
    for flagged in &carries_text {
        let _ = writeln!(block, "# REVIEW: {flagged}");
    }
    block
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

fn array(items: &[&str]) -> String {
    format!("[{}]", items.iter().map(|i| quote(i)).collect::<Vec<_>>().join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use m1nd_policy::names::spec::SPEC_RULE;
    use m1nd_policy::{PolicyFile, PolicySources, compile_gateway};
    use serde_json::json;

    fn listed() -> Vec<Value> {
        vec![
            json!({"name": "read_it", "description": "Reads it.\nMore.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "dryRun": {"type": "boolean"}}, "required": ["path"]}, "annotations": {"readOnlyHint": true}}),
            json!({"name": "write_it", "description": "Writes it.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}, "annotations": {"destructiveHint": false}}),
            json!({"name": "NoSnake", "inputSchema": {"type": "object"}}),
        ]
    }

    fn named(names: &[&str]) -> Vec<Value> {
        names.iter().map(|n| json!({"name": n, "inputSchema": {"type": "object"}})).collect()
    }

    fn compiles(imported: &Imported) -> m1nd_policy::gateway::Gateway {
        let sources = PolicySources::from_bytes("imported", |f| match f {
            PolicyFile::Tools => Some(imported.tools_toml.as_bytes()),
            PolicyFile::Deny => Some(imported.deny_toml.as_bytes()),
            _ => None,
        });
        compile_gateway(&sources).unwrap_or_else(|p| panic!("{}", p[0].render(&sources)))
    }

    #[test]
    fn hints_are_only_a_starting_point_and_every_entry_is_marked_for_review() {
        let trusting = files(&listed(), true).expect("every name is declarable");
        let gateway = compiles(&trusting);
        assert_eq!(gateway.policy.deny.tools.iter().map(|t| &**t).collect::<Vec<_>>(), ["write_it", "NoSnake"]);
        assert!(trusting.deny_toml.contains("\"read_it\" -- REVIEW"));
        assert_eq!(
            gateway.mode,
            SessionMode::ReadOnly,
            "an imported policy is read-only until a person says otherwise"
        );

        let wary = compiles(&files(&listed(), false).expect("declarable"));
        assert_eq!(wary.policy.deny.tools.len(), 3, "without --read-only-from-hints every tool is proposed denied");
        for line in
            files(&listed(), false).expect("declarable").deny_toml.lines().filter(|l| l.trim_start().starts_with('"'))
        {
            assert!(line.contains("REVIEW"), "{line}");
        }
    }

    #[test]
    fn a_tool_that_takes_free_text_is_marked_for_review_and_proposed_denied_whatever_it_hints() {
        let mut listed = listed();
        listed.push(json!({"name": "run_query", "description": "Run a read-only SQL query.", "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}, "annotations": {"readOnlyHint": true}}));
        let imported = files(&listed, true).expect("every name is declarable");
        let gateway = compiles(&imported);
        assert!(gateway.policy.deny.tools.iter().any(|t| &**t == "run_query"), "{}", imported.deny_toml);
        assert!(imported.deny_toml.contains("\"run_query\", # REVIEW: proposed denied (`query` may carry SQL"));
        let section = imported.tools_toml.split("[verbs.run_query]").nth(1).expect("imported");
        assert!(section.contains("# REVIEW: `query` may carry SQL: a read-only guard sees the tool and the argument"));
        assert!(!imported.tools_toml.split("[verbs.run_query]").next().unwrap_or_default().contains("# REVIEW"));
    }

    #[test]
    fn each_tool_keeps_its_arguments_summary_and_definition_pin() {
        let gateway = compiles(&files(&listed(), true).expect("declarable"));
        let read = gateway.policy.verb("read_it").expect("imported");
        assert_eq!(&*read.summary, "Reads it.");
        assert_eq!(read.requires.iter().map(|a| &**a).collect::<Vec<_>>(), ["path"]);
        assert_eq!(read.accepts.iter().map(|a| &**a).collect::<Vec<_>>(), ["dryRun"]);
        let pinned = gateway.tool("read_it").and_then(|t| t.definition.as_deref());
        assert_eq!(pinned, Some(digest(&listed()[0]).as_str()));
    }

    #[test]
    fn every_name_shape_is_imported_under_its_exact_name() {
        let shapes = ["get-sum", "getSum2", "files.read", "echo_text", "M1ND.loud"];
        let imported = files(&named(&shapes), false).expect("all within the spec");
        assert!(imported.tools_toml.contains("[verbs.get-sum]"), "{}", imported.tools_toml);
        assert!(imported.tools_toml.contains("[verbs.\"files.read\"]"), "{}", imported.tools_toml);
        let gateway = compiles(&imported);
        let declared: Vec<&str> = gateway.policy.verbs.iter().map(|v| &*v.name).collect();
        assert_eq!(declared, shapes);
        assert_eq!(gateway.policy.deny.tools.iter().map(|t| &**t).collect::<Vec<_>>(), shapes);
    }

    #[test]
    fn names_outside_the_spec_and_names_that_fold_together_are_refused_with_their_rule() {
        let long = "x".repeat(129);
        let listed = [named(&["get-sum", "ok", "get_sum", "files/read", &long, "GetSum"]), vec![json!({})]].concat();
        let problems = files(&listed, false).err().expect("refused");
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(problems.len(), 5, "{text:#?}");
        assert!(
            text[0].starts_with("[M001] `files/read` is not a tool name") && text[0].contains(SPEC_RULE),
            "{}",
            text[0]
        );
        assert!(text[1].contains("it is 129 characters long"), "{}", text[1]);
        assert_eq!(problems[2], NameProblem::Unnamed { position: 7 });
        assert!(text[3].starts_with("[M016] `get-sum` and `get_sum` fold to the same name `getsum`"), "{}", text[3]);
        assert!(text[4].starts_with("[M016] `get-sum` and `GetSum`"), "{}", text[4]);
    }
}
