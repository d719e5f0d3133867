//! Law M018 on `definitions.json`: a reviewed definition holds no invisible
//! or control character, unless its entry in `tools.toml` allows it for
//! that field.
//!
//! The gateway serves a pinned definition as the upstream lists it (escaped
//! at run time, see `gateway/neutralise.rs`); the reviewer reads
//! `definitions.json`. So `policy import` and `policy check` refuse every
//! string of a definition (a value or a key, at any depth: a schema's nested
//! `description` as well as the tool's) that holds such a character, and
//! show it escaped, with the file, line and column, the field and the
//! escaped text. The macro and the gateway's startup never read this file
//! (see [`super::reviewed`]), so this is where the law is applied to it.
//!
//! The allowance is per entry and per top-level key, `allow_invisible =
//! ["description"]` in the entry's table: a person who has read the text
//! escaped and found it harmless (an emoji's joiner, a byte-order mark)
//! accepts that field. The model still gets it escaped.

use std::ops::Range;
use std::path::Path;

use m1nd_policy::gateway::surfaces::Kind;
use m1nd_policy::names::spec::toml_key;
use m1nd_policy::policy::{
    ALLOW_INVISIBLE, Declared, Law, Place, PolicyFile, VERBS, Where, join_display, render_report,
};
use m1nd_policy::sanitize::escape::{Layout, escape, has_unseen, value};
use m1nd_policy::sanitize::json::{Unseen, unseen};
use serde_json::Value;

use super::reviewed::{DEFINITIONS_FILE, Reviewed, ReviewedError};

/// The longest escaped text a headline repeats.
const SHOWN: usize = 160;

/// `policy check`'s M018 on the `definitions.json` of `dir` (shown as
/// `display`): every report, each ending in what to do; empty when the file
/// is absent or clean. `declared` is what tools.toml declares.
pub fn check(dir: &Path, display: &str, declared: &Declared) -> Result<Vec<String>, ReviewedError> {
    let Some((text, reviewed)) = Reviewed::read_with_text(dir)? else { return Ok(Vec::new()) };
    let path = join_display(display, DEFINITIONS_FILE);
    Ok(problems(&path, &text, &reviewed, declared))
}

/// One report per string of `reviewed` that breaks M018 under `declared`'s
/// allowances, rendered against `text` (the file as read) shown as `path`.
pub fn problems(path: &str, text: &str, reviewed: &Reviewed, declared: &Declared) -> Vec<String> {
    let tokens = hidden_tokens(text);
    let mut cursor = 0;
    let mut out = Vec::new();
    let entries = reviewed.definitions.iter().map(|d| (VERBS, "tool", "name", d)).chain(
        Kind::ALL
            .into_iter()
            .flat_map(|k| reviewed.surfaces.of(k).iter().map(move |d| (k.table(), k.noun(), k.key(), d))),
    );
    for (table, noun, key, definition) in entries {
        let Some(name) = definition.get(key).and_then(Value::as_str) else { continue };
        let allowed = declared.allowed_invisible(table, name);
        for found in unseen(definition).into_iter().filter(|u| !allowed.contains(&u.field)) {
            let span = locate(&tokens, &found, &mut cursor);
            out.push(report(path, text, span, (table, noun, name), &found));
        }
    }
    out
}

fn report(
    path: &str,
    text: &str,
    span: Range<usize>,
    (table, noun, name): (&str, &str, &str),
    found: &Unseen,
) -> String {
    let shown_name = escape(name, Layout::Escape);
    let field = escape(&found.field, Layout::Escape);
    let headline = format!(
        "[{}] {noun} `{shown_name}`'s `{field}` holds characters a reader cannot see, at {}: \"{}\"",
        Law::M018.code(),
        found.pointer,
        value(&found.shown, SHOWN)
    );
    let entry = format!("`[{table}.{}]` of {}", toml_key(&shown_name), PolicyFile::Tools.file_name());
    let help = format!(
        "read the text above: each `\\u{{…}}` is a character the model would get and a reviewer would not see. \
         If it is harmless (an emoji's joiner, a byte-order mark), allow it for this field with \
         `{ALLOW_INVISIBLE} = [\"{field}\"]` in {entry}; the gateway still serves it escaped. Otherwise do not serve \
         this {noun}: leave it out of {}, and ask the upstream to remove the characters",
        PolicyFile::Tools.file_name()
    );
    let place = Place { path, text, span, note: "escaped above; a reviewer sees none of it here" };
    render_report(&headline, Some(Where::At(place)), &[], &help)
}

