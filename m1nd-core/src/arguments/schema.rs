//! An [`ArgType`] as the JSON Schema a client reads in `tools/list`: the
//! inverse of what `m1nd-upstream` reads from m1nd's own schemas, so a type
//! copied from upstream lists as upstream lists it.

use serde_json::{Map, Value, json};

use super::types::ArgType;
use super::{ArgKind, MAX_ID_CHARS};
use crate::arguments::SEND_AS_TYPED;

impl ArgType {
    /// The JSON Schema of this type.
    pub fn schema(&self) -> Value {
        let mut s = Map::new();
        let name = match self.kind {
            ArgKind::Text | ArgKind::Id => Some("string"),
            ArgKind::Integer => Some("integer"),
            ArgKind::Number => Some("number"),
            ArgKind::Boolean => Some("boolean"),
            ArgKind::Array => Some("array"),
            ArgKind::Object => Some("object"),
            ArgKind::Null => Some("null"),
            ArgKind::Reference | ArgKind::Any => None,
        };
        match (name, self.nullable) {
            (Some(name), false) => _ = s.insert("type".into(), json!(name)),
            (Some(name), true) => _ = s.insert("type".into(), json!([name, "null"])),
            (None, _) => {}
        }
        if self.kind == ArgKind::Reference {
            let mut branches = vec![json!({ "type": "string" }), json!({ "type": "integer", "minimum": 0 })];
            if self.nullable {
                branches.push(json!({ "type": "null" }));
            }
            s.insert("oneOf".into(), Value::Array(branches));
            s.insert("description".into(), json!(SEND_AS_TYPED));
        }
        if self.kind == ArgKind::Id {
            s.insert("minLength".into(), json!(1));
            s.insert("maxLength".into(), json!(MAX_ID_CHARS));
        }
        if !self.choices.is_empty() {
            s.insert("enum".into(), self.choices.iter().map(|c| json!(c)).collect());
        }
        if let Some(constant) = &self.constant {
            s.insert("const".into(), json!(constant));
        }
        if let Some(default) = self.default.as_deref().and_then(|d| serde_json::from_str::<Value>(d).ok()) {
            s.insert("default".into(), default);
        }
        let numbers = [("minimum", self.minimum), ("maximum", self.maximum)];
        for (key, bound) in numbers {
            if let Some(bound) = bound {
                s.insert(key.into(), json!(bound));
            }
        }
        let counts = [("minLength", self.min_length), ("minItems", self.min_items), ("maxItems", self.max_items)];
        for (key, count) in counts {
            if let Some(count) = count {
                s.insert(key.into(), json!(count));
            }
        }
        if let Some(pattern) = &self.pattern {
            s.insert("pattern".into(), json!(pattern));
        }
        if let Some(item) = self.item() {
            s.insert("items".into(), item.schema());
        }
        if self.unique_items {
            s.insert("uniqueItems".into(), json!(true));
        }
        if !self.properties.is_empty() {
            let properties: Map<String, Value> =
                self.properties.iter().map(|p| (p.name.to_string(), p.ty.schema())).collect();
            s.insert("properties".into(), Value::Object(properties));
            let required: Vec<Value> = self.properties.iter().filter(|p| p.required).map(|p| json!(p.name)).collect();
            if !required.is_empty() {
                s.insert("required".into(), Value::Array(required));
            }
        }
        if self.closed {
            s.insert("additionalProperties".into(), json!(false));
        }
        if !self.one_of.is_empty() {
            let mut branches: Vec<Value> = self.one_of.iter().map(ArgType::schema).collect();
            if self.nullable {
                branches.push(json!({ "type": "null" }));
            }
            s.insert("oneOf".into(), Value::Array(branches));
        }
        Value::Object(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::List;

    #[test]
    fn plain_kinds_list_as_json_schema_types() {
        assert_eq!(ArgType::of(ArgKind::Text).schema(), json!({ "type": "string" }));
        assert_eq!(ArgType::of(ArgKind::Any).schema(), json!({}));
        let nullable = ArgType { nullable: true, ..ArgType::of(ArgKind::Integer) };
        assert_eq!(nullable.schema(), json!({ "type": ["integer", "null"] }));
    }

    #[test]
    fn constraints_list_under_their_json_schema_names() {
        let tags = ArgType {
            items: List::Owned(vec![ArgType { min_length: Some(1), ..ArgType::of(ArgKind::Text) }]),
            default: Some("[]".into()),
            min_items: Some(1),
            unique_items: true,
            ..ArgType::of(ArgKind::Array)
        };
        assert_eq!(
            tags.schema(),
            json!({ "type": "array", "default": [], "minItems": 1, "items": { "type": "string", "minLength": 1 }, "uniqueItems": true })
        );
    }
}
