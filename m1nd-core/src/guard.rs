//! The guard on `tools/call`: one decision for every transport.
//!
//! It normalises the requested name with the same rule the policy compiler
//! uses ([`crate::names::canonical`] for m1nd's own verbs,
//! [`crate::names::spec::fold`] for a gateway's tools), then refuses — before any side effect —
//! retired and human-only verbs always, and in a read-only session every denied verb, every
//! status-only verb outside its allowed argument, and every name it does not
//! know (fail-closed, unlike upstream).

use serde_json::{Map, Value};

use crate::deny::Refusal;
use crate::gateway_table::Gateway;
use crate::names::{Folding, NameIndex, Resolution};
use crate::table::{Cockpit, Verb, VerbId};

/// Why a call was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refused {
    /// No verb has this name (after trimming, prefix stripping and case folding).
    Unknown { name: String, suggestion: Option<String> },
    /// A non-ASCII name that imitates a verb.
    LookAlike { name: String, verb: String },
    /// Longer than any tool name could be; refused before any lookup.
    TooLong { bytes: usize },
    /// A tombstone: refused in every session.
    Retired { verb: String },
    /// Only the human performs it, at `acts_at`; refused in every session (M013).
    HumanOnly { verb: String, acts_at: String },
    /// Read-only session and the verb writes.
    ReadOnly(Refusal),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Unknown { name, suggestion: Some(s) } => {
                write!(f, "unknown tool `{name}`; did you mean `{s}`?")
            }
            Refused::Unknown { name, suggestion: None } => write!(f, "unknown tool `{name}`"),
            Refused::LookAlike { name, verb } => {
                write!(f, "`{name}` is a look-alike of `{verb}` (non-ASCII letters); it is not a tool")
            }
            Refused::TooLong { bytes } => {
                write!(
                    f,
                    "unknown tool: the name is {bytes} bytes long; no tool name is longer than {MAX_NAME_BYTES} bytes"
                )
            }
            Refused::Retired { verb } => write!(f, "`{verb}` is retired and refused in every session"),
            Refused::HumanOnly { verb, acts_at } => write!(
                f,
                "`{verb}` is the human's alone and refused over MCP in every session; the human performs it on {acts_at}"
            ),
            Refused::ReadOnly(refusal @ Refusal::Denied { .. }) => refusal.fmt(f),
            Refused::ReadOnly(refusal) => write!(f, "{refusal}; this session is attached read-only"),
        }
    }
}

impl std::error::Error for Refused {}

impl Refused {
    /// The refusal's kind, for an audit line's `code`: the law's code where a
    /// law states the rule (M013, human-only verbs), else a short name.
    pub fn code(&self) -> &'static str {
        match self {
            Refused::Unknown { .. } => "unknown",
            Refused::LookAlike { .. } => "look-alike",
            Refused::TooLong { .. } => "too-long",
            Refused::Retired { .. } => "retired",
            Refused::HumanOnly { .. } => "M013",
            Refused::ReadOnly(Refusal::Denied { .. }) => "read-only-denied",
            Refused::ReadOnly(Refusal::StatusOnly { .. }) => "status-only",
        }
    }

    /// Whether the refusal's text may echo an argument's value (a
    /// status-only verb's refused argument does), so that an audit trail
    /// that omits values omits the text too.
    pub fn echoes_a_value(&self) -> bool {
        matches!(self, Refused::ReadOnly(Refusal::StatusOnly { got: Some(_), .. }))
    }
}

/// A call the guard let through: the verb's handle in the guard's table, and
/// its definition. Everything after the guard works from this value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved<'a> {
    pub id: VerbId,
    pub verb: &'a Verb,
}

/// Longer names are refused without a "did you mean": no verb is anywhere
/// near this long, and edit distance over megabytes of input is a cost an
/// attacker should not be able to buy with one call.
pub const MAX_NAME_BYTES: usize = 256;

/// Resolves and checks tool calls against a compiled table.
pub struct Guard<'a> {
    cockpit: &'a Cockpit,
    names: NameIndex<'a>,
    read_only: bool,
}

impl<'a> Guard<'a> {
    /// The guard of m1nd's own verbs (canonical names).
    pub fn new(cockpit: &'a Cockpit, read_only: bool) -> Self {
        Self::with_folding(cockpit, read_only, Folding::Canonical)
    }