/// Each JSON string token of `text` whose decoded text holds an unseen
/// character: its byte range and that text escaped, in file order.
fn hidden_tokens(text: &str) -> Vec<(Range<usize>, String)> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < bytes.len() && bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        let end = (i + 1).min(bytes.len());
        i = end;
        if let Some(decoded) = text.get(start..end).and_then(|t| serde_json::from_str::<String>(t).ok())
            && has_unseen(&decoded, Layout::Keep)
        {
            tokens.push((start..end, escape(&decoded, Layout::Keep).into_owned()));
        }
    }
    tokens
}

/// Where `found` is written: the first token at or after `cursor` (the file
/// lists definitions in the order they are walked) with its text, else the
/// first anywhere; the start of the file if no token has it.
fn locate(tokens: &[(Range<usize>, String)], found: &Unseen, cursor: &mut usize) -> Range<usize> {
    let matching = |(_, shown): &&(Range<usize>, String)| *shown == found.shown;
    let hit = tokens.iter().skip(*cursor).find(matching).or_else(|| tokens.iter().find(matching));
    match hit {
        Some((span, _)) => {
            *cursor = tokens.iter().position(|(s, _)| s == span).map_or(*cursor, |p| p + 1);
            span.clone()
        }
        None => 0..0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use m1nd_policy::policy::line_col;
    use serde_json::json;

    fn reviewed() -> Reviewed {
        let mut reviewed = Reviewed {
            definitions: vec![
                json!({"name": "plain", "description": "Nothing hidden.\nTwo lines."}),
                json!({"name": "echo", "title": "Echo", "description": "Echo text.\u{E0049}\u{E0047}",
                    "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "t\u{200B}"}}}}),
            ],
            ..Reviewed::default()
        };
        reviewed.surfaces.of_mut(Kind::Prompt).push(json!({"name": "greet", "description": "Hi\u{202E}"}));
        reviewed
    }

    fn allowing(entries: &[(&'static str, &str, &[&str])]) -> Declared {
        Declared {
            allow_invisible: entries
                .iter()
                .map(|(t, n, keys)| ((*t, (*n).to_owned()), keys.iter().map(|k| (*k).to_owned()).collect()))
                .collect(),
            ..Declared::default()
        }
    }

    #[test]
    fn every_hidden_field_is_refused_with_its_place_field_and_escaped_text() {
        let reviewed = reviewed();
        let text = reviewed.render();
        let found = problems("p/definitions.json", &text, &reviewed, &Declared::default());
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(
            found[0].starts_with(
                "[M018] tool `echo`'s `description` holds characters a reader cannot see, at /description: \
                 \"Echo text.\\u{E0049}\\u{E0047}\""
            ),
            "{}",
            found[0]
        );
        let offset = text.find("Echo text.").expect("written") - 1;
        let (line, col) = line_col(&text, offset);
        assert!(found[0].contains(&format!("--> p/definitions.json:{line}:{col}")), "{}", found[0]);
        assert!(found[0].contains("`allow_invisible = [\"description\"]` in `[verbs.echo]` of tools.toml"));
        assert!(found[1].contains("`inputSchema`") && found[1].contains("at /inputSchema/properties/text/description"));
        assert!(found[2].starts_with("[M018] prompt `greet`'s `description`"), "{}", found[2]);
        assert!(found[2].contains("`[prompts.greet]`"), "{}", found[2]);
        for report in &found {
            assert!(!has_unseen(report, Layout::Keep), "a report shows nothing hidden: {report:?}");
        }
    }

    #[test]
    fn an_allowance_covers_its_own_entry_and_field_only() {
        let reviewed = reviewed();
        let text = reviewed.render();
        let declared = allowing(&[("verbs", "echo", &["description"]), ("prompts", "echo", &["description"])]);
        let found = problems("definitions.json", &text, &reviewed, &declared);
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].contains("`inputSchema`") && found[1].contains("prompt `greet`"));
        let all =
            allowing(&[("verbs", "echo", &["description", "inputSchema"]), ("prompts", "greet", &["description"])]);
        assert!(problems("definitions.json", &text, &reviewed, &all).is_empty());
    }
}
