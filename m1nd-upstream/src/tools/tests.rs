use super::text::{key, quoted};
use super::types::takes_null;
use super::*;

/// A schemas.json of one tool.
fn one(name: &str, schema: Value) -> String {
    serde_json::json!({"m1nd_mcp": "1.6.5", "tools": [{"name": name, "inputSchema": schema}]}).to_string()
}

/// The lines after the header and `[arguments]`.
fn verbs(toml: &str) -> &str {
    let common = "\n[arguments]\nagent_id = \"text\"\n\n";
    &toml[toml.find(common).expect("the common argument") + common.len()..]
}

#[test]
fn agent_id_is_required_or_accepted_for_every_tool_alike() {
    let tool = |name: &str, required: &[&str]| {
        serde_json::json!({"name": name, "inputSchema": {"type": "object", "required": required,
            "properties": {"agent_id": {"type": "string"}}}})
    };
    let schemas = |tools: Vec<Value>| {
        serde_json::json!({"m1nd_mcp": "1.6.5", "schema": "m1nd-upstream-schemas-v1", "tools": tools}).to_string()
    };
    let optional = tools_toml(&schemas(vec![tool("a", &[]), tool("b", &[])])).unwrap();
    assert!(optional.contains("[common]\naccepts = [\"agent_id\"]\n"), "{optional}");
    let mixed = tools_toml(&schemas(vec![tool("a", &["agent_id"]), tool("b", &[])])).unwrap_err();
    assert_eq!(mixed.tool, "b");
    assert!(mixed.what.contains("required by `a` but optional in `b`"), "{}", mixed.what);
}

#[test]
fn plain_arguments_take_the_shorthand_and_constraints_an_inline_table() {
    let schema = serde_json::json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["agent_id", "node_id"],
        "properties": {
            "agent_id": {"type": "string"},
            "node_id": {"type": "string"},
            "depth": {"type": "integer", "default": 3, "minimum": 1, "maximum": 8},
            "weight": {"type": "number", "default": 24.0},
            "mode": {"type": "string", "enum": ["forward", "reverse"], "default": "forward"},
            "digest": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$\\b\"", "minLength": 1},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "maxItems": 4, "uniqueItems": true, "default": []},
            "value": {},
            "kind": {"enum": ["a", "b"]},
            "schema": {"const": "m1nd-x-v1"},
            "event": {"type": ["object", "string"]},
            "budget": {"type": "object", "properties": {"tokens": {"type": "integer", "default": 2000}}, "default": {"tokens": 1}},
            "parent": {"type": ["object", "null"], "additionalProperties": false, "required": ["id"], "properties": {"id": {"type": "string"}, "weird key": {"type": "boolean"}}},
        }
    });
    let toml = tools_toml(&one("impact", schema)).unwrap();
    assert!(toml.contains("[common]\nrequires = [\"agent_id\"]\n\n[arguments]\nagent_id = \"text\"\n"), "{toml}");
    assert_eq!(
        verbs(&toml),
        r#"[verbs.impact]
summary = "m1nd 1.6.5 tool `impact`"
requires = ["node_id"]

[verbs.impact.arguments]
budget = { type = "object", default = { tokens = 1 }, properties = { tokens = { type = "integer", default = 2000 } } }
depth = { type = "integer", default = 3, minimum = 1, maximum = 8 }
digest = { type = "text", nullable = true, min_length = 1, pattern = "^[0-9a-f]{64}$\\b\"" }
event = { one_of = ["object", "text"] }
kind = { type = "text", enum = ["a", "b"] }
mode = { type = "text", enum = ["forward", "reverse"], default = "forward" }
node_id = "text"
parent = { type = "object", nullable = true, properties = { id = "text", "weird key" = "boolean" }, required = ["id"], additional_properties = false }
schema = { type = "text", const = "m1nd-x-v1" }
tags = { type = "array", default = [], items = { type = "text", min_length = 1 }, min_items = 1, max_items = 4, unique_items = true }
value = { type = "any", nullable = true }
weight = { type = "number", default = 24.0 }
"#
    );
    toml.parse::<toml::Table>().expect("the output is TOML");
}