    /// The guard of a gateway policy: its tools keep their upstream names,
    /// and every client spelling that folds to one of them means it.
    pub fn for_gateway(gateway: &'a Gateway, read_only: bool) -> Self {
        Self::with_folding(&gateway.policy, read_only, Folding::Spec)
    }

    fn with_folding(cockpit: &'a Cockpit, read_only: bool, folding: Folding) -> Self {
        Self { cockpit, names: NameIndex::with_folding(cockpit.verbs.iter().map(|v| &*v.name), folding), read_only }
    }

    /// The rule this guard finds names by.
    pub fn folding(&self) -> Folding {
        self.names.folding()
    }

    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// The verb a call may proceed with, resolved once to its handle, or why
    /// it may not.
    pub fn check(&self, name: &str, args: Option<&Map<String, Value>>) -> Result<Resolved<'a>, Refused> {
        if name.len() > MAX_NAME_BYTES {
            return Err(Refused::TooLong { bytes: name.len() });
        }
        let index = match self.names.locate(name) {
            Ok(index) => index,
            Err(Resolution::LookAlike { verb, .. }) => {
                return Err(Refused::LookAlike { name: printable(name), verb: verb.to_owned() });
            }
            Err(Resolution::Unknown { suggestion }) => {
                return Err(Refused::Unknown { name: printable(name), suggestion: suggestion.map(str::to_owned) });
            }
            // `locate` reports a known name as Ok; nothing else is a verb.
            Err(Resolution::Known(_)) => return Err(Refused::Unknown { name: printable(name), suggestion: None }),
        };
        // The index was built from `cockpit.verbs` in order, so its positions are the table's.
        let id = u32::try_from(index).map(VerbId::__at);
        let Some((id, def)) = id.ok().and_then(|id| Some((id, self.cockpit.verb_at(id)?))) else {
            return Err(Refused::Unknown { name: printable(name), suggestion: None });
        };
        let verb = &*def.name;
        if def.retired {
            return Err(Refused::Retired { verb: verb.to_owned() });
        }
        if self.cockpit.human_only.contains(verb) {
            return Err(Refused::HumanOnly {
                verb: verb.to_owned(),
                acts_at: self.cockpit.human_only.acts_at.to_string(),
            });
        }
        if self.read_only {
            self.cockpit.deny.check(verb, args).map_err(Refused::ReadOnly)?;
        }
        Ok(Resolved { id, verb: def })
    }

    /// Whether `tools/list` shows this verb to the session.
    pub fn shows(&self, verb: &Verb) -> bool {
        let hidden_by_read_only = self.read_only && self.cockpit.deny.denies(&verb.name);
        !verb.retired && !hidden_by_read_only && !self.cockpit.human_only.contains(&verb.name)
    }
}

