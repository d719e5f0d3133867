//! The reviewed definitions a gateway policy keeps beside its pins:
//! `definitions.json`, written by `m1nd policy import` and by
//! `policy import --update --apply`.
//!
//! 1. **One source.** The file is a JSON array of tool definitions exactly as
//!    the upstream listed them. It holds no digests and no name list of its
//!    own: a definition is found by its digest ([`digest`]), which is what
//!    `tools.toml` pins, and its name is the one inside the definition.
//! 2. **It must be what the pins say.** Every entry's digest must be the pin
//!    of the verb it names ([`Reviewed::mismatches`]). The gateway never reads
//!    this file (it compares the upstream's live definitions with the pins), so
//!    a mismatch cannot widen what a session reaches; it would make the text a
//!    reviewer reads in a pull request differ from what is enforced. That is
//!    why it is checked by `policy check` and before `--update` uses the file,
//!    not by a law: laws decide what the compiled guard enforces, and the
//!    macro and the gateway's startup never need this file.
//! 3. **Optional.** A policy imported before the file existed has none; then
//!    `--update` can compare digests only, and says how to get the readable
//!    form.

use std::path::{Path, PathBuf};

use m1nd_core::gateway::{Gateway, digest};
use m1nd_core::guard::printable;
use m1nd_core::names::spec::toml_key;
use m1nd_core::policy::{MAX_FILE_BYTES, PolicyFile};
use serde_json::Value;

/// The file's name in a gateway policy directory.
pub const DEFINITIONS_FILE: &str = "definitions.json";

/// The reviewed definitions of one policy directory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reviewed {
    /// Each definition as the upstream listed it, in the file's order.
    pub definitions: Vec<Value>,
}

/// Why `definitions.json` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ReviewedError {
    #[error("cannot read {}: {source}", .path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error(
        "{} is {bytes} bytes; a policy file may hold at most {MAX_FILE_BYTES}: restore the reviewed file",
        .path.display()
    )]
    TooLarge { path: PathBuf, bytes: u64 },
    #[error(
        "{} is not a JSON array of tool definitions ({problem}): restore it from the reviewed revision, or \
         delete it and run `{}` to store the definitions again",
        .path.display(),
        crate::invocation::m1nd("policy import --update --apply")
    )]
    Malformed { path: PathBuf, problem: String },
    /// Entries that are not the definitions their verbs pin, one message each.
    #[error(
        "{} does not hold the definitions tools.toml pins:\n{}\nThe file is what a reviewer reads; the pins are what \
         the gateway enforces, so they must agree. Restore the file from the reviewed revision, or run `{}` and \
         review the diff it shows.",
        .path.display(),
        .problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"),
        crate::invocation::m1nd("policy import --update --apply")
    )]
    Mismatch { path: PathBuf, problems: Vec<String> },
}

impl Reviewed {
    /// The file in `dir`, `None` if the policy keeps no reviewed definitions.
    pub fn read(dir: &Path) -> Result<Option<Self>, ReviewedError> {
        let path = dir.join(DEFINITIONS_FILE);
        let read = |source| ReviewedError::Read { path: path.clone(), source };
        let meta = match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(read(e)),
            Ok(meta) => meta,
        };
        if !meta.is_file() {
            // Never opened: a FIFO would block, a device never ends.
            let source = std::io::Error::other("it is not a regular file");
            return Err(read(source));
        }
        if meta.len() > MAX_FILE_BYTES as u64 {
            return Err(ReviewedError::TooLarge { path, bytes: meta.len() });
        }
        let text = std::fs::read_to_string(&path).map_err(read)?;
        Self::parse(&text).map(Some).map_err(|problem| ReviewedError::Malformed { path, problem })
    }

    /// The file's text: an array whose items are objects.
    pub fn parse(text: &str) -> Result<Self, String> {
        match serde_json::from_str::<Value>(text).map_err(|e| e.to_string())? {
            Value::Array(definitions) => match definitions.iter().position(|d| !d.is_object()) {
                Some(i) => Err(format!("entry {} is not an object", i + 1)),
                None => Ok(Self { definitions }),
            },
            _ => Err("the top level is not an array".to_owned()),
        }
    }

    /// The definition whose digest is `pin`, if the file holds it.
    pub fn pinned(&self, pin: &str) -> Option<&Value> {
        self.definitions.iter().find(|d| digest(d) == pin)
    }

    /// Each entry that is not the definition its verb pins, as a message
    /// naming the entry (1-based) and the verb's table in tools.toml.
    pub fn mismatches(&self, gateway: &Gateway) -> Vec<String> {
        let mut problems = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for (i, definition) in self.definitions.iter().enumerate() {
            let n = i + 1;
            let Some(name) = definition.get("name").and_then(Value::as_str) else {
                problems.push(format!("entry {n} has no `name`"));
                continue;
            };
            let shown = printable(name);
            if seen.contains(&name) {
                problems.push(format!("entry {n} (`{shown}`) is a second definition of `{shown}`"));
                continue;
            }
            seen.push(name);
            let table = format!("`[verbs.{}]` of {}", toml_key(&shown), PolicyFile::Tools.file_name());
            let stored = digest(definition);
            match gateway.tool(name).map(|t| t.definition.as_deref()) {
                None => problems.push(format!("entry {n} (`{shown}`) names a tool tools.toml does not declare")),
                Some(None) => problems.push(format!("entry {n} (`{shown}`) is stored, but {table} pins no definition")),
                Some(Some(pin)) if pin != stored => {
                    problems.push(format!(
                        "entry {n} (`{shown}`) has the digest {stored}, but {table} pins {pin}: it is not the \
                         reviewed definition"
                    ));
                }
                Some(Some(_)) => {}
            }
        }
        problems
    }

    /// Check the file in `dir` against `gateway`'s pins: `policy check`'s
    /// and `--update`'s one way to read it.
    pub fn checked(dir: &Path, gateway: &Gateway) -> Result<Option<Self>, ReviewedError> {
        let Some(reviewed) = Self::read(dir)? else { return Ok(None) };
        let problems = reviewed.mismatches(gateway);
        if problems.is_empty() {
            Ok(Some(reviewed))
        } else {
            Err(ReviewedError::Mismatch { path: dir.join(DEFINITIONS_FILE), problems })
        }
    }

    /// The file's text: pretty JSON, one key per line, so a changed
    /// description or schema is a readable line diff in a pull request.
    pub fn render(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.definitions).unwrap_or_else(|_| "[]".to_owned());
        text.push('\n');
        text
    }
}