#[test]
fn a_top_level_one_of_is_one_argument_set_per_branch() {
    let schema = serde_json::json!({"type": "object", "oneOf": [
        {"type": "object", "additionalProperties": false, "required": ["action", "id"],
         "properties": {"action": {"const": "land"}, "id": {"type": "string", "minLength": 1}}},
        {"type": "object", "required": ["action"], "properties": {"action": {"const": "status"}}},
    ]});
    let toml = tools_toml(&one("mission_service", schema)).unwrap();
    assert_eq!(
        verbs(&toml),
        "[verbs.mission_service]\n\
         summary = \"m1nd 1.6.5 tool `mission_service`\"\n\
         common = false\n\
         one_of = [\n  \
         { requires = [\"action\", \"id\"], arguments = { action = { type = \"text\", const = \"land\" }, id = { type = \"text\", min_length = 1 } } },\n  \
         { requires = [\"action\"], arguments = { action = { type = \"text\", const = \"status\" } } },\n\
         ]\n"
    );
    toml.parse::<toml::Table>().expect("the output is TOML");
}

#[test]
fn a_one_of_of_one_branch_is_that_branch() {
    let schema = serde_json::json!({"type": "object", "oneOf": [
        {"type": "object", "required": ["agent_id", "id"], "properties": {"agent_id": {"type": "string"}, "id": {"type": "string"}}},
    ]});
    let toml = tools_toml(&one("land", schema)).unwrap();
    assert_eq!(
        verbs(&toml),
        "[verbs.land]\nsummary = \"m1nd 1.6.5 tool `land`\"\nrequires = [\"id\"]\n\n[verbs.land.arguments]\nid = \"text\"\n"
    );
}

#[test]
fn a_tool_without_agent_id_takes_no_common_argument() {
    let schema =
        serde_json::json!({"type": "object", "additionalProperties": false, "properties": {"id": {"type": "string"}}});
    let toml = tools_toml(&one("evidence_query", schema)).unwrap();
    assert_eq!(
        verbs(&toml),
        "[verbs.evidence_query]\n\
         summary = \"m1nd 1.6.5 tool `evidence_query`\"\n\
         common = false\n\
         \n\
         [verbs.evidence_query.arguments]\n\
         id = \"text\"\n"
    );
    let table: toml::Table = toml.parse().expect("the output is TOML");
    assert_eq!(table["verbs"]["evidence_query"]["common"], toml::Value::Boolean(false));
    let some = serde_json::json!({"type": "object", "oneOf": [
        {"type": "object", "properties": {"agent_id": {"type": "string"}, "a": {"type": "string"}}},
        {"type": "object", "properties": {"b": {"type": "string"}}},
    ]});
    assert_eq!(
        refused(some),
        Unexpressible {
            tool: "t".into(),
            path: "#".into(),
            what: "`agent_id` in only some top-level `oneOf` branches (a verb takes the [common] arguments in \
                   every argument set or in none)"
                .into()
        }
    );
}

fn refused(schema: Value) -> Unexpressible {
    tools_toml(&one("t", schema)).unwrap_err()
}

fn with(name: &str, property: Value) -> Value {
    serde_json::json!({"type": "object", "properties": {"agent_id": {"type": "string"}, name: property}})
}

