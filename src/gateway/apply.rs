//! `m1nd policy import --update --apply`: write a reviewed update into the
//! policy, as an ordinary diff for a pull request.
//!
//! 1. **Only the definition pins move.** tools.toml is edited in place
//!    (toml_edit keeps every comment, blank line and the order of keys): each
//!    changed tool's (prompt's, resource's, template's)
//!    `definition = "blake3:…"` gets the upstream's new digest,
//!    and nothing else in the file is touched. read_only_denied.toml is not
//!    written at all, so the deny list and the mode stay as reviewed, and a
//!    tool new upstream is not declared (see [`super::plan`]).
//! 2. **Checked before written.** The edited policy must compile under the
//!    same laws as `policy check`, and `policy diff` must find nothing
//!    loosened between the reviewed policy and the edited one; otherwise
//!    nothing is written.
//! 3. **The readable side is kept.** `definitions.json` is rewritten with
//!    the definitions the pins now match, so the next `--update` can show a
//!    readable diff and the pull request shows the definition text changing
//!    beside its pin.

use std::path::Path;

use m1nd_policy::gateway::Gateway;
use m1nd_policy::guard::printable;
use m1nd_policy::policy::diff::{Category, diff_gateway};
use m1nd_policy::{PolicyFile, PolicySources, compile_gateway};
use toml_edit::{DocumentMut, Item};

use super::error::{GatewayError, NotApplied};
use super::plan::Plan;
use super::reviewed::DEFINITIONS_FILE;

/// tools.toml's `text` with each `(table, key, digest)` pin set (`table`
/// is `verbs`, `prompts`, `resources` or `templates`), everything else as
/// it was. An entry without a `definition` key is an error: the plan only
/// holds entries that pin one.
pub fn edit_pins<'a>(
    text: &str,
    pins: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>,
) -> Result<String, NotApplied> {
    let mut doc: DocumentMut = text.parse()?;
    for (table, key, digest) in pins {
        let slot = doc
            .get_mut(table)
            .and_then(Item::as_table_like_mut)
            .and_then(|entries| entries.get_mut(key))
            .and_then(Item::as_table_like_mut)
            .and_then(|entry| entry.get_mut("definition"))
            .and_then(Item::as_value_mut)
            .ok_or_else(|| NotApplied::NoPin { table: table.to_owned(), key: printable(key) })?;
        let decor = slot.decor().clone();
        *slot = toml_edit::Value::from(digest);
        *slot.decor_mut() = decor;
    }
    Ok(doc.to_string())
}

/// The two files `--apply` writes, checked: the edited tools.toml compiles
/// with the policy's deny list, and loosens nothing against `reviewed`.
pub fn applied(
    dir_display: &str,
    tools: &str,
    deny: &str,
    reviewed: &Gateway,
    plan: &Plan,
) -> Result<Files, NotApplied> {
    let pins = plan.changed.iter().map(|c| (c.table.name(), c.key.as_str(), c.live.as_str()));
    let tools_toml = edit_pins(tools, pins)?;
    let sources = PolicySources::from_bytes(dir_display, |file| match file {
        PolicyFile::Tools => Some(tools_toml.as_bytes()),
        PolicyFile::Deny => Some(deny.as_bytes()),
        _ => None,
    });
    let edited = compile_gateway(&sources).map_err(|problems| {
        NotApplied::Laws(problems.iter().map(|d| format!("error: {}", d.render(&sources))).collect())
    })?;
    let diff = diff_gateway(reviewed, &edited);
    if let Some(loosened) = diff.of(Category::Loosened).next() {
        return Err(NotApplied::Loosens { subject: loosened.subject.to_string(), detail: loosened.detail.to_string() });
    }
    let definitions = plan.store.render();
    Ok(Files { tools_toml, definitions })
}

/// What `--apply` writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Files {
    pub tools_toml: String,
    pub definitions: String,
}

impl Files {
    /// Write both into `dir`, each through a temporary file renamed over it.
    pub fn write(&self, dir: &Path) -> Result<(), GatewayError> {
        replace(&dir.join(DEFINITIONS_FILE), &self.definitions)?;
        replace(&dir.join(PolicyFile::Tools.file_name()), &self.tools_toml)
    }
}

fn replace(path: &Path, text: &str) -> Result<(), GatewayError> {
    let io = |op, source| GatewayError::Io { op, path: path.to_owned(), source };
    let partial = path.with_extension("partial");
    std::fs::write(&partial, text).map_err(|e| io("write", e))?;
    std::fs::rename(&partial, path).map_err(|e| io("replace", e))
}
