//! Checking a call's arguments against what the table says the verb takes.
//!
//! rmcp does not validate arguments against the input schema, so this does.
//! The names a verb takes are its `requires` and `accepts` plus the policy's
//! `[common]` arguments (such as `agent_id`), and each one's type is the one
//! tools.toml declares ([`ArgType`]: the verb's own, else `[arguments]`);
//! nothing here guesses a type from a name. Every type is checked by
//! [`ArgType::check`], the same function the policy compiler checks a card's
//! fixed values with. Messages name the argument, the type it takes and the
//! value it got. A wrong value is echoed only as its JSON type plus a short,
//! sanitised preview, so an error stays one bounded line whatever was sent.

use m1nd_policy::arguments::{IdProblem, MAX_ID_CHARS, Mismatch, Takes, check_id, received};
use m1nd_policy::runtime::SEND_AS_TYPED;
use m1nd_policy::sanitize::{cap, display};
use m1nd_policy::{ArgKind, ArgType, Cockpit, Verb};
use rmcp::model::JsonObject;
use serde_json::Value;

/// The longest string argument accepted (the store's own limits are lower).
pub const MAX_STRING_BYTES: usize = 64 * 1024;

/// Arguments that passed the check: every key known, every value typed.
///
/// The common arguments arrive here checked like any other: the caller's
/// `agent_id`, when sent, is `text("agent_id")`, already bounded and printable.
#[derive(Debug, Default)]
pub struct Checked {
    strings: Vec<(String, String)>,
    integers: Vec<(String, u64)>,
    /// Every other value (booleans, numbers, arrays, objects, negative
    /// integers), as sent and as checked.
    values: Vec<(String, Value)>,
}

impl Checked {
    /// A string argument; a reference sent as an integer reads as its decimal string.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.strings.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    pub fn integer(&self, name: &str) -> Option<u64> {
        self.integers.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// A value that is neither a string nor a non-negative integer.
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The checked arguments as one JSON object, for [`crate::calls::Call::parse`]:
    /// strings (a reference as its string), non-negative integers and every
    /// other value, as the check accepted them.
    pub fn to_json(&self) -> Value {
        let strings = self.strings.iter().map(|(n, v)| (n.clone(), Value::from(v.as_str())));
        let integers = self.integers.iter().map(|(n, v)| (n.clone(), Value::from(*v)));
        let values = self.values.iter().map(|(n, v)| (n.clone(), v.clone()));
        Value::Object(strings.chain(integers).chain(values).collect())
    }

    fn has(&self, name: &str) -> bool {
        self.text(name).is_some() || self.integer(name).is_some() || self.value(name).is_some()
    }
}

/// A value that passed its type's check.
enum Accepted {
    Text(String),
    Integer(u64),
    Json(Value),
}