#[test]
fn what_the_language_has_no_words_for_is_named_with_its_place() {
    let err = refused(with("limit", serde_json::json!({"type": "integer", "exclusiveMinimum": 0})));
    assert_eq!(
        err,
        Unexpressible {
            tool: "t".into(),
            path: "#/properties/limit".into(),
            what: "the keyword `exclusiveMinimum`".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "`t` at #/properties/limit: the keyword `exclusiveMinimum` cannot be written in tools.toml"
    );
    let nested = with(
        "a",
        serde_json::json!({"type": "array", "items": {"type": "object", "properties": {"x/y": {"type": "string", "format": "uri"}}}}),
    );
    assert_eq!(refused(nested).path, "#/properties/a/items/properties/x~1y");
    let cases = [
        (serde_json::json!({"type": "string", "default": null}), "a null in `default` (TOML cannot write null)"),
        (serde_json::json!({"type": "null", "default": null}), "a null in `default` (TOML cannot write null)"),
        (serde_json::json!({"type": ["string", "null"], "const": null}), "`const: null` (TOML cannot write null)"),
        (
            serde_json::json!({"type": ["string", "null"], "enum": [null]}),
            "an `enum` whose only member is null (write `type: \"null\"`)",
        ),
        (
            serde_json::json!({"oneOf": [{"type": "null"}, {"type": "null"}]}),
            "a `oneOf` of null branches that refuses null, which no value fits",
        ),
        (
            serde_json::json!({"oneOf": [{"type": "null"}, {"type": ["null"]}]}),
            "`type: \"null\"` where null is refused, which no value fits",
        ),
        (serde_json::json!({"type": "integer", "minLength": 1}), "`minLength` on a `\"integer\"` argument"),
        (serde_json::json!({"type": "integer", "enum": [1, 2]}), "`enum` on a `\"integer\"` argument"),
        (serde_json::json!({"enum": ["a", 1]}), "an `enum` member that is not a string"),
        (serde_json::json!({"type": "number", "minimum": 0.5}), "`minimum: 0.5`, not an integer"),
        (
            serde_json::json!({"type": ["string", "number"], "minLength": 1}),
            "a union of types (`type: [...]`) beside other keywords",
        ),
        (
            serde_json::json!({"type": ["string", "null", "string"]}),
            "`type: [\"string\",\"null\",\"string\"]`, which names a type twice",
        ),
        (serde_json::json!({"type": "any"}), "`type: \"any\"`"),
        (
            serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}}),
            "`additionalProperties: {\"type\":\"string\"}`",
        ),
        (serde_json::json!({"type": "array", "uniqueItems": false}), "`uniqueItems: false`"),
        (serde_json::json!({"type": "string", "oneOf": [{"const": "a"}]}), "`oneOf` on a `\"string\"` argument"),
        (serde_json::json!({"minLength": 1}), "`minLength` without a `type`"),
        (
            serde_json::json!({"type": "object", "required": ["x"]}),
            "`required` naming `x`, which `properties` does not declare",
        ),
    ];
    for (schema, what) in cases {
        assert_eq!(refused(with("a", schema.clone())).what, what, "{schema}");
    }
    let inner = serde_json::json!({"oneOf": [{"type": "null"}, {"type": "string", "format": "uri"}]});
    assert_eq!(refused(with("a", inner)).path, "#/properties/a/oneOf/1");
}

#[test]
fn top_level_shapes_outside_the_language_are_refused() {
    let agent = serde_json::json!({"type": "object", "properties": {"agent_id": {"type": "string", "minLength": 1}}});
    assert_eq!(refused(agent).path, "#/properties/agent_id");
    let open = serde_json::json!({"type": "object", "additionalProperties": true});
    assert!(refused(open).what.contains("additionalProperties"));
    let branch = serde_json::json!({"type": "object", "oneOf": [{"type": "object", "minProperties": 1}]});
    assert_eq!(
        refused(branch),
        Unexpressible {
            tool: "t".into(),
            path: "#/oneOf/0".into(),
            what: "a top-level `oneOf` branch that is not a plain object schema".into()
        }
    );
    let both = serde_json::json!({"type": "object", "properties": {}, "oneOf": [{"type": "object"}]});
    assert_eq!(refused(both).path, "#");
    assert_eq!(refused(serde_json::json!({"type": "object", "anyOf": []})).what, "the top-level keyword `anyOf`");
    let missing = serde_json::json!({"type": "object", "required": ["agent_id"]});
    assert_eq!(refused(missing).what, "`required` naming `agent_id`, which `properties` does not declare");
}

