//! `m1nd policy import`'s proposal for an upstream's prompts, resources and
//! resource templates: the `[prompts]`, `[resources]` and `[templates]`
//! tables of tools.toml, each entry pinned by the digest of its whole
//! definition, as tools are.
//!
//! They read and never write, so a read-only session may use every one the
//! policy declares; the proposal says so, and a person deletes what no
//! session should see. Nothing is left out silently: an entry the gateway
//! could not serve (a prompt name outside the tool-name rule, a template it
//! cannot confine) is written as a comment that says why.

use std::fmt::Write as _;

use m1nd_policy::gateway::digest;
use m1nd_policy::gateway::surfaces::{Kind, Listed};
use m1nd_policy::gateway::uri_template::{Template, uri_problem};
use m1nd_policy::names::spec::{self, toml_key};
use m1nd_policy::sanitize::cap;
use m1nd_policy::sanitize::escape::value;
use serde_json::Value;

/// The tables for `listed`, or nothing when the upstream lists none.
pub fn tables(listed: &Listed) -> String {
    let mut out = String::new();
    if listed.is_empty() {
        return out;
    }
    out.push_str(
        "\n# Prompts, resources and resource templates: PROPOSED. They only read, so every session may use\n\
         # each one declared here, read-only ones included; delete what no session should see. A read is\n\
         # allowed for a declared resource's exact URI, or for a URI a declared template names (its values\n\
         # are letters, digits, `-`, `.`, `_` and `~`, never `/`, `%` or a `..` segment).\n",
    );
    for kind in Kind::ALL {
        for item in listed.of(kind) {
            entry(kind, item, &mut out);
        }
    }
    out
}

/// The table declaring one listed surface, pinned, or a comment saying why
/// it cannot be declared: what `policy import` writes and what
/// `--update` proposes for a surface new upstream.
pub fn entry(kind: Kind, item: &Value, out: &mut String) {
    let Some(key) = item.get(kind.key()).and_then(Value::as_str) else {
        let _ = writeln!(out, "\n# NOT DECLARED: the upstream listed a {} without a `{}`", kind.noun(), kind.key());
        return;
    };
    if let Some(problem) = problem(kind, key) {
        let _ = writeln!(
            out,
            "\n# NOT DECLARED: the {} {} cannot be served: {problem}",
            kind.noun(),
            printable_comment(&quote(key))
        );
        return;
    }
    let what =
        item.get("description").and_then(Value::as_str).and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()));
    let _ = writeln!(out, "\n[{}.{}]", kind.table(), toml_key(key));
    if let Some(what) = what {
        let _ = writeln!(out, "# {}", printable_comment(what));
    }
    let _ = writeln!(out, "definition = \"{}\"", digest(item));
}

/// Why the gateway could not serve a surface listed under `key`, if so.
fn problem(kind: Kind, key: &str) -> Option<String> {
    match kind {
        Kind::Prompt => spec::spec_problem(key).map(|p| format!("{p}; {}", spec::SPEC_RULE)),
        Kind::Resource => uri_problem(key).map(|p| p.to_string()),
        Kind::Template => Template::parse(key).err().map(|p| {
            format!("{p}; the gateway cannot confine the URIs it names, so declare them one by one under [resources]")
        }),
    }
}

/// The definitions [`tables`] declares and pins: what `policy import`
/// stores as reviewed beside them.
pub fn declared(listed: &Listed) -> Listed {
    let mut out = Listed::default();
    for kind in Kind::ALL {
        let keeps =
            |item: &&Value| item.get(kind.key()).and_then(Value::as_str).is_some_and(|k| problem(kind, k).is_none());
        *out.of_mut(kind) = listed.of(kind).iter().filter(keeps).cloned().collect();
    }
    out
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// Text for a TOML comment: one bounded line, every character a reader
/// would not see written `\u{XXXX}` (law M018: what was hidden is shown,
/// not dropped).
fn printable_comment(s: &str) -> String {
    value(s, cap::DETAIL)
}

#[cfg(test)]
mod tests {
    use m1nd_policy::{PolicyFile, PolicySources, compile_gateway};
    use serde_json::json;

    use super::*;

    fn listed() -> Listed {
        Listed {
            prompts: vec![
                json!({"name": "simple-prompt", "description": "A prompt.\nMore."}),
                json!({"name": "has space"}),
            ],
            resources: vec![json!({"uri": "demo://static/a b"}), json!({"uri": "demo://static/a.md", "name": "a"})],
            templates: vec![
                json!({"uriTemplate": "demo://dynamic/{id}", "name": "d"}),
                json!({"uriTemplate": "file:///{+path}", "name": "f"}),
            ],
        }
    }

    #[test]
    fn every_surface_is_declared_pinned_or_said_why_not_and_the_policy_compiles() {
        let tables = tables(&listed());
        for declared in
            ["[prompts.simple-prompt]", "[resources.\"demo://static/a.md\"]", "[templates.\"demo://dynamic/{id}\"]"]
        {
            assert!(tables.contains(declared), "{declared} in\n{tables}");
        }
        assert_eq!(tables.matches("definition = \"blake3:").count(), 3);
        assert_eq!(tables.matches("# NOT DECLARED").count(), 3, "{tables}");
        assert!(tables.contains("{+path}") && tables.contains("declare them one by one"));
        let tools = format!("[verbs.echo]\nsummary = \"e\"\n{tables}");
        let sources = PolicySources::from_bytes("gw", |f| match f {
            PolicyFile::Tools => Some(tools.as_bytes()),
            PolicyFile::Deny => Some(b"tools = []\n".as_slice()),
            _ => None,
        });
        let gateway = compile_gateway(&sources).unwrap_or_else(|p| panic!("{}", p[0].render(&sources)));
        assert_eq!(gateway.surfaces.prompts.len(), 1);
        assert_eq!(gateway.surfaces.templates.len(), 1);
    }

    #[test]
    fn an_upstream_without_surfaces_adds_nothing() {
        assert_eq!(tables(&Listed::default()), "");
    }
}
