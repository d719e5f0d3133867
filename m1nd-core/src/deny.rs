//! `read_only_denied.toml` (its `tools` list and its status-only rules), compiled.
//!
//! This is the one read-only classification. The menu, the guard on
//! `tools/call` and the annotations on `tools/list` all ask it, so no second
//! list can drift from it.

use serde_json::{Map, Value};

use crate::primitives::{Argument, List, Str};

/// The file a refusal names: the policy file the user wrote the rule in
/// (`PolicyFile::Deny`'s name, checked by a test in `policy/source.rs`; this
/// module sits below the compiler and does not import it).
pub(crate) const DENY_FILE: &str = "read_only_denied.toml";

/// The compiled deny list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DenyList {
    /// Verbs that write, in policy order.
    pub tools: List<Str>,
    /// Verbs denied except for allowed values of one argument.
    pub status_only: List<StatusOnly>,
}

/// A verb that a read-only session may call only with one argument pinned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusOnly {
    pub verb: Str,
    pub argument: Str,
    pub allowed: List<Str>,
}

/// Why a read-only session may not make a call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The verb may write: `read_only_denied.toml` lists it in `tools`.
    Denied { verb: String },
    /// The verb writes unless `argument` holds one of `allowed`, byte for
    /// byte. `got` is the value sent, escaped ([`crate::sanitize::escape::value`]);
    /// `near` is the allowed value it would equal if trimmed and case-folded.
    StatusOnly { verb: String, argument: String, allowed: Vec<String>, got: Option<String>, near: Option<String> },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Denied { verb } => {
                // Not "`{verb}` writes": a tool is listed as well when it takes
                // text (SQL, a command) whose effect no guard can read.
                write!(
                    f,
                    "`{verb}` is refused: this session is attached read-only, and {DENY_FILE} lists `{verb}` in \
                     `tools`, the tools that may write (directly, or through text such as SQL or a command whose \
                     effect no guard can read); call it from a read-write session, or take it out of `tools` if it \
                     never writes"
                )
            }
            Refusal::StatusOnly { verb, argument, allowed, got, near } => {
                let got = got.as_deref().map_or("nothing".to_owned(), |g| format!("`{g}`"));
                write!(
                    f,
                    "`{verb}` is status-only in {DENY_FILE}: `{argument}` must be one of {}, got {got}",
                    allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
                )?;
                match near {
                    Some(near) => write!(f, "; values are compared byte for byte: send exactly `{near}`"),
                    None => Ok(()),
                }
            }
        }
    }
}

impl DenyList {
    /// True when `verb` (canonical) is denied outright: a read-only session
    /// may never call it, with any arguments. A status-only verb is not denied
    /// outright: it has a permitted form.
    pub fn denies(&self, verb: &str) -> bool {
        self.tools.iter().any(|t| t == verb)
    }

    /// The status-only rule for `verb` (canonical), if it has one.
    pub fn status_only(&self, verb: &str) -> Option<&StatusOnly> {
        self.status_only.iter().find(|s| s.verb == verb)
    }

    /// Whether a read-only session may call `verb` (canonical) with only these
    /// fixed arguments: the check behind the derived help overview and the
    /// composer's re-check of every read. Same rule as [`DenyList::check`].
    pub fn permits_fixed(&self, verb: &str, fixed: &[Argument]) -> bool {
        !self.denies(verb) && self.status_pinned(verb, fixed)
    }

    /// False only for a status-only verb whose argument is not pinned, by
    /// these fixed arguments, to an allowed value.
    pub fn status_pinned(&self, verb: &str, fixed: &[Argument]) -> bool {
        self.status_only(verb)
            .is_none_or(|rule| fixed.iter().any(|a| a.name == rule.argument && rule.permits(&a.value)))
    }

    /// Whether a read-only session may call `verb` (canonical) with `args`.
    ///
    /// Status-only arguments fail closed: a missing or non-string value is a
    /// refusal, and a string matches only when it is byte for byte one of the
    /// allowed values. Nothing is trimmed or folded: the value judged here is
    /// the value forwarded, and an upstream that reads `" Status "` as a
    /// write must never receive it from a read-only session.
    pub fn check(&self, verb: &str, args: Option<&Map<String, Value>>) -> Result<(), Refusal> {
        if self.denies(verb) {
            return Err(Refusal::Denied { verb: verb.to_owned() });
        }
        let Some(rule) = self.status_only(verb) else {
            return Ok(());
        };
        let got = args.and_then(|a| a.get(&*rule.argument));
        let text = got.and_then(Value::as_str);
        if text.is_some_and(|t| rule.permits(t)) {
            return Ok(());
        }
        Err(Refusal::StatusOnly {
            verb: verb.to_owned(),
            argument: rule.argument.to_string(),
            allowed: rule.allowed.iter().map(|a| a.to_string()).collect(),
            got: got.map(echo),
            near: text.and_then(|t| rule.near(t)).map(str::to_owned),
        })
    }
}

/// A refused value as a refusal may echo it: short, on one line, and with
/// every invisible character and unusual space escaped, so the caller sees
/// why it is not an allowed value.
fn echo(value: &Value) -> String {
    match value {
        Value::String(s) => crate::sanitize::escape::value(s, crate::sanitize::cap::VALUE),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
        short => short.to_string(),
    }
}

impl StatusOnly {
    /// Whether `value` is one of the allowed values, byte for byte.
    pub fn permits(&self, value: &str) -> bool {
        self.allowed.iter().any(|a| **a == *value)
    }

    /// The allowed value that `value` would be once trimmed of every kind of
    /// space and case-folded: what the sender most likely meant, for the
    /// refusal's advice. Never a reason to allow.
    fn near(&self, value: &str) -> Option<&str> {
        use crate::sanitize::escape::{Layout, is_unseen};
        // Advice only: a long value is no near miss, and is not worth folding.
        if value.len() > 4 * crate::sanitize::cap::VALUE {
            return None;
        }
        let folded = value.trim_matches(|c: char| c.is_whitespace() || is_unseen(c, Layout::Escape)).to_lowercase();
        self.allowed.iter().map(|a| &**a).find(|a| a.to_lowercase() == folded)
    }
}

impl DenyList {
    /// True when no call of `verb` (canonical) can write: it is neither denied
    /// nor status-only. This is `readOnlyHint` on every `tools/list`.
    pub fn never_writes(&self, verb: &str) -> bool {
        !self.denies(verb) && self.status_only(verb).is_none()
    }
}
