//! `catalog.json`: upstream's action catalog (`m1nd-action-catalog-v1`), read
//! with serde in exactly the shape `m1nd-control` writes it. Unknown fields,
//! effects, floors, risk classes or ingresses are refused with the line and
//! column of the value and the closest known name (M019).

use std::collections::HashMap;
use std::ops::Range;

use serde::Deserialize;

use super::names::{Effect, Floor, Ingress, Risk};
use crate::names::{did_you_mean, suggest};
use crate::policy::diagnostic::{Diagnostic, Law};
use crate::policy::source::{Loc, PolicyFile};

/// The schema this compiler reads; any other is refused, not guessed at.
pub const SCHEMA: &str = "m1nd-action-catalog-v1";

/// `catalog.json`: upstream's catalog, exactly as `m1nd-control` writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    pub schema: String,
    pub catalog_version: String,
    pub entries: Vec<Entry>,
    pub catalog_digest: String,
}

/// One semantic action, whatever transport reaches it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub action: String,
    pub ingresses: Vec<Ingress>,
    /// Every effect the action can have, directly or through what it starts.
    pub complete_effects: Vec<Effect>,
    pub risk_class: Risk,
    pub authority_floor: Floor,
}

impl Entry {
    pub fn mcp(&self) -> bool {
        self.ingresses.contains(&Ingress::Mcp)
    }
}

/// The parsed catalog with its text, for positions.
#[derive(Debug)]
pub struct ParsedCatalog {
    pub catalog: Catalog,
    text: String,
}

impl ParsedCatalog {
    /// Parse `text`, or say where and why it is not a catalog this compiler reads.
    pub fn parse(text: &str) -> Result<Self, Box<Diagnostic>> {
        match serde_json::from_str::<Catalog>(text) {
            Ok(catalog) => Ok(Self { catalog, text: text.to_owned() }),
            Err(error) => Err(Box::new(json_diagnostic(text, &error))),
        }
    }

    /// Action name → entry (the first, when a catalog repeats one: M019 reports it).
    pub fn index(&self) -> HashMap<&str, &Entry> {
        let mut index = HashMap::new();
        for entry in &self.catalog.entries {
            index.entry(entry.action.as_str()).or_insert(entry);
        }
        index
    }

    /// Where `"action": "NAME"` stands, the `nth` time (0-based), or the whole file.
    pub fn action_loc(&self, name: &str, nth: usize) -> Loc {
        let quoted = serde_json::to_string(name).unwrap_or_default();
        let text = &self.text;
        let found = text
            .match_indices(&quoted)
            .filter(|(at, _)| {
                let before = text[..*at].trim_end();
                before.strip_suffix(':').is_some_and(|b| b.trim_end().ends_with("\"action\""))
            })
            .nth(nth)
            .map(|(at, q)| at..at + q.len());
        Loc::new(PolicyFile::Catalog, found.unwrap_or(0..0))
    }

    /// Where a top-level key's value stands (for `schema`, `catalog_digest`).
    pub fn key_loc(&self, key: &str) -> Loc {
        let quoted = format!("\"{key}\"");
        let span = self.text.find(&quoted).map_or(0..0, |at| at..at + quoted.len());
        Loc::new(PolicyFile::Catalog, span)
    }
}

fn json_diagnostic(text: &str, error: &serde_json::Error) -> Diagnostic {
    let at = value_start(text, offset(text, error.line(), error.column()));
    let full = error.to_string();
    let full = full.split(" at line ").next().unwrap_or(&full);
    // serde lists every name it expected; the help says them once, or the closest.
    let message = full.split(", expected one of").next().unwrap_or(full).to_owned();
    let help = unknown_variant_help(full).unwrap_or_else(|| {
        "catalog.json is written by upstream's `m1nd10_action_catalog()`: regenerate it \
         (m1nd-upstream/regenerate.sh) rather than editing it by hand"
            .to_owned()
    });
    Diagnostic::new(Law::M019, Loc::new(PolicyFile::Catalog, at), format!("catalog.json: {message}"))
        .label("the catalog stops being readable here")
        .help(help)
}

/// serde says "unknown variant `X`, expected one of `A`, `B`": offer the closest.
fn unknown_variant_help(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown variant `")?;
    let (value, rest) = rest.split_once('`')?;
    let expected: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    let listed = expected.iter().map(|e| format!("`{e}`")).collect::<Vec<_>>().join(", ");
    Some(did_you_mean(suggest(value, expected.iter().copied()), "", || {
        format!("`{value}` is no name upstream's catalog uses here; the names known here are {listed}")
    }))
}

/// serde_json points at the closing quote of a bad string value: widen the
/// span to the whole string.
fn value_start(text: &str, at: Range<usize>) -> Range<usize> {
    if text[at.start..].starts_with('"')
        && let Some(open) = text[..at.start].rfind('"')
    {
        return open..at.start + 1;
    }
    at
}

/// serde_json's 1-based line and column (in bytes) as an empty span.
fn offset(text: &str, line: usize, column: usize) -> Range<usize> {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let at = (start + column.saturating_sub(1)).min(text.len());
    let at = crate::policy::source::floor_char_boundary(text, at);
    at..at
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"{
  "schema": "m1nd-action-catalog-v1",
  "catalog_version": "v",
  "entries": [
    { "action": "query.read", "ingresses": ["MCP"], "complete_effects": ["READ"],
      "risk_class": "LOW", "authority_floor": "ORDINARY" }
  ],
  "catalog_digest": "d"
}"#;

    #[test]
    fn reads_upstreams_shape_and_finds_an_action() {
        let parsed = ParsedCatalog::parse(ONE).expect("a catalog");
        assert_eq!(parsed.catalog.entries[0].complete_effects, [Effect::Read]);
        let loc = parsed.action_loc("query.read", 0);
        assert_eq!(&ONE[loc.span], "\"query.read\"");
    }

    #[test]
    fn an_unknown_effect_names_its_place_and_the_closest_name() {
        let bad = ONE.replace("[\"READ\"]", "[\"REED\"]");
        let d = ParsedCatalog::parse(&bad).unwrap_err();
        assert_eq!(d.law, Law::M019);
        let at = d.at.as_ref().unwrap().span.start;
        assert_eq!(crate::policy::source::line_col(&bad, at).0, 5, "{d:?}");
        assert_eq!(d.help, "did you mean `READ`?");
        assert_eq!(&bad[d.at.as_ref().unwrap().span.clone()], "\"REED\"");
    }
}
