//! What changed upstream since a gateway policy was reviewed, tool by tool
//! and prompt, resource and template one by one, in words a person can
//! review: the plan `policy import --update` shows and `--apply` writes.
//!
//! 1. **The policy's own view decides.** Which upstream tool is which verb,
//!    and whether its definition changed, is what the gateway itself sees:
//!    [`View`] over the listing, with a read-write guard so that denied tools
//!    are compared too; for prompts, resources and templates,
//!    [`SurfaceView`]. Nothing here matches names a second way.
//! 2. **Readable when it can be.** A changed definition is shown as a line
//!    diff of the reviewed definition (from `definitions.json`, found by the
//!    pin's digest) against the upstream's now ([`super::readable`]). Without a
//!    stored definition only the digests can be compared; the upstream's
//!    definition is then shown whole, with how to get the readable form.
//! 3. **Only changed definitions are pending.** A changed definition hides
//!    and refuses its tool until the pin is updated, so it is what `--apply`
//!    applies and what makes `--update` exit non-zero. A tool (prompt,
//!    resource, template) new upstream is hidden (undeclared) and only
//!    proposed; a declared one the upstream no longer lists is refused as not
//!    offered and only reported: neither changes what a session reaches, and
//!    neither is edited for the user.

use std::fmt::Write as _;

use m1nd_policy::gateway::surfaces::{Kind, Listed, SurfaceView, SurfaceWhy};
use m1nd_policy::gateway::{Gateway, View, Why, digest};
use m1nd_policy::guard::{Guard, printable};
use m1nd_policy::names::spec::toml_key;
use serde_json::Value;

use super::import::verb_block;
use super::import_surfaces;
use super::readable;
use super::reviewed::{DEFINITIONS_FILE, Reviewed};

/// The table of tools.toml an entry is declared under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// `[verbs.*]`: a tool.
    Verbs,
    /// `[prompts.*]`, `[resources.*]` or `[templates.*]`.
    Surface(Kind),
}

impl Table {
    /// The table's name in tools.toml.
    pub fn name(self) -> &'static str {
        match self {
            Table::Verbs => "verbs",
            Table::Surface(kind) => kind.table(),
        }
    }

    /// What the entry is, in words, with its key: `` `get_time` `` for a
    /// tool (the name says it), `` prompt `forecast` `` otherwise.
    fn label(self, key: &str) -> String {
        match self {
            Table::Verbs => format!("`{key}`"),
            Table::Surface(kind) => format!("{} `{key}`", kind.noun()),
        }
    }
}

/// A declared entry whose definition is not the one pinned.
#[derive(Clone, Debug, PartialEq)]
pub struct Changed {
    /// Where tools.toml declares it.
    pub table: Table,
    /// The policy's name for the tool; the prompt's name, the resource's URI
    /// or the template, exactly as tools.toml and the upstream spell it.
    pub key: String,
    /// The digest tools.toml pins.
    pub pinned: String,
    /// The digest of the upstream's definition now.
    pub live: String,
    /// The upstream's definition now.
    pub now: Value,
    /// The reviewed definition, when `definitions.json` holds it.
    pub reviewed: Option<Value>,
    /// Arguments the new tool definition takes that tools.toml does not
    /// declare (none for a prompt, resource or template: their arguments
    /// are not declared).
    pub undeclared: Vec<String>,
}

/// Everything `--update` found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    pub changed: Vec<Changed>,
    /// Upstream tools, prompts, resources and templates the policy does not
    /// declare, as listed, with the table that would declare each.
    pub added: Vec<(Table, Value)>,
    /// Declared entries the upstream no longer lists.
    pub removed: Vec<(Table, String)>,
    /// The reviewed definitions once the changes are applied: for every
    /// pinned verb (prompt, resource, template), in tools.toml's order, the
    /// definition its pin matches, from the listing or the stored file.
    pub store: Reviewed,
    /// Whether the policy has a `definitions.json`.
    pub had_store: bool,
}