#[test]
fn null_is_written_where_upstream_takes_it_and_nowhere_else() {
    let schema = serde_json::json!({"type": "object", "additionalProperties": false, "properties": {
        "agent_id": {"type": "string"},
        // The kind `null`, for a member that takes only null.
        "request": {"type": "object", "additionalProperties": false, "required": ["id"],
                    "properties": {"id": {"type": "string"}, "parent": {"type": "null"}}},
        "nothing": {"type": "null"},
        // `nullable` is read before `enum`: null is written there by `nullable`, and only there.
        "tier": {"type": ["string", "null"], "enum": [null, "A0", "A1"]},
        "kind": {"enum": ["a", null]},
        "plain": {"type": "string", "enum": ["a", null]},
        "picked": {"type": ["string", "null"], "enum": ["a"]},
        "fixed": {"type": ["string", "null"], "const": "x"},
        "bounded": {"type": ["integer", "null"], "minimum": 1},
        // `oneOf: [null, S]`: `S`, nullable unless `S` takes null itself (then null fits two branches).
        "evidence": {"oneOf": [{"type": "null"}, {"type": "object", "properties": {"id": {"type": "string"}}}]},
        "tagged": {"oneOf": [{"type": "null"}, {"type": "string", "enum": ["x"]}]},
        "twice": {"oneOf": [{"type": "null"}, {"type": ["string", "null"], "enum": ["x", null]}]},
        "either": {"oneOf": [{"type": "null"}, {"type": "integer"}, {"type": "string"}]},
        "union": {"type": ["string", "number", "null"]},
        "value": {},
    }});
    let toml = tools_toml(&one("authority_authorize", schema)).unwrap();
    assert_eq!(
        verbs(&toml),
        r#"[verbs.authority_authorize]
summary = "m1nd 1.6.5 tool `authority_authorize`"

[verbs.authority_authorize.arguments]
bounded = { type = "integer", nullable = true, minimum = 1 }
either = { one_of = ["integer", "text"], nullable = true }
evidence = { type = "object", nullable = true, properties = { id = "text" } }
fixed = { type = "text", const = "x" }
kind = { type = "text", nullable = true, enum = ["a"] }
nothing = "null"
picked = { type = "text", enum = ["a"] }
plain = { type = "text", enum = ["a"] }
request = { type = "object", properties = { id = "text", parent = "null" }, required = ["id"], additional_properties = false }
tagged = { type = "text", nullable = true, enum = ["x"] }
tier = { type = "text", nullable = true, enum = ["A0", "A1"] }
twice = { type = "text", enum = ["x"] }
union = { one_of = ["text", "number"], nullable = true }
value = { type = "any", nullable = true }
"#
    );
    toml.parse::<toml::Table>().expect("the output is TOML");
}

#[test]
fn takes_null_reads_type_enum_const_and_one_of() {
    let cases = [
        (serde_json::json!({}), true),
        (serde_json::json!({"type": "null"}), true),
        (serde_json::json!({"type": "string"}), false),
        (serde_json::json!({"type": ["string", "null"], "minLength": 1, "pattern": "^a$"}), true),
        (serde_json::json!({"type": ["string", "null"], "enum": ["a"]}), false),
        (serde_json::json!({"enum": ["a", null]}), true),
        (serde_json::json!({"type": "string", "enum": ["a", null]}), false),
        (serde_json::json!({"const": "a"}), false),
        (serde_json::json!({"oneOf": [{"type": "null"}, {"type": "object"}]}), true),
        (serde_json::json!({"oneOf": [{"type": "null"}, {}]}), false),
    ];
    for (schema, takes) in cases {
        assert_eq!(takes_null(&schema), takes, "{schema}");
    }
}

#[test]
fn strings_are_escaped_for_toml() {
    assert_eq!(quoted("a\"b\\c\u{7f}\u{1}\n"), r#""a\"b\\c\u007F\u0001\n""#);
    assert_eq!(key("top_k"), "top_k");
    assert_eq!(key("a.b"), "\"a.b\"");
}
