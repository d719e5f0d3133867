//! The reviewed definitions a gateway policy keeps beside its pins:
//! `definitions.json`, written by `m1nd policy import` and by
//! `policy import --update --apply`.
//!
//! 1. **One source.** The file holds tool definitions (and prompt, resource
//!    and template definitions) exactly as the upstream listed them. It holds
//!    no digests and no name list of its own: a definition is found by its
//!    digest ([`digest`]), which is what `tools.toml` pins, and its name (URI,
//!    URI template) is the one inside the definition. A policy whose upstream
//!    lists only tools keeps a plain JSON array of them (the file's first
//!    form, still read as such); otherwise the file is an object with one
//!    array per kind, named as tools.toml's tables: `tools`, `prompts`,
//!    `resources`, `templates`.
//! 2. **It must be what the pins say.** Every entry's digest must be the pin
//!    of the verb (prompt, resource, template) it names
//!    ([`Reviewed::mismatches`]). An entry whose verb (prompt, resource,
//!    template) tools.toml no longer declares is stale, not a mismatch
//!    ([`Reviewed::stale`]): deleting a declaration only tightens, so the
//!    file left behind must not block that review. It is ignored, said as a
//!    note, and dropped by the next `--update --apply`. The gateway never reads
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

use m1nd_policy::gateway::surfaces::{Kind, Listed};
use m1nd_policy::gateway::{Gateway, digest};
use m1nd_policy::guard::printable;
use m1nd_policy::names::spec::toml_key;
use m1nd_policy::policy::{MAX_FILE_BYTES, PolicyFile};
use m1nd_policy::sanitize::escape::{Layout, is_unseen};
use serde_json::ser::{Formatter, PrettyFormatter};
use serde_json::{Map, Value};

/// The file's name in a gateway policy directory.
pub const DEFINITIONS_FILE: &str = "definitions.json";

/// The key of the tools' array in the file's object form.
const TOOLS: &str = "tools";

/// The reviewed definitions of one policy directory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reviewed {
    /// Each tool definition as the upstream listed it, in the file's order.
    pub definitions: Vec<Value>,
    /// Each prompt, resource and template definition, kind by kind.
    pub surfaces: Listed,
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
        "{} is not a JSON array of tool definitions, nor an object of such arrays ({problem}): restore it from the reviewed revision, or \
         delete it and run `{}` to store the definitions again",
        .path.display(),
        crate::invocation::m1nd("policy import --update --apply")
    )]
    Malformed { path: PathBuf, problem: Shape },
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

/// Why `definitions.json` is not the shape the gateway reads.
#[derive(Debug, thiserror::Error)]
pub enum Shape {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error("the top level is neither an array nor an object")]
    TopLevel,
    #[error("the object has no `{TOOLS}` array")]
    NoTools,
    /// A table's key whose value is not an array.
    #[error("`{0}` is not an array")]
    NotArray(String),
    /// A key that names no table (shown printable).
    #[error("`{0}` is not one of `{TOOLS}`, {tables}", tables = Kind::ALL.map(|k| format!("`{}`", k.table())).join(", "))]
    UnknownKey(String),
    /// The 1-based entry of a table (or of the top-level array) that is not an object.
    #[error("entry {entry} {}is not an object", .array.as_ref().map(|a| format!("of `{a}` ")).unwrap_or_default())]
    NotObject { entry: usize, array: Option<String> },
}

impl Reviewed {
    /// The file in `dir`, `None` if the policy keeps no reviewed definitions.
    pub fn read(dir: &Path) -> Result<Option<Self>, ReviewedError> {
        Ok(Self::read_with_text(dir)?.map(|(_, reviewed)| reviewed))
    }

    /// The file in `dir` and its text (for reports that point into it),
    /// `None` if the policy keeps no reviewed definitions.
    pub fn read_with_text(dir: &Path) -> Result<Option<(String, Self)>, ReviewedError> {
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
        match Self::parse(&text) {
            Ok(reviewed) => Ok(Some((text, reviewed))),
            Err(problem) => Err(ReviewedError::Malformed { path, problem }),
        }
    }