impl Plan {
    /// Compare the listed tools and `surfaces` with `gateway`'s pins and the
    /// stored `reviewed` definitions.
    pub fn new(gateway: &Gateway, listed: &[Value], surfaces: &Listed, reviewed: Option<&Reviewed>) -> Self {
        let guard = Guard::new(&gateway.policy, false);
        let view = View::new(gateway, &guard, listed);
        let listed_with = |d: &str| listed.iter().find(|l| digest(l) == d);
        let mut plan = Plan { had_store: reviewed.is_some(), ..Plan::default() };
        let mut seen: Vec<&str> = view.offered().iter().map(|o| o.verb.as_str()).collect();
        for hidden in view.hidden() {
            match &hidden.why {
                Why::Changed { verb, pinned, live } => {
                    let Some(now) = listed_with(live) else { continue };
                    let declared = gateway.policy.verb(verb);
                    let declares =
                        |a: &str| declared.is_some_and(|v| v.requires.iter().chain(v.accepts.iter()).any(|d| d == a));
                    let undeclared = now
                        .get("inputSchema")
                        .and_then(|s| s.get("properties"))
                        .and_then(Value::as_object)
                        .map(|p| p.keys().map(String::as_str).filter(|a| !declares(a)).map(printable).collect())
                        .unwrap_or_default();
                    plan.changed.push(Changed {
                        table: Table::Verbs,
                        key: verb.clone(),
                        pinned: pinned.clone(),
                        live: live.clone(),
                        now: now.clone(),
                        reviewed: reviewed.and_then(|r| r.pinned(pinned)).cloned(),
                        undeclared,
                    });
                    seen.push(verb);
                }
                Why::Ambiguous { verb } | Why::Retired { verb } => seen.push(verb),
                Why::Undeclared => {
                    let named = |l: &&Value| {
                        l.get("name").and_then(Value::as_str).map(printable).as_ref() == Some(&hidden.upstream)
                    };
                    for l in listed.iter().filter(named) {
                        plan.propose(Table::Verbs, l);
                    }
                }
                Why::LookAlike { .. } | Why::Malformed | Why::OutsideSpec { .. } => {}
            }
        }
        plan.removed = gateway
            .policy
            .verbs
            .iter()
            .filter(|v| !v.retired && !seen.contains(&&*v.name))
            .map(|v| (Table::Verbs, v.name.to_string()))
            .collect();
        for tool in gateway.tools.iter() {
            let Some(pin) = tool.definition.as_deref() else { continue };
            let pin = plan.pin_now(Table::Verbs, &tool.verb, pin);
            if let Some(definition) = listed_with(pin).or_else(|| reviewed.and_then(|r| r.pinned(pin))) {
                plan.store.definitions.push(definition.clone());
            }
        }
        plan.surfaces(gateway, surfaces, reviewed);
        plan
    }

    /// The prompts, resources and templates: the same comparison as for
    /// tools, through the gateway's [`SurfaceView`].
    fn surfaces(&mut self, gateway: &Gateway, listed: &Listed, reviewed: Option<&Reviewed>) {
        let view = SurfaceView::new(gateway, listed);
        for hidden in view.hidden() {
            let (kind, table) = (hidden.kind, Table::Surface(hidden.kind));
            let key_of = |item: &Value| item.get(kind.key()).and_then(Value::as_str).map(str::to_owned);
            match &hidden.why {
                SurfaceWhy::Changed { pinned, live } => {
                    let Some(now) = listed.of(kind).iter().find(|l| digest(l) == *live) else { continue };
                    let Some(key) = key_of(now) else { continue };
                    self.changed.push(Changed {
                        table,
                        key,
                        pinned: pinned.clone(),
                        live: live.clone(),
                        now: now.clone(),
                        reviewed: reviewed.and_then(|r| r.pinned_surface(kind, pinned)).cloned(),
                        undeclared: Vec::new(),
                    });
                }
                SurfaceWhy::Undeclared => {
                    let named = |l: &&Value| key_of(l).map(|k| printable(&k)).as_ref() == Some(&hidden.key);
                    for l in listed.of(kind).iter().filter(named) {
                        self.propose(table, l);
                    }
                }
                SurfaceWhy::Ambiguous | SurfaceWhy::Malformed => {}
            }
        }
        for kind in Kind::ALL {
            let listed = listed.of(kind);
            for surface in kind.declared(gateway) {
                let listed_as = |l: &Value| l.get(kind.key()).and_then(Value::as_str) == Some(&*surface.key);
                if !listed.iter().any(listed_as) {
                    self.removed.push((Table::Surface(kind), surface.key.to_string()));
                }
                let Some(pin) = surface.definition.as_deref() else { continue };
                let pin = self.pin_now(Table::Surface(kind), &surface.key, pin);
                let found = listed.iter().find(|l| digest(l) == pin);
                if let Some(definition) = found.or_else(|| reviewed.and_then(|r| r.pinned_surface(kind, pin))) {
                    self.store.surfaces.of_mut(kind).push(definition.clone());
                }
            }
        }
    }

    /// The pin an entry has once the plan is applied.
    fn pin_now<'a>(&'a self, table: Table, key: &str, pin: &'a str) -> &'a str {
        self.changed.iter().find(|c| c.table == table && c.key == key).map_or(pin, |c| c.live.as_str())
    }

    /// Propose `definition`, new upstream, once.
    fn propose(&mut self, table: Table, definition: &Value) {
        if !self.added.iter().any(|(t, d)| *t == table && d == definition) {
            self.added.push((table, definition.clone()));
        }
    }

    /// Whether `--apply` would write anything: a pin to update, or reviewed
    /// definitions to store that the file does not hold yet.
    pub fn applies(&self, reviewed: Option<&Reviewed>) -> bool {
        !self.changed.is_empty() || reviewed.map_or(self.store != Reviewed::default(), |r| *r != self.store)
    }

