//! Arguments that carry a language of their own: SQL, a shell command, a
//! script, a query in a graph or query language.
//!
//! The invariant: `policy import` never proposes such a tool as safe for
//! read-only sessions on the upstream's word alone. A read-only guard judges
//! a call by its tool's name and its arguments' names and values; it cannot
//! tell whether `DELETE FROM users` or `rm -rf` inside a string argument
//! writes. So a tool with such an argument is marked for review in
//! `tools.toml`, and proposed denied even when it hints `readOnlyHint: true`.
//!
//! The test is deliberately wide (a name or a description that suggests a
//! language): a false alarm costs a reviewer a glance, a miss lets a write
//! through a read-only session.

use serde_json::Value;

/// An argument name part that names a language, and which language.
const NAMES: &[(&str, &str)] = &[
    ("sql", "SQL"),
    ("cypher", "Cypher"),
    ("gremlin", "Gremlin"),
    ("sparql", "SPARQL"),
    ("graphql", "GraphQL"),
    ("command", "a command"),
    ("cmd", "a command"),
    ("shell", "a shell command"),
    ("script", "a script"),
    ("code", "code"),
    ("statement", "a statement"),
    ("expression", "an expression"),
    ("eval", "code"),
];

/// A word in an argument's or its tool's description that names a language.
const DESCRIBED: &[(&str, &str)] = &[
    ("sql", "SQL"),
    ("cypher", "Cypher"),
    ("sparql", "SPARQL"),
    ("graphql", "GraphQL"),
    ("gremlin", "Gremlin"),
    ("shell", "a shell command"),
    ("bash", "a shell command"),
    ("javascript", "code"),
    ("python", "code"),
];

/// One argument that may carry a language, and which.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreeText {
    pub argument: String,
    pub language: &'static str,
}

impl std::fmt::Display for FreeText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` may carry {}: a read-only guard sees the tool and the argument, never what the text does",
            self.argument, self.language
        )
    }
}

/// The string arguments of `definition` that may carry a language.
pub fn arguments(definition: &Value) -> Vec<FreeText> {
    let tool_words = words(definition.get("description").and_then(Value::as_str).unwrap_or_default());
    let Some(properties) = definition.pointer("/inputSchema/properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .filter(|(_, schema)| may_be_text(schema))
        .filter_map(|(argument, schema)| {
            let named = words(argument);
            let described = words(schema.get("description").and_then(Value::as_str).unwrap_or_default());
            let by_name = NAMES.iter().find(|(part, _)| named.iter().any(|w| w == part));
            // A `query` is a language only when something says which one.
            let by_query = named
                .iter()
                .any(|w| w == "query" || w == "q")
                .then(|| DESCRIBED.iter().find(|(word, _)| described.iter().chain(&tool_words).any(|w| w == word)))
                .flatten();
            let by_description = DESCRIBED.iter().find(|(word, _)| described.iter().any(|w| w == word));
            by_name
                .or(by_query)
                .or(by_description)
                .map(|(_, language)| FreeText { argument: argument.clone(), language })
        })
        .collect()
}

/// A property that may hold a string: typed `string`, or untyped.
fn may_be_text(schema: &Value) -> bool {
    match schema.get("type") {
        None => true,
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        Some(_) => false,
    }
}

/// Lower-case words of a name or a sentence: split on anything that is not a
/// letter or digit, and at camelCase humps (`sqlQuery` is `sql`, `query`).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            previous_lower = false;
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flagged(definition: Value) -> Vec<String> {
        arguments(&definition).into_iter().map(|f| format!("{}:{}", f.argument, f.language)).collect()
    }

    #[test]
    fn arguments_that_carry_a_language_are_flagged_by_name_or_description() {
        let tool = |properties: Value, description: &str| json!({"name": "t", "description": description, "inputSchema": {"type": "object", "properties": properties}});
        assert_eq!(flagged(tool(json!({"sql": {"type": "string"}}), "Runs it")), ["sql:SQL"]);
        assert_eq!(flagged(tool(json!({"sqlQuery": {"type": "string"}}), "")), ["sqlQuery:SQL"]);
        assert_eq!(flagged(tool(json!({"shell_command": {}}), "")), ["shell_command:a command"]);
        assert_eq!(flagged(tool(json!({"query": {"type": "string"}}), "Run a read-only SQL query")), ["query:SQL"]);
        assert_eq!(flagged(tool(json!({"q": {"type": "string", "description": "A Cypher query"}}), "")), ["q:Cypher"]);
        assert_eq!(
            flagged(tool(json!({"text": {"type": ["string", "null"], "description": "bash to run"}}), "")),
            ["text:a shell command"]
        );
    }

    #[test]
    fn plain_arguments_and_a_search_query_are_not() {
        let definition = json!({"name": "search_nodes", "description": "Search the graph for nodes matching a query",
            "inputSchema": {"type": "object", "properties": {
                "query": {"type": "string", "description": "The search query to match against names"},
                "repo_path": {"type": "string"}, "code": {"type": "integer"}, "dryRun": {"type": "boolean"}}}});
        assert!(arguments(&definition).is_empty(), "{:?}", arguments(&definition));
        assert!(arguments(&json!({"name": "t"})).is_empty());
    }
}