    /// The file's text: an array of tool definitions, or an object whose
    /// keys are `tools` and the kinds' tables, each an array of objects.
    pub fn parse(text: &str) -> Result<Self, Shape> {
        match serde_json::from_str::<Value>(text)? {
            Value::Array(definitions) => Ok(Self { definitions: objects(definitions, None)?, ..Self::default() }),
            Value::Object(mut object) => {
                if !object.contains_key(TOOLS) {
                    return Err(Shape::NoTools);
                }
                let mut take = |key: &str| match object.remove(key) {
                    None => Ok(Vec::new()),
                    Some(Value::Array(items)) => objects(items, Some(key)),
                    Some(_) => Err(Shape::NotArray(key.to_owned())),
                };
                let mut reviewed = Self { definitions: take(TOOLS)?, ..Self::default() };
                for kind in Kind::ALL {
                    *reviewed.surfaces.of_mut(kind) = take(kind.table())?;
                }
                match object.keys().next() {
                    Some(other) => Err(Shape::UnknownKey(printable(other))),
                    None => Ok(reviewed),
                }
            }
            _ => Err(Shape::TopLevel),
        }
    }

    /// The tool definition whose digest is `pin`, if the file holds it.
    pub fn pinned(&self, pin: &str) -> Option<&Value> {
        self.definitions.iter().find(|d| digest(d) == pin)
    }

    /// The `kind` definition whose digest is `pin`, if the file holds it.
    pub fn pinned_surface(&self, kind: Kind, pin: &str) -> Option<&Value> {
        self.surfaces.of(kind).iter().find(|d| digest(d) == pin)
    }

    /// Each entry that is not the definition its verb pins, as a message
    /// naming the entry (1-based) and the verb's table in tools.toml. A
    /// stale entry ([`Self::stale`]) is not one.
    pub fn mismatches(&self, gateway: &Gateway) -> Vec<String> {
        self.findings(gateway).problems
    }

    /// Each entry whose verb (prompt, resource, template) tools.toml no
    /// longer declares, named as a reviewer reads it: `` `write_file` ``,
    /// `` prompt `forecast` ``. Declaring less only tightens, so these are
    /// ignored (the gateway never reads the file) and `--update --apply`
    /// drops them.
    pub fn stale(&self, gateway: &Gateway) -> Vec<String> {
        self.findings(gateway).stale
    }

    /// The mismatches and the stale entries, in one pass over the file.
    fn findings(&self, gateway: &Gateway) -> Findings {
        let mut found = Findings::default();
        let problems = &mut found.problems;
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
                None => found.stale.push(format!("`{shown}`")),
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
        for kind in Kind::ALL {
            surface_mismatches(kind, self.surfaces.of(kind), gateway, &mut found);
        }
        found
    }

    /// Check the file in `dir` against `gateway`'s pins: `policy check`'s
    /// and `--update`'s one way to read it. Stale entries pass; the caller
    /// says so with [`Self::stale_note`].
    pub fn checked(dir: &Path, gateway: &Gateway) -> Result<Option<Self>, ReviewedError> {
        let Some(reviewed) = Self::read(dir)? else { return Ok(None) };
        let problems = reviewed.mismatches(gateway);
        if problems.is_empty() {
            Ok(Some(reviewed))
        } else {
            Err(ReviewedError::Mismatch { path: dir.join(DEFINITIONS_FILE), problems })
        }
    }

    /// The note `policy check` and `--update` print when the file in `dir`
    /// holds stale entries, `None` when it holds none.
    pub fn stale_note(&self, dir: &str, gateway: &Gateway) -> Option<String> {
        let stale = self.stale(gateway);
        if stale.is_empty() {
            return None;
        }
        Some(format!(
            "{dir}/{DEFINITIONS_FILE} still holds the reviewed definition of {}, which tools.toml no longer \
             declares: the entry is stale and ignored (a declaration removed only tightens the policy). `{}` \
             drops it from the file.",
            stale.join(", "),
            crate::invocation::m1nd(&format!(
                "policy import --update --apply --policy {}",
                crate::invocation::shell_word(dir)
            ))
        ))
    }

    /// The file's text: pretty JSON, one key per line, so a changed
    /// description or schema is a readable line diff in a pull request.
    /// Tools alone are a plain array, as before prompts and resources were
    /// kept.
    pub fn render(&self) -> String {
        let value = if self.surfaces.is_empty() {
            Value::Array(self.definitions.clone())
        } else {
            let mut object = Map::new();
            object.insert(TOOLS.to_owned(), Value::Array(self.definitions.clone()));
            for kind in Kind::ALL {
                object.insert(kind.table().to_owned(), Value::Array(self.surfaces.of(kind).to_vec()));
            }
            Value::Object(object)
        };
        let mut out = Vec::new();
        let mut writer = serde_json::Serializer::with_formatter(&mut out, Visible(PrettyFormatter::new()));
        let mut text = match serde::Serialize::serialize(&value, &mut writer) {
            Ok(()) => String::from_utf8(out).unwrap_or_else(|_| "[]".to_owned()),
            Err(_) => "[]".to_owned(),
        };
        text.push('\n');
        text
    }
}

