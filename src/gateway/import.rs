//! `m1nd policy import`: list an upstream's tools and write a gateway policy
//! for a person to review.
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
//! and is proposed denied whatever it hints.

use std::fmt::Write as _;
use std::path::PathBuf;

use m1nd_core::SessionMode;
use m1nd_core::gateway::digest;
use m1nd_core::names::is_canonical_spelling;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use serde_json::Value;

use super::error::GatewayError;
use super::free_text;
use super::upstream::{Upstream, list};

/// What `policy import` was asked to do.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    pub upstream: Upstream,
    /// Where the policy is written.
    pub dir: PathBuf,
    /// Trust `readOnlyHint: true` as a starting point for the deny list.
    pub read_only_from_hints: bool,
    /// Compare with the policy already in `dir` instead of writing one.
    pub update: bool,
}

/// What an import produced.
pub struct Imported {
    pub tools_toml: String,
    pub deny_toml: String,
    /// Upstream tools left out, with why.
    pub skipped: Vec<String>,
}

/// List the upstream and build the two policy files.
pub async fn import_files(options: &ImportOptions) -> Result<Imported, GatewayError> {
    let handler = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("m1nd-policy-import", env!("CARGO_PKG_VERSION")),
    );
    let client = options.upstream.connect(handler).await?;
    let listed = list(client.peer(), options.upstream.start_timeout).await;
    let _ = client.cancel().await;
    Ok(files(&listed?, options.read_only_from_hints))
}

/// Run `policy import`: write the files, or with `update` return the diff.
pub async fn import(options: ImportOptions) -> Result<String, GatewayError> {
    let imported = import_files(&options).await?;
    let tools_path = options.dir.join("tools.toml");
    let mut report = String::new();
    for skipped in &imported.skipped {
        let _ = writeln!(report, "skipped: {skipped}");
    }
    if options.update {
        let old = std::fs::read_to_string(&tools_path).map_err(|source| io("read", &tools_path, source))?;
        let diff = similar::TextDiff::from_lines(&old, &imported.tools_toml);
        if diff.ratio() == 1.0 {
            let _ = writeln!(report, "{}: every pin matches the upstream", tools_path.display());
        } else {
            let _ = write!(
                report,
                "{}",
                diff.unified_diff()
                    .context_radius(3)
                    .header(&format!("{} (reviewed)", tools_path.display()), "upstream now")
            );
        }
        return Ok(report);
    }
    if tools_path.exists() {
        return Err(GatewayError::WouldOverwrite(tools_path));
    }
    std::fs::create_dir_all(&options.dir).map_err(|source| io("create", &options.dir, source))?;
    std::fs::write(&tools_path, &imported.tools_toml).map_err(|source| io("write", &tools_path, source))?;
    let deny_path = options.dir.join("read_only_denied.toml");
    std::fs::write(&deny_path, &imported.deny_toml).map_err(|source| io("write", &deny_path, source))?;
    let _ = writeln!(
        report,
        "wrote {} and {}: review every deny entry, then check with `{}`",
        tools_path.display(),
        deny_path.display(),
        crate::invocation::m1nd(&format!(
            "policy check --gateway {}",
            crate::invocation::shell_word(&options.dir.to_string_lossy())
        ))
    );
    Ok(report)
}

fn io(op: &'static str, path: &std::path::Path, source: std::io::Error) -> GatewayError {
    GatewayError::Io { op, path: path.to_owned(), source }
}

