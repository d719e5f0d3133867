//! Diagnostics in the formats CI and editors read: SARIF 2.1.0 (code
//! scanning, editors) and GitHub workflow commands (annotations on a pull
//! request). Both are built from the same [`Diagnostic`] values that
//! `cockpit!` and `policy check` render, so every format says the same thing.

use serde_json::{Value, json};

use super::diagnostic::{Diagnostic, Law};
use super::source::{Loc, PolicySources, line_col};

/// The SARIF version and the schema its output validates against.
pub const SARIF_VERSION: &str = "2.1.0";
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The message a report carries: the headline, then what to do instead.
fn message(d: &Diagnostic) -> String {
    if d.help.is_empty() { d.headline() } else { format!("{}\nhelp: {}", d.headline(), d.help) }
}

/// 1-based line and column of both ends of a span (columns in characters).
fn region(sources: &PolicySources, at: &Loc) -> [(usize, usize); 2] {
    let text = sources.text(at.file);
    [line_col(text, at.span.start), line_col(text, at.span.end.max(at.span.start))]
}

/// A relative path as a URI reference: unreserved characters and `/` kept,
/// everything else percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(char::from(b)),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn physical(sources: &PolicySources, at: &Loc) -> Value {
    let [(start_line, start_column), (end_line, end_column)] = region(sources, at);
    json!({
        "artifactLocation": { "uri": uri(&sources.file(at.file).display) },
        "region": {
            "startLine": start_line,
            "startColumn": start_column,
            "endLine": end_line,
            "endColumn": end_column,
        },
    })
}

fn result(d: &Diagnostic, sources: &PolicySources, rule_index: usize) -> Value {
    let locations: Vec<Value> = match (&d.at, d.file) {
        (Some(at), _) => vec![json!({ "physicalLocation": physical(sources, at) })],
        (None, Some(file)) => {
            vec![json!({ "physicalLocation": { "artifactLocation": { "uri": uri(&sources.file(file).display) } } })]
        }
        (None, None) => Vec::new(),
    };
    let related: Vec<Value> = d
        .related
        .iter()
        .enumerate()
        .map(|(id, (at, note))| json!({ "id": id, "physicalLocation": physical(sources, at), "message": { "text": note } }))
        .collect();
    let mut value = json!({
        "ruleId": d.law.code(),
        "ruleIndex": rule_index,
        "level": "error",
        "message": { "text": message(d) },
        "locations": locations,
    });
    if !related.is_empty() {
        value["relatedLocations"] = Value::Array(related);
    }
    value
}

/// One SARIF log with one run: a rule per law, a result per diagnostic
/// (none when the policy is clean).
pub fn sarif(problems: &[Diagnostic], sources: &PolicySources) -> Value {
    let rules: Vec<Value> =
        Law::ALL.iter().map(|law| json!({ "id": law.code(), "shortDescription": { "text": law.summary() } })).collect();
    let index = |law: Law| Law::ALL.iter().position(|l| *l == law).unwrap_or(0);
    let results: Vec<Value> = problems.iter().map(|d| result(d, sources, index(d.law))).collect();
    json!({
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": { "driver": {
                "name": "m1nd policy check",
                "informationUri": "https://github.com/m1nd-dev/m1nd-cockpit",
                "rules": rules,
            } },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// Escaping of a workflow command's message.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escaping of a workflow command's property value.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// One `::error file=…,line=…,col=…::…` line per diagnostic, which GitHub
/// Actions shows as an annotation on that line of the pull request.
pub fn github(problems: &[Diagnostic], sources: &PolicySources) -> String {
    let lines: Vec<String> = problems
        .iter()
        .map(|d| {
            let mut properties = Vec::new();
            if let Some(file) = d.file {
                properties.push(format!("file={}", escape_property(&sources.file(file).display)));
            }
            if let Some(at) = &d.at {
                let [(line, col), (end_line, end_col)] = region(sources, at);
                properties.push(format!("line={line},col={col},endLine={end_line},endColumn={end_col}"));
            }
            properties.push(format!("title={}", escape_property(&format!("m1nd policy {}", d.law))));
            format!("::error {}::{}", properties.join(","), escape_data(&message(d)))
        })
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PolicyFile;

    fn sources() -> PolicySources {
        PolicySources::from_bytes("policy dir", |file| match file {
            PolicyFile::Cockpit => Some("schema = \"x\"\ntitle = \"ä, b: c\"\n".as_bytes()),
            _ => None,
        })
    }

    fn problem() -> Diagnostic {
        Diagnostic::new(Law::M010, Loc::new(PolicyFile::Cockpit, 22..30), "a title, with: punctuation")
            .related(Loc::new(PolicyFile::Cockpit, 0..6), "see here")
            .help("do 100% better")
    }

    /// A diagnostic's texts are one line each (the builder sanitises them);
    /// the message joins them with line breaks, which are escaped.
    #[test]
    fn github_annotations_escape_what_the_runner_parses() {
        let out = github(&[problem()], &sources());
        assert_eq!(
            out,
            "::error file=policy dir/cockpit.toml,line=2,col=10,endLine=2,endColumn=17,title=m1nd policy M010\
             ::[M010] a title, with: punctuation%0Ahelp: do 100%25 better"
        );
        let forged = problem().help("a\nb\r\nc");
        assert!(github(&[forged], &sources()).ends_with("help: a b c"), "one line per diagnostic");
    }

    #[test]
    fn sarif_points_at_the_span_in_characters() {
        let log = sarif(&[problem()], &sources());
        let result = &log["runs"][0]["results"][0];
        assert_eq!(result["ruleId"], "M010");
        let rule = &log["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["shortDescription"]["text"], Law::M010.summary());
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"].as_u64().unwrap() as usize]["id"],
            "M010"
        );
        let location = &result["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "policy%20dir/cockpit.toml");
        assert_eq!(location["region"]["startLine"], 2);
        assert_eq!(location["region"]["startColumn"], 10);
        assert_eq!(result["relatedLocations"][0]["message"]["text"], "see here");
        assert!(sarif(&[], &sources())["runs"][0]["results"].as_array().unwrap().is_empty());
    }
}