/// serde_json's pretty layout, with every character a reader would not see
/// written as a JSON `\uXXXX` escape (a pair for one past U+FFFF): the same
/// string once parsed, so the digests hold, and a reviewer reading the file
/// in a pull request sees `\u200b` where the upstream hid a zero-width space.
/// (serde_json escapes the C0 controls itself.)
struct Visible(PrettyFormatter<'static>);

impl Formatter for Visible {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some((at, c)) = rest.char_indices().find(|(_, c)| is_unseen(*c, Layout::Escape)) {
            writer.write_all(&rest.as_bytes()[..at])?;
            for unit in c.encode_utf16(&mut [0; 2]) {
                write!(writer, "\\u{unit:04x}")?;
            }
            rest = &rest[at + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// What checking the file against the pins found.
#[derive(Default)]
struct Findings {
    /// Entries that are not the definition their entry pins.
    problems: Vec<String>,
    /// Entries nothing in tools.toml declares any more.
    stale: Vec<String>,
}

/// `items` if every one is an object; else which entry (1-based) of which
/// array is not.
fn objects(items: Vec<Value>, array: Option<&str>) -> Result<Vec<Value>, Shape> {
    match items.iter().position(|d| !d.is_object()) {
        Some(i) => Err(Shape::NotObject { entry: i + 1, array: array.map(str::to_owned) }),
        None => Ok(items),
    }
}

/// Each stored `kind` definition that is not the one its table in
/// tools.toml pins, as a message naming the entry and the table.
fn surface_mismatches(kind: Kind, stored: &[Value], gateway: &Gateway, found: &mut Findings) {
    let problems = &mut found.problems;
    let declared = kind.declared(gateway);
    let (table, noun, key) = (kind.table(), kind.noun(), kind.key());
    let mut seen: Vec<&str> = Vec::new();
    for (i, definition) in stored.iter().enumerate() {
        let n = format!("entry {} of `{table}`", i + 1);
        let Some(name) = definition.get(key).and_then(Value::as_str) else {
            problems.push(format!("{n} has no `{key}`"));
            continue;
        };
        let shown = printable(name);
        if seen.contains(&name) {
            problems.push(format!("{n} (`{shown}`) is a second definition of the {noun} `{shown}`"));
            continue;
        }
        seen.push(name);
        let entry = format!("`[{table}.{}]` of {}", toml_key(&shown), PolicyFile::Tools.file_name());
        let stored = digest(definition);
        match declared.iter().find(|s| s.key == name).map(|s| s.definition.as_deref()) {
            None => found.stale.push(format!("{noun} `{shown}`")),
            Some(None) => problems.push(format!("{n} (`{shown}`) is stored, but {entry} pins no definition")),
            Some(Some(pin)) if pin != stored => problems.push(format!(
                "{n} (`{shown}`) has the digest {stored}, but {entry} pins {pin}: it is not the reviewed definition"
            )),
            Some(Some(_)) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use m1nd_policy::sanitize::escape::has_unseen;
    use serde_json::json;

    #[test]
    fn the_file_shows_every_hidden_character_and_reads_back_the_same_definitions() {
        let hidden = json!({"name": "echo", "description": "Echo text.\u{E0049}\u{200B}\u{202E}\u{1B}\u{85}\nok\té",
            "inputSchema": {"type": "object", "properties": {"k\u{FEFF}": {"type": "string"}}}});
        let reviewed = Reviewed { definitions: vec![hidden.clone()], ..Reviewed::default() };
        let text = reviewed.render();
        assert!(!has_unseen(&text, Layout::Keep), "{text}");
        assert!(text.contains(r#""Echo text.\udb40\udc49\u200b\u202e\u001b\u0085\nok\té""#), "{text}");
        assert!(text.contains(r#""k\ufeff": {"#), "{text}");
        let read = Reviewed::parse(&text).expect("the file parses");
        assert_eq!(read.definitions, std::slice::from_ref(&hidden));
        assert_eq!(digest(&read.definitions[0]), digest(&hidden), "the pin still matches");
    }
}