    /// The report, naming the policy's files under `dir` as the user wrote it.
    pub fn report(&self, dir: &str) -> String {
        let mut out = String::new();
        let tools = format!("{dir}/tools.toml");
        if self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty() {
            let _ = writeln!(out, "{tools}: every pin matches the upstream");
            return out;
        }
        let _ = writeln!(
            out,
            "{tools} against the upstream now: {} changed, {} new upstream, {} no longer listed\n",
            counted(self.changed.len(), "definition"),
            self.added.len(),
            self.removed.len()
        );
        for changed in &self.changed {
            self.changed_section(changed, dir, &mut out);
        }
        for (table, added) in &self.added {
            match table {
                Table::Verbs => added_section(added, &mut out),
                Table::Surface(kind) => added_surface(*kind, added, &mut out),
            }
        }
        for (table, key) in &self.removed {
            let shown = printable(key);
            let deny = match table {
                Table::Verbs => " and its entry in read_only_denied.toml",
                Table::Surface(_) => "",
            };
            let _ = writeln!(
                out,
                "- {}: declared in tools.toml, no longer listed by the upstream; the gateway refuses it as not \
                 offered. If it is gone for good, remove `[{}.{}]`{deny}.\n",
                table.label(&shown),
                table.name(),
                toml_key(&shown)
            );
        }
        if !self.had_store && !self.changed.is_empty() {
            let _ = writeln!(
                out,
                "{dir} keeps no reviewed definitions ({DEFINITIONS_FILE}), so only digests could be compared. \
                 `--apply` stores the definitions it pins, and the next `--update` shows each change as a readable \
                 diff. To see this change readably, run the upstream version you reviewed with `--update --apply` \
                 first (every pin matches, so it only stores the reviewed definitions), then this one with \
                 `--update`."
            );
        }
        out
    }

    fn changed_section(&self, changed: &Changed, dir: &str, out: &mut String) {
        let verb = &printable(&changed.key);
        let _ = writeln!(
            out,
            "~ {}: its definition changed since it was reviewed; hidden and refused until applied",
            changed.table.label(verb)
        );
        let _ = writeln!(out, "    reviewed  {}", changed.pinned);
        let _ = writeln!(out, "    upstream  {}", changed.live);
        match &changed.reviewed {
            Some(reviewed) => {
                let was = format!("{verb} (reviewed, {dir}/{DEFINITIONS_FILE})");
                out.push_str(&readable::diff(reviewed, &changed.now, &was, &format!("{verb} (upstream now)")));
            }
            None => {
                let _ = writeln!(
                    out,
                    "  {DEFINITIONS_FILE} holds no definition with the reviewed digest, so only the digests can be \
                     compared. The upstream's definition now:"
                );
                for line in readable::render(&changed.now).lines() {
                    let _ = writeln!(out, "  + {line}");
                }
            }
        }
        if !changed.undeclared.is_empty() {
            let _ = writeln!(
                out,
                "  note: it now takes {}, which `[verbs.{}]` does not declare: the gateway refuses a call that sends \
                 it; add it to `accepts` (or `requires`) if it should be forwarded",
                changed.undeclared.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", "),
                toml_key(verb)
            );
        }
        out.push('\n');
    }
}

/// A new upstream tool: proposed, never declared for the user.
fn added_section(definition: &Value, out: &mut String) {
    let name = definition.get("name").and_then(Value::as_str).unwrap_or_default();
    let _ = writeln!(
        out,
        "+ `{}`: new upstream; tools.toml does not declare it, so the gateway hides and refuses it, and `--apply` \
         leaves it out. To offer it, review its definition and add this to tools.toml, and its name to \
         read_only_denied.toml unless read-only sessions may call it:",
        printable(name)
    );
    for line in verb_block(definition, name).lines() {
        let _ = writeln!(out, "    {}", readable::visible(line));
    }
    let _ = writeln!(out, "  its definition:");
    for line in readable::render(definition).lines() {
        let _ = writeln!(out, "  + {line}");
    }
    out.push('\n');
}

/// A prompt, resource or template new upstream: proposed as `policy import`
/// would declare it, never declared for the user.
fn added_surface(kind: Kind, definition: &Value, out: &mut String) {
    let key = definition.get(kind.key()).and_then(Value::as_str).unwrap_or_default();
    let _ = writeln!(
        out,
        "+ {} `{}`: new upstream; tools.toml does not declare it under `[{}]`, so the gateway hides and refuses it, \
         and `--apply` leaves it out. To offer it, review its definition and add this to tools.toml (every session \
         may then use it, read-only ones included):",
        kind.noun(),
        printable(key),
        kind.table()
    );
    let mut block = String::new();
    import_surfaces::entry(kind, definition, &mut block);
    for line in block.lines().filter(|l| !l.is_empty()) {
        let _ = writeln!(out, "    {}", readable::visible(line));
    }
    let _ = writeln!(out, "  its definition:");
    for line in readable::render(definition).lines() {
        let _ = writeln!(out, "  + {line}");
    }
    out.push('\n');
}

/// `1 definition`, `2 definitions`.
fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}
