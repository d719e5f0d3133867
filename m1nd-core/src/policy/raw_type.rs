//! An argument type as tools.toml writes it: a kind's bare key (`"text"`) or
//! an inline table of JSON Schema's constraints under the policy's own names.
//!
//! The table's keys are a closed set, so a keyword the language has no word
//! for (`anyOf`, `if`, `patternProperties`) is M001 at its own line, never a
//! constraint silently dropped. [`super::arg_types`] turns this into an
//! [`ArgType`](crate::arguments::ArgType) and says what is contradictory.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use toml::Spanned;

use super::spanned::{Table, Text};

/// One argument type as written.
#[derive(Debug)]
pub enum RawType {
    /// A kind's key: `"text"`, `"integer"`, …
    Key(String),
    /// `{ type = "integer", minimum = 1 }`
    Def(Box<TypeDef>),
}

/// The constraints a type table may write: JSON Schema's, in snake_case.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeDef {
    /// The kind's key; may be left out only beside `one_of`.
    #[serde(rename = "type", default)]
    pub kind: Option<Text>,
    #[serde(default)]
    pub nullable: Option<Spanned<bool>>,
    /// String values only (a text enum).
    #[serde(rename = "enum", default)]
    pub choices: Option<Spanned<Vec<Spanned<toml::Value>>>>,
    #[serde(rename = "const", default)]
    pub constant: Option<Spanned<toml::Value>>,
    #[serde(default)]
    pub default: Option<Spanned<toml::Value>>,
    #[serde(default)]
    pub minimum: Option<Spanned<i64>>,
    #[serde(default)]
    pub maximum: Option<Spanned<i64>>,
    #[serde(default)]
    pub min_length: Option<Spanned<i64>>,
    #[serde(default)]
    pub pattern: Option<Text>,
    #[serde(default)]
    pub items: Option<Box<Spanned<RawType>>>,
    #[serde(default)]
    pub min_items: Option<Spanned<i64>>,
    #[serde(default)]
    pub max_items: Option<Spanned<i64>>,
    #[serde(default)]
    pub unique_items: Option<Spanned<bool>>,
    #[serde(default)]
    pub properties: Option<Spanned<Table<RawType>>>,
    #[serde(default)]
    pub required: Option<Spanned<Vec<Text>>>,
    #[serde(default)]
    pub additional_properties: Option<Spanned<bool>>,
    #[serde(default)]
    pub one_of: Option<Spanned<Vec<Spanned<RawType>>>>,
}

impl<'de> Deserialize<'de> for RawType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> Visitor<'de> for Either {
            type Value = RawType;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an argument type: a type name such as \"text\", or an inline table such as { type = \"integer\", minimum = 1 }")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<RawType, E> {
                Ok(RawType::Key(key.to_owned()))
            }
            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<RawType, M::Error> {
                TypeDef::deserialize(de::value::MapAccessDeserializer::new(map)).map(|d| RawType::Def(Box::new(d)))
            }
        }
        deserializer.deserialize_any(Either)
    }
}