/// Why a call's arguments are refused. Each message names the verb, the
/// argument and what it takes.
#[derive(Debug, thiserror::Error)]
pub enum ArgumentError {
    #[error("`{verb}` has no argument `{name}`; it takes {takes}")]
    Unknown { verb: String, name: String, takes: String },
    #[error("argument `{name}` of `{verb}` has no declared type, so it is refused")]
    Untyped { verb: String, name: String },
    #[error("argument `{name}` of `{verb}` {problem}")]
    Value { verb: String, name: String, problem: ValueProblem },
    #[error("`{verb}` requires the argument `{name}`")]
    Missing { verb: String, name: String },
    #[error("`{verb}` takes exactly one of its {sets} argument sets, and this call matches {matched}: {why}")]
    NoSet { verb: String, sets: usize, matched: &'static str, why: String },
    /// Checked arguments that do not read as the verb's generated type: the
    /// check and `calls!` disagree, which is a bug, never the caller's fault.
    #[error("the arguments of `{verb}` passed the check but do not read as its type ({why}); this is a bug in m1nd")]
    Untypable { verb: String, why: String },
}

/// What is wrong with one value: a clause that follows "argument `x` of `verb`".
#[derive(Debug, thiserror::Error)]
pub enum ValueProblem {
    #[error("is {bytes} bytes; this server accepts at most {MAX_STRING_BYTES} bytes per argument")]
    TooLong { bytes: usize },
    #[error(
        "must be {expected}, got {received}{}. {SEND_AS_TYPED}",
        if *.negative { ", and a reference is never negative" } else { "" }
    )]
    NotAReference { expected: &'static str, received: String, negative: bool },
    #[error("{0}")]
    Wrong(Box<Mismatch>),
    #[error("must be {expected} of 1 to {MAX_ID_CHARS} characters, got {chars} characters")]
    IdLength { expected: &'static str, chars: usize },
    #[error("must be {expected}, got {received}, which holds control, invisible or repeated space characters")]
    IdUnprintable { expected: &'static str, received: String },
}

/// How many argument sets' refusals a [`ArgumentError::NoSet`] spells out.
const SETS_SHOWN: usize = 3;

/// Check `args` for `verb` against `table`. A `null` value counts as absent.
/// A verb with argument sets (`one_of`) takes a call that matches exactly one.
pub fn check(table: &Cockpit, verb: &Verb, args: Option<&JsonObject>) -> Result<Checked, ArgumentError> {
    if verb.one_of.is_empty() {
        return check_set(verb, || table.takes(verb), args);
    }
    let mut matched = Vec::new();
    let mut refusals = Vec::new();
    for (k, set) in verb.one_of.iter().enumerate() {
        match check_set(verb, || table.takes_in(verb, set), args) {
            Ok(checked) => matched.push(checked),
            Err(e) => refusals.push(format!("set {}: {e}", k + 1)),
        }
    }
    let sets = verb.one_of.len();
    match matched.len() {
        1 => Ok(matched.remove(0)),
        0 => {
            let mut why: Vec<String> = refusals.into_iter().take(SETS_SHOWN).collect();
            if sets > SETS_SHOWN {
                why.push(format!("and {} more", sets - SETS_SHOWN));
            }
            Err(ArgumentError::NoSet { verb: verb.name.to_string(), sets, matched: "none", why: why.join("; ") })
        }
        n => Err(ArgumentError::NoSet {
            verb: verb.name.to_string(),
            sets,
            matched: "more than one",
            why: format!("{n} sets take it; send the arguments that tell them apart"),
        }),
    }
}

/// Check `args` against one list of what the verb takes.
fn check_set<'a, I: Iterator<Item = Takes<'a>>>(
    verb: &Verb,
    takes: impl Fn() -> I,
    args: Option<&JsonObject>,
) -> Result<Checked, ArgumentError> {
    let mut checked = Checked::default();
    let named = || verb.name.to_string();
    for (name, value) in args.into_iter().flatten() {
        let Some(takes) = takes().find(|t| t.name == name) else {
            let takes: Vec<&str> = takes().map(|t| t.name).collect();
            let takes = if takes.is_empty() { "no arguments".to_owned() } else { takes.join(", ") };
            return Err(ArgumentError::Unknown { verb: named(), name: display(name, cap::NAME), takes });
        };
        if value.is_null() {
            continue;
        }
        let Some(ty) = takes.ty else {
            return Err(ArgumentError::Untyped { verb: named(), name: name.clone() });
        };
        match accept(ty, value) {
            Ok(Accepted::Text(s)) => checked.strings.push((name.clone(), s)),
            Ok(Accepted::Integer(n)) => checked.integers.push((name.clone(), n)),
            Ok(Accepted::Json(v)) => checked.values.push((name.clone(), v)),
            Err(problem) => return Err(ArgumentError::Value { verb: named(), name: name.clone(), problem }),
        }
    }
    for Takes { name, .. } in takes().filter(|t| t.required) {
        if !checked.has(name) {
            return Err(ArgumentError::Missing { verb: named(), name: name.to_owned() });
        }
    }
    Ok(checked)
}

/// One non-null value against its type: what it is, or why it is refused.
/// References and ids keep their own messages, which say how to send them.
fn accept(ty: &ArgType, value: &Value) -> Result<Accepted, ValueProblem> {
    if let Value::String(s) = value
        && s.len() > MAX_STRING_BYTES
        && (ty.is_textual() || ty.kind == ArgKind::Any)
    {
        return Err(ValueProblem::TooLong { bytes: s.len() });
    }
    match (ty.kind, value) {
        (ArgKind::Reference, Value::String(s)) => return Ok(Accepted::Text(s.clone())),
        (ArgKind::Reference, Value::Number(n)) if n.is_u64() => return Ok(Accepted::Text(n.to_string())),
        (ArgKind::Reference, other) => {
            let negative = matches!(other, Value::Number(n) if n.as_i64().is_some_and(i64::is_negative));
            let expected = ArgKind::Reference.expected();
            return Err(ValueProblem::NotAReference { expected, received: received(other), negative });
        }
        (ArgKind::Id, Value::String(s)) => return id(s).map(Accepted::Text),
        _ => {}
    }
    ty.check(value).map_err(|m| ValueProblem::Wrong(Box::new(m)))?;
    Ok(match value {
        Value::String(s) if ty.is_textual() => Accepted::Text(s.clone()),
        Value::Number(n) if ty.kind == ArgKind::Integer && n.is_u64() => {
            Accepted::Integer(n.as_u64().unwrap_or_default())
        }
        other => Accepted::Json(other.clone()),
    })
}

/// An [`ArgKind::Id`], or why the string is not one.
fn id(s: &str) -> Result<String, ValueProblem> {
    let expected = ArgKind::Id.expected();
    match check_id(s) {
        Ok(()) => Ok(s.to_owned()),
        Err(IdProblem::Length(chars)) => Err(ValueProblem::IdLength { expected, chars }),
        Err(IdProblem::Unprintable) => {
            Err(ValueProblem::IdUnprintable { expected, received: received(&Value::from(s)) })
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn verb(name: &str) -> &'static Verb {
        crate::COCKPIT.verb(name).unwrap_or_else(|| panic!("`{name}` is in tools.toml"))
    }

    fn object(v: Value) -> JsonObject {
        match v {
            Value::Object(m) => m,
            _ => JsonObject::new(),
        }
    }

    fn call(name: &str, args: Value) -> Result<Checked, String> {
        call_typed(name, args).map_err(|e| e.to_string())
    }

    fn call_typed(name: &str, args: Value) -> Result<Checked, ArgumentError> {
        check(&crate::COCKPIT, verb(name), Some(&object(args)))
    }

    #[test]
    fn good_arguments_pass() {
        let claims = json!([{"label": "l", "text": "t"}]);
        let args = json!({"node_label": "n", "claims": claims, "title": null, "expected_store_version": 3});
        let checked = call("memorize", args).expect("ok");
        assert_eq!(checked.text("node_label"), Some("n"));
        assert_eq!(checked.value("claims"), Some(&claims));
        assert_eq!(checked.text("title"), None);
        assert_eq!(checked.integer("expected_store_version"), Some(3));
    }

    #[test]
    fn bad_arguments_name_the_argument_the_type_and_the_value() {
        let with = |more: Value| {
            let mut args = object(json!({"node_label": "n", "claims": [{"label": "l"}]}));
            args.extend(object(more));
            Value::Object(args)
        };
        let cases = [
            (with(json!({"node_label": 5})), "argument `node_label` of `memorize` must be a string, got the integer 5"),
            (with(json!({"claims": "c"})), "argument `claims` of `memorize` must be an array"),
            (with(json!({"claims": [{"text": "t"}]})), "argument `claims` of `memorize`"),
            (with(json!({"expected_store_version": "3"})), "must be a non-negative integer, got the string \"3\""),
            (with(json!({"expected_store_version": -1})), "must be a non-negative integer, got the integer -1"),
            (with(json!({"bogus": 1})), "`memorize` has no argument `bogus`; it takes node_label, claims, "),
            (json!({"node_label": "n"}), "`memorize` requires the argument `claims`"),
            (with(json!({"node_label": null})), "`memorize` requires the argument `node_label`"),
        ];
        for (args, expected) in cases {
            let err = call("memorize", args.clone()).expect_err("bad");
            assert!(err.contains(expected), "{args}: {err}");
        }
        let huge = object(with(json!({"node_label": "x".repeat(MAX_STRING_BYTES + 1)})));
        let err = check(&crate::COCKPIT, verb("memorize"), Some(&huge)).expect_err("huge").to_string();
        assert!(err.contains("argument `node_label`") && err.contains("at most 65536 bytes"), "{err}");
        assert!(err.len() < 200);
    }

    /// `select` under every JSON type: a string is kept as typed, a
    /// non-negative integer reads as its decimal string, the rest is refused
    /// with the reason and the way to send it.
    #[test]
    fn select_under_every_json_type() {
        let select = |v: Value| call("cockpit", json!({ "select": v })).map(|c| c.text("select").map(str::to_owned));
        assert_eq!(select(json!(null)), Ok(None), "null is absent: the root");
        assert_eq!(select(json!("2.10@mc_0a1b2c3d")), Ok(Some("2.10@mc_0a1b2c3d".into())), "a string as typed");
        assert_eq!(select(json!(3)), Ok(Some("3".into())), "an integer is its decimal string");
        assert_eq!(select(json!(0)), Ok(Some("0".into())), "0 is back");
        assert_eq!(select(json!(u64::MAX)), Ok(Some(u64::MAX.to_string())));
        let refused = [
            (json!(2.1), "got the number 2.1."),
            (json!(3.0), "got the number 3.0."),
            (json!(-1), "got the integer -1, and a reference is never negative."),
            (json!(true), "got the boolean true."),
            (json!([3]), "got an array of 1 item."),
            (json!({"n": 3}), "got an object with 1 key."),
        ];
        for (value, why) in refused {
            let err = select(value.clone()).expect_err("refused");
            assert!(err.starts_with("argument `select` of `cockpit` must be a reference"), "{value}: {err}");
            assert!(err.contains(why), "{value}: {err}");
            assert!(err.ends_with(SEND_AS_TYPED), "{value}: the refusal does not say how to send it: {err}");
            assert!(!err.contains('\n'), "{value}: more than one line: {err}");
        }
    }

    /// `seen_store_version` stays a strict integer under every JSON type.
    /// It is typed as upstream types it, any sign: a negative one passes the
    /// check, comes out of [`Checked::value`] and is ignored, as no store
    /// version is negative.
    #[test]
    fn integers_stay_strict_under_every_json_type() {
        let seen =
            |v: Value| call("cockpit", json!({ "seen_store_version": v })).map(|c| c.integer("seen_store_version"));
        assert_eq!(seen(json!(null)), Ok(None));
        assert_eq!(seen(json!(7)), Ok(Some(7)));
        assert_eq!(seen(json!(-7)), Ok(None));
        let refused = [
            (json!("7"), "the string \"7\""),
            (json!(7.5), "the number 7.5"),
            (json!(false), "the boolean false"),
            (json!([7, 8]), "an array of 2 items"),
            (json!({}), "an object with 0 keys"),
        ];
        for (value, got) in refused {
            let err = seen(value.clone()).expect_err("refused");
            assert_eq!(
                err,
                format!("argument `seen_store_version` of `cockpit` must be an integer, got {got}"),
                "{value}"
            );
        }
    }

    /// A value of each declared type that the check accepts (for the types
    /// the served policy's required arguments have).
    fn plausible(ty: Option<&ArgType>) -> Value {
        let Some(ty) = ty else { return json!("x") };
        match ty.kind {
            ArgKind::Integer | ArgKind::Number => json!(1),
            ArgKind::Boolean => json!(true),
            ArgKind::Array => Value::Array(vec![plausible(ty.items.first())]),
            ArgKind::Object => Value::Object(
                ty.properties
                    .iter()
                    .filter(|p| p.required)
                    .map(|p| (p.name.to_string(), plausible(Some(&p.ty))))
                    .collect(),
            ),
            _ => ty.choices.first().map_or_else(|| json!("x"), |c| json!(c.as_ref())),
        }
    }

    /// What the check lets through always reads as the verb's generated
    /// type (`calls!`), for every verb of the table, with every argument it
    /// takes: the two are derived from one declaration and never disagree.
    #[test]
    fn checked_arguments_always_read_as_their_generated_type() {
        for verb in crate::COCKPIT.verbs.iter() {
            for all in [false, true] {
                let args: JsonObject = crate::COCKPIT
                    .takes(verb)
                    .filter(|t| all || t.required)
                    .filter(|t| t.name != "agent_id")
                    .map(|t| (t.name.into(), plausible(t.ty)))
                    .collect();
                let checked =
                    check(&crate::COCKPIT, verb, Some(&args)).unwrap_or_else(|e| panic!("{}: {e}", verb.name));
                match crate::calls::Call::parse(&verb.name, checked.to_json()) {
                    Some(Ok(_)) => {}
                    other => panic!("{} with {}: {other:?}", verb.name, Value::Object(args)),
                }
            }
        }
        let wrong = crate::calls::Call::parse("memorize", json!({ "node_label": "n", "claims": [{ "text": "t" }] }));
        assert!(matches!(wrong, Some(Err(_))), "a claim without its label is not a claim");
    }

    /// Every verb takes the common `agent_id`, and the check hands it on.
    #[test]
    fn every_verb_takes_the_common_agent_id() {
        assert!(!crate::COCKPIT.common.is_empty(), "tools.toml declares common arguments");
        for verb in crate::COCKPIT.verbs.iter() {
            let mut args: JsonObject =
                crate::COCKPIT.takes(verb).filter(|t| t.required).map(|t| (t.name.into(), plausible(t.ty))).collect();
            args.insert("agent_id".into(), json!("agent-7"));
            let checked = check(&crate::COCKPIT, verb, Some(&args)).unwrap_or_else(|e| panic!("{}: {e}", verb.name));
            assert_eq!(checked.text("agent_id"), Some("agent-7"), "{}", verb.name);
        }
    }

    /// `agent_id` under every JSON type: a short printable string, nothing else.
    #[test]
    fn agent_id_under_every_json_type() {
        let agent = |v: Value| {
            let args = json!({ "node_label": "n", "claims": [{"label": "l"}], "agent_id": v });
            call("memorize", args).map(|c| c.text("agent_id").map(str::to_owned))
        };
        let longest = "a".repeat(MAX_ID_CHARS);
        for ok in ["agent-7", "Agent 7", "é-agent", longest.as_str()] {
            assert_eq!(agent(json!(ok)), Ok(Some(ok.to_owned())), "{ok:?}");
        }
        assert_eq!(agent(json!(null)), Ok(None));
        let too_long = "a".repeat(MAX_ID_CHARS + 1);
        let refused = [
            (json!(""), "of 1 to 64 characters, got 0 characters"),
            (json!(too_long), "of 1 to 64 characters, got 65 characters"),
            (json!("a\u{7}b"), "holds control, invisible or repeated space characters"),
            (json!("a\u{200B}b"), "holds control, invisible or repeated space characters"),
            (json!("\u{1b}[31mred"), "holds control, invisible or repeated space characters"),
            (json!(" a"), "holds control, invisible or repeated space characters"),
            (json!("a  b"), "holds control, invisible or repeated space characters"),
            (json!(7), "got the integer 7"),
            (json!(7.5), "got the number 7.5"),
            (json!(true), "got the boolean true"),
            (json!(["a"]), "got an array of 1 item"),
            (json!({"id": "a"}), "got an object with 1 key"),
        ];
        for (value, why) in refused {
            let err = agent(value.clone()).expect_err("refused");
            assert!(
                err.starts_with("argument `agent_id` of `memorize` must be a short printable string"),
                "{value}: {err}"
            );
            assert!(err.contains(why), "{value}: {err}");
            assert!(!err.chars().any(char::is_control) && err.len() < 200, "{value}: {err:?}");
        }
    }

    /// A hostile value is shown cut and without its escapes or controls.
    #[test]
    fn a_wrong_value_is_previewed_bounded_and_sanitised() {
        let hostile = format!("\u{1b}[31m{}\n\u{7}", "A".repeat(100_000));
        let err = call("cockpit", json!({ "seen_store_version": hostile })).expect_err("refused");
        assert!(err.len() < 200, "{} bytes", err.len());
        assert!(!err.chars().any(char::is_control), "{err:?}");
        assert!(err.contains("got the string \"AAAA") && err.contains('…'), "{err}");
    }

    /// A table with typed arguments and a verb of two argument sets, built
    /// from the ui suite's base policy.
    fn typed_table() -> Cockpit {
        let tools = format!(
            "{}{}",
            include_str!("../../tests/ui/policies/base/tools.toml"),
            r#"
[verbs.lock_create]
summary = "Take a lock"
requires = ["scope"]
[verbs.lock_create.arguments]
radius = { type = "integer", minimum = 1, maximum = 4, default = 2 }
paths = { type = "array", items = { type = "text", min_length = 1 }, min_items = 1 }
strict = "boolean"

[verbs.service]
summary = "Two requests in one verb"
common = false
one_of = [
  { requires = ["action", "claim"], arguments = { action = { type = "text", const = "promote" }, claim = "text" } },
  { requires = ["action"], arguments = { action = { type = "text", const = "ratify" }, ids = { type = "array", items = "text", nullable = true } } },
]
"#
        );
        let files = |f: m1nd_policy::PolicyFile| -> Option<&[u8]> {
            use m1nd_policy::PolicyFile::*;
            match f {
                Tools => Some(tools.as_bytes()),
                Deny => Some(include_bytes!("../../tests/ui/policies/base/read_only_denied.toml")),
                Cards => Some(include_bytes!("../../tests/ui/policies/base/help_cards.toml")),
                Cockpit => Some(include_bytes!("../../tests/ui/policies/base/cockpit.toml")),
                _ => None,
            }
        };
        let sources = m1nd_policy::PolicySources::from_bytes("typed", files);
        m1nd_policy::compile(&sources)
            .unwrap_or_else(|d| panic!("{}", d.iter().map(|d| d.render(&sources)).collect::<String>()))
    }

    #[test]
    fn typed_arguments_are_checked_by_their_type() {
        let table = typed_table();
        let verb = table.verb("lock_create").expect("lock_create");
        let call = |v: Value| check(&table, verb, Some(&object(v))).map_err(|e| e.to_string());
        let ok = call(json!({"scope": "s", "radius": 3, "paths": ["a"], "strict": true})).expect("ok");
        assert_eq!(ok.integer("radius"), Some(3));
        assert_eq!(ok.value("paths"), Some(&json!(["a"])));
        assert_eq!(ok.value("strict"), Some(&json!(true)));
        let refused = [
            (
                json!({"scope": "s", "radius": 5}),
                "argument `radius` of `lock_create` must be an integer from 1 to 4, got the integer 5",
            ),
            (json!({"scope": "s", "paths": []}), "must be an array of at least 1 items"),
            (json!({"scope": "s", "paths": [""]}), "has `/0`, which must be a string of at least 1 characters"),
            (json!({"scope": "s", "strict": "yes"}), "must be a boolean, got the string \"yes\""),
        ];
        for (args, why) in refused {
            let err = call(args.clone()).expect_err("refused");
            assert!(err.contains(why), "{args}: {err}");
        }
    }

    #[test]
    fn a_verb_with_argument_sets_takes_a_call_that_matches_exactly_one() {
        let table = typed_table();
        let verb = table.verb("service").expect("service");
        let call = |v: Value| check(&table, verb, Some(&object(v))).map_err(|e| e.to_string());
        assert_eq!(call(json!({"action": "promote", "claim": "c"})).expect("set 1").text("claim"), Some("c"));
        assert!(call(json!({"action": "ratify", "ids": ["a"]})).is_ok(), "set 2");
        let err = call(json!({"action": "ratify", "claim": "c"})).expect_err("claim is not in set 2");
        assert!(
            err.starts_with("`service` takes exactly one of its 2 argument sets, and this call matches none"),
            "{err}"
        );
        assert!(err.contains("set 1: argument `action` of `service` must be the string \"promote\""), "{err}");
        assert!(err.contains("set 2: `service` has no argument `claim`"), "{err}");
        let err = call(json!({"action": "promote", "claim": "c", "agent_id": "a"})).expect_err("common = false");
        assert!(err.contains("no argument `agent_id`"), "{err}");
    }
}