/// A name echoed in a refusal: sanitised and bounded, so it cannot forge a
/// line, drive a terminal or hide text.
pub fn printable(name: &str) -> String {
    crate::sanitize::display(name, crate::sanitize::cap::NAME)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deny::DenyList;
    use std::borrow::Cow;

    fn verb(name: &'static str, retired: bool) -> Verb {
        Verb {
            name: Cow::Borrowed(name),
            summary: Cow::Borrowed(""),
            requires: Cow::Borrowed(&[]),
            accepts: Cow::Borrowed(&[]),
            arguments: Cow::Borrowed(&[]),
            common: true,
            one_of: Cow::Borrowed(&[]),
            retired,
        }
    }

    fn table() -> Cockpit {
        let mut c = Cockpit::STUB;
        c.verbs = Cow::Owned(vec![
            verb("doctor", false),
            verb("learn", false),
            verb("persist", false),
            verb("mission_post", true),
            verb("mission_stamp", false),
        ]);
        c.human_only = crate::table::HumanOnly {
            verbs: Cow::Owned(vec![Cow::Borrowed("mission_stamp")]),
            acts_at: Cow::Borrowed("the tray"),
        };
        c.deny = DenyList {
            tools: Cow::Owned(vec![
                Cow::Borrowed("learn"),
                Cow::Borrowed("mission_post"),
                Cow::Borrowed("mission_stamp"),
            ]),
            status_only: Cow::Owned(vec![crate::deny::StatusOnly {
                verb: Cow::Borrowed("persist"),
                argument: Cow::Borrowed("action"),
                allowed: Cow::Owned(vec![Cow::Borrowed("status")]),
            }]),
        };
        c
    }

    fn args(action: Value) -> Map<String, Value> {
        Map::from_iter([("action".to_owned(), action)])
    }

    #[test]
    fn read_only_refuses_every_alias_of_a_denied_verb() {
        let t = table();
        let guard = Guard::new(&t, true);
        for name in ["learn", "m1nd.learn", "m1nd_learn", "LEARN", "  M1ND.Learn\t"] {
            assert!(matches!(guard.check(name, None), Err(Refused::ReadOnly(_))), "{name}");
        }
        assert_eq!(guard.check("m1nd.doctor", None).map(|v| &*v.verb.name), Ok("doctor"));
        // The handle names the verb in the guard's table, for every live verb.
        for (id, verb) in t.verbs_with_ids().filter(|(_, v)| !v.retired && &*v.name != "mission_stamp") {
            let resolved = Guard::new(&t, false).check(&verb.name.to_uppercase(), None).expect("resolves");
            assert_eq!((resolved.id, std::ptr::eq(resolved.verb, verb)), (id, true), "{}", verb.name);
        }
    }

    /// A denied verb is refused saying what (the verb), why (the read-only
    /// session and the deny list, whose `tools` also hold tools that take
    /// text no guard can read) and what to do, never that it "writes".
    #[test]
    fn a_denied_verb_is_refused_saying_what_why_and_what_to_do() {
        let t = table();
        let said = Guard::new(&t, true).check("learn", None).expect_err("denied").to_string();
        for part in [
            "`learn` is refused",
            "attached read-only",
            "read_only_denied.toml lists `learn` in `tools`",
            "such as SQL or a command",
            "call it from a read-write session",
        ] {
            assert!(said.contains(part), "{part:?} missing from: {said}");
        }
        assert!(!said.contains("writes:"), "{said}");
        assert_eq!(said.matches("read-only").count(), 1, "said once: {said}");
    }

    #[test]
    fn status_only_fails_closed() {
        let t = table();
        let guard = Guard::new(&t, true);
        assert!(guard.check("persist", Some(&args(Value::from("status")))).is_ok());
        for bad in [Value::from("save"), Value::from(1), Value::Null] {
            assert!(guard.check("persist", Some(&args(bad))).is_err());
        }
        assert!(guard.check("persist", None).is_err());
        assert!(Guard::new(&t, false).check("persist", Some(&args(Value::from("save")))).is_ok());
    }

    /// Every spelling an upstream might read as something other than the
    /// allowed value is refused, and the refusal shows it escaped and says
    /// what to send instead.
    #[test]
    fn status_only_values_are_compared_byte_for_byte() {
        let t = table();
        let guard = Guard::new(&t, true);
        let spellings = [
            ("STATUS", "`STATUS`"),
            ("Status", "`Status`"),
            (" status", "` status`"),
            ("status\n", "`status\\u{000A}`"),
            ("\u{A0}status", "`\\u{00A0}status`"),
            ("\u{3000}status", "`\\u{3000}status`"),
            ("\tstatus", "`\\u{0009}status`"),
            ("status\u{2028}", "`status\\u{2028}`"),
            ("status\u{85}", "`status\\u{0085}`"),
            ("status\u{200B}", "`status\\u{200B}`"),
        ];
        for (sent, shown) in spellings {
            let refused = guard.check("persist", Some(&args(Value::from(sent)))).unwrap_err();
            let text = refused.to_string();
            assert!(text.contains(&format!("got {shown}")), "{sent:?}: {text}");
            assert!(text.contains("values are compared byte for byte: send exactly `status`;"), "{sent:?}: {text}");
        }
        let far = guard.check("persist", Some(&args(Value::from("save")))).unwrap_err().to_string();
        assert!(!far.contains("byte for byte"), "{far}");
    }

    #[test]
    fn unknown_look_alike_and_retired_are_refused_in_any_session() {
        let t = table();
        for read_only in [true, false] {
            let guard = Guard::new(&t, read_only);
            assert!(matches!(guard.check("docter", None), Err(Refused::Unknown { suggestion: Some(_), .. })));
            assert!(matches!(guard.check("l\u{0435}arn", None), Err(Refused::LookAlike { .. })));
            assert!(matches!(guard.check("mission_post", None), Err(Refused::Retired { .. })));
        }
    }

    #[test]
    fn human_only_verbs_are_refused_in_every_session_saying_where_the_human_acts() {
        let t = table();
        for read_only in [true, false] {
            let guard = Guard::new(&t, read_only);
            for name in ["mission_stamp", "M1ND.Mission_Stamp", " m1nd_mission_stamp "] {
                let refused = guard.check(name, None).unwrap_err();
                assert!(matches!(&refused, Refused::HumanOnly { verb, .. } if verb == "mission_stamp"), "{name}");
                assert!(refused.to_string().ends_with("the human performs it on the tray"), "{refused}");
            }
        }
    }

    #[test]
    fn a_refusal_echoes_a_huge_value_briefly() {
        let t = table();
        let guard = Guard::new(&t, true);
        for value in [Value::from("s".repeat(1 << 20)), Value::Array(vec![Value::from(1); 100_000])] {
            let refused = guard.check("persist", Some(&args(value))).unwrap_err();
            assert!(refused.to_string().len() < 200, "{} bytes", refused.to_string().len());
        }
    }

    #[test]
    fn a_refusal_echo_is_one_clean_line() {
        let t = table();
        let guard = Guard::new(&t, true);
        let forged = "x\r\nerror: forged line\u{1b}[2J\u{1b}]0;title\u{7}\u{202E}\u{E0041}\u{200B}";
        let refusals = [
            guard.check(forged, None).unwrap_err(),
            guard.check("persist", Some(&args(Value::from(forged)))).unwrap_err(),
        ];
        for refused in &refusals {
            let text = refused.to_string();
            assert!(!text.chars().any(|c| c.is_control() || crate::sanitize::is_hidden(c)), "{text:?}");
        }
        // A name is shown as a headline; a refused value escaped, as it was sent.
        assert!(refusals[0].to_string().contains("x error: forged line"), "{}", refusals[0]);
        assert!(refusals[1].to_string().contains("x\\u{000D}\\u{000A}error: forged line"), "{}", refusals[1]);
    }

    #[test]
    fn huge_names_are_refused_without_a_search() {
        let t = table();
        let name = "learn".repeat(2_000_000);
        let refused = Guard::new(&t, true).check(&name, None).unwrap_err();
        assert_eq!(refused, Refused::TooLong { bytes: name.len() });
        assert!(refused.to_string().len() < 120);
    }

    #[test]
    fn listing_hides_what_the_session_may_not_call() {
        let t = table();
        let shown =
            |ro| t.verbs.iter().filter(|v| Guard::new(&t, ro).shows(v)).map(|v| v.name.to_string()).collect::<Vec<_>>();
        assert_eq!(shown(true), ["doctor", "persist"]);
        assert_eq!(shown(false), ["doctor", "learn", "persist"]);
    }

    /// Each kind of refusal has a code of its own, and only a refusal that
    /// can hold an argument's value says it does.
    #[test]
    fn each_refusal_has_its_own_code() {
        let t = table();
        let guard = Guard::new(&t, true);
        let cases = [
            (guard.check("docter", None), "unknown", false),
            (guard.check("l\u{0435}arn", None), "look-alike", false),
            (guard.check(&"x".repeat(MAX_NAME_BYTES + 1), None), "too-long", false),
            (guard.check("mission_post", None), "retired", false),
            (guard.check("mission_stamp", None), "M013", false),
            (guard.check("learn", None), "read-only-denied", false),
            (guard.check("persist", Some(&args(Value::from("s3cret")))), "status-only", true),
            (guard.check("persist", None), "status-only", false),
        ];
        for (checked, code, echoes) in cases {
            let refused = checked.unwrap_err();
            assert_eq!((refused.code(), refused.echoes_a_value()), (code, echoes), "{refused}");
            assert_eq!(refused.to_string().contains("s3cret"), echoes, "{refused}");
        }
    }
}