/// The two files for a listing.
pub fn files(listed: &[Value], read_only_from_hints: bool) -> Imported {
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
    let mut skipped = Vec::new();
    for definition in listed {
        let Some(name) = definition.get("name").and_then(Value::as_str) else {
            skipped.push("a tool without a name".to_owned());
            continue;
        };
        if !is_canonical_spelling(name) {
            skipped.push(format!("`{name}`: a policy verb is lower-case ASCII snake_case"));
            continue;
        }
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
        let _ = writeln!(tools, "\n[verbs.{name}]\nsummary = {}", quote(&summary));
        if !required.is_empty() {
            let _ = writeln!(tools, "requires = {}", array(&required));
        }
        if !accepts.is_empty() {
            let _ = writeln!(tools, "accepts = {}", array(&accepts));
        }
        let _ = writeln!(tools, "definition = \"{}\"", digest(definition));
        let carries_text = free_text::arguments(definition);
        for flagged in &carries_text {
            let _ = writeln!(tools, "# REVIEW: {flagged}");
        }
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
    Imported { tools_toml: tools, deny_toml: deny, skipped }
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
    use m1nd_core::{PolicyFile, PolicySources, compile_gateway};
    use serde_json::json;

    fn listed() -> Vec<Value> {
        vec![
            json!({"name": "read_it", "description": "Reads it.\nMore.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "dryRun": {"type": "boolean"}}, "required": ["path"]}, "annotations": {"readOnlyHint": true}}),
            json!({"name": "write_it", "description": "Writes it.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}, "annotations": {"destructiveHint": false}}),
            json!({"name": "NoSnake", "inputSchema": {"type": "object"}}),
        ]
    }

    fn compiles(imported: &Imported) -> m1nd_core::gateway::Gateway {
        let sources = PolicySources::from_bytes("imported", |f| match f {
            PolicyFile::Tools => Some(imported.tools_toml.as_bytes()),
            PolicyFile::Deny => Some(imported.deny_toml.as_bytes()),
            _ => None,
        });
        compile_gateway(&sources).unwrap_or_else(|p| panic!("{}", p[0].render(&sources)))
    }

    #[test]
    fn hints_are_only_a_starting_point_and_every_entry_is_marked_for_review() {
        let trusting = files(&listed(), true);
        let gateway = compiles(&trusting);
        assert_eq!(gateway.policy.deny.tools.iter().map(|t| &**t).collect::<Vec<_>>(), ["write_it"]);
        assert!(trusting.deny_toml.contains("\"read_it\" -- REVIEW"));
        assert_eq!(trusting.skipped.len(), 1, "{:?}", trusting.skipped);
        assert_eq!(
            gateway.mode,
            SessionMode::ReadOnly,
            "an imported policy is read-only until a person says otherwise"
        );

        let wary = compiles(&files(&listed(), false));
        assert_eq!(wary.policy.deny.tools.len(), 2, "without --read-only-from-hints every tool is proposed denied");
        for line in files(&listed(), false).deny_toml.lines().filter(|l| l.trim_start().starts_with('"')) {
            assert!(line.contains("REVIEW"), "{line}");
        }
    }

    #[test]
    fn a_tool_that_takes_free_text_is_marked_for_review_and_proposed_denied_whatever_it_hints() {
        let mut listed = listed();
        listed.push(json!({"name": "run_query", "description": "Run a read-only SQL query.", "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}, "annotations": {"readOnlyHint": true}}));
        let imported = files(&listed, true);
        let gateway = compiles(&imported);
        assert!(gateway.policy.deny.tools.iter().any(|t| &**t == "run_query"), "{}", imported.deny_toml);
        assert!(imported.deny_toml.contains("\"run_query\", # REVIEW: proposed denied (`query` may carry SQL"));
        let section = imported.tools_toml.split("[verbs.run_query]").nth(1).expect("imported");
        assert!(section.contains("# REVIEW: `query` may carry SQL: a read-only guard sees the tool and the argument"));
        assert!(!imported.tools_toml.split("[verbs.run_query]").next().unwrap_or_default().contains("# REVIEW"));
    }

    #[test]
    fn each_tool_keeps_its_arguments_summary_and_definition_pin() {
        let gateway = compiles(&files(&listed(), true));
        let read = gateway.policy.verb("read_it").expect("imported");
        assert_eq!(&*read.summary, "Reads it.");
        assert_eq!(read.requires.iter().map(|a| &**a).collect::<Vec<_>>(), ["path"]);
        assert_eq!(read.accepts.iter().map(|a| &**a).collect::<Vec<_>>(), ["dryRun"]);
        let pinned = gateway.tool("read_it").and_then(|t| t.definition.as_deref());
        assert_eq!(pinned, Some(digest(&listed()[0]).as_str()));
    }
}
