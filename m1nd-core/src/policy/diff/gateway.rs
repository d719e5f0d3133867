//! `m1nd policy diff` on a gateway policy: a reachability plan.
//!
//! Invariant 1: every change that lets a session reach more of the upstream
//! is [`Category::Loosened`], so `--fail-on loosened` catches it as it does
//! for m1nd's own policy. In a gateway, `tools.toml` is the allow-list (an
//! undeclared tool is hidden and refused), so declaring a tool, accepting a
//! new argument, dropping or widening a pin and dropping a `definition` pin
//! all loosen; the deny list and human-only verbs are compared exactly as for
//! m1nd's own policy, by the same functions. The changes land in the same
//! [`PolicyDiff`] and are rendered by the same [`super::render`].

use std::collections::BTreeSet;

use super::{Access, Category, Changes, PolicyDiff, access, cards, human_only, quoted, read_only, slots};
use crate::client_capability::ClientCapability;
use crate::gateway_table::{Gateway, GatewayTool, Pin, PinRule};
use crate::mode::SessionMode;
use crate::policy::gateway_digest;
use crate::table::{Cockpit, Verb};

/// Compare two compiled gateway policies. The digests are
/// [`gateway_digest`]s, so a change to a pin or a `definition` alone is a change.
pub fn diff_gateway(old: &Gateway, new: &Gateway) -> PolicyDiff {
    let mut out = Changes(Vec::new());
    mode(old.mode, new.mode, &mut out);
    client(old, new, &mut out);
    read_only(&old.policy, &new.policy, &mut out);
    human_only(&old.policy, &new.policy, &mut out);
    tools(&old.policy, &new.policy, &mut out);
    for tool in new.tools.iter() {
        if let (Some(was), Some(_)) = (live(old, &tool.verb), live(new, &tool.verb)) {
            pins(was, tool, &mut out);
            definition(was, tool, &mut out);
        }
    }
    super::surfaces::surfaces(&old.surfaces, &new.surfaces, &mut out);
    cards(&old.policy, &new.policy, &mut out);
    slots(&old.policy, &new.policy, &mut out);
    let mut changes = out.0;
    changes.sort_by_key(|c| c.category);
    PolicyDiff { changes, bound: None, digest: [gateway_digest(old), gateway_digest(new)] }
}

/// The policy's session mode: read-write lets every session that does not
/// pass `--read-only` reach the deny list's tools.
fn mode(was: SessionMode, now: SessionMode, out: &mut Changes) {
    match (was, now) {
        (SessionMode::ReadOnly, SessionMode::ReadWrite) => out.push(
            Category::Loosened,
            "mode",
            "`mode` became read-write: a session started without --read-only may now call the deny list's tools",
        ),
        (SessionMode::ReadWrite, SessionMode::ReadOnly) => out.push(
            Category::Tightened,
            "mode",
            "`mode` became read-only: every session is denied the deny list's tools, whatever its command line",
        ),
        _ => {}
    }
}

/// The client capabilities offered upstream: each one added lets the
/// upstream send a request past the gateway to a session's client.
fn client(old: &Gateway, new: &Gateway, out: &mut Changes) {
    for capability in ClientCapability::ALL {
        let subject = format!("client_capabilities: {capability}");
        match (old.offers(capability), new.offers(capability)) {
            (false, true) => out.push(
                Category::Loosened,
                subject,
                format!(
                    "`{capability}` is now offered upstream: the upstream may send `{}` to the client of a session \
                     whose call it is serving, and list the tools that need it",
                    capability.method()
                ),
            ),
            (true, false) => out.push(
                Category::Tightened,
                subject,
                format!(
                    "`{capability}` is no longer offered upstream: the upstream may not send `{}`",
                    capability.method()
                ),
            ),
            _ => {}
        }
    }
}

/// The gateway entry of a verb that is declared and not retired.
fn live<'a>(g: &'a Gateway, verb: &str) -> Option<&'a GatewayTool> {
    g.policy.verb(verb).filter(|v| !v.retired).and_then(|_| g.tool(verb))
}

/// Who may call a newly reachable tool, so a write stands out.
fn who(table: &Cockpit, verb: &str) -> &'static str {
    match access(table, verb) {
        Access::Denied => "a read-write session may now call it; read-only sessions stay denied",
        Access::StatusOnly { .. } => "every session may now call it (read-only sessions status-only)",
        Access::Free | Access::Absent => "every session may now call it, read-only ones too",
    }
}

/// The arguments a verb's calls may carry.
fn arguments(v: &Verb) -> BTreeSet<&str> {
    v.requires.iter().chain(v.accepts.iter()).map(|a| &**a).collect()
}

/// Tools declared, dropped, retired or given other arguments.
fn tools(old: &Cockpit, new: &Cockpit, out: &mut Changes) {
    use Category::{Loosened, Tightened, Verbs};
    let is_live = |table: &Cockpit, name: &str| table.verb(name).is_some_and(|v| !v.retired);
    for v in new.verbs.iter() {
        let name = &*v.name;
        match (is_live(old, name), is_live(new, name)) {
            (false, true) => {
                let was = if old.verb(name).is_some() { "no longer retired" } else { "declared" };
                out.push(Loosened, name, format!("{was}: {}", who(new, name)));
                continue;
            }
            (true, false) => {
                out.push(Tightened, name, "retired: hidden and refused in every session");
                continue;
            }
            (false, false) => continue,
            (true, true) => {}
        }
        let Some(was) = old.verb(name) else { continue };
        let (before, after) = (arguments(was), arguments(v));
        let gained: Vec<String> = after.difference(&before).map(|a| a.to_string()).collect();
        let lost: Vec<String> = before.difference(&after).map(|a| a.to_string()).collect();
        if !gained.is_empty() {
            out.push(Loosened, name, format!("now accepts {}: calls with them are no longer refused", quoted(&gained)));
        }
        if !lost.is_empty() {
            out.push(Tightened, name, format!("no longer accepts {}: calls with them are refused", quoted(&lost)));
        }
        if was.requires != v.requires && gained.is_empty() && lost.is_empty() {
            let list = |v: &Verb| v.requires.join(", ");
            out.push(Verbs, name, format!("requires [{}], was [{}]", list(v), list(was)));
        }
    }
    for v in old.verbs.iter().filter(|v| !v.retired && new.verb(&v.name).is_none()) {
        out.push(Tightened, &*v.name, "no longer declared: hidden and refused in every session");
    }
}

fn pin_of<'a>(tool: &'a GatewayTool, argument: &str) -> Option<&'a Pin> {
    tool.pins.iter().find(|p| p.argument == argument)
}

fn strings(list: &[crate::table::Str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Pins dropped, added, widened or narrowed.
fn pins(was: &GatewayTool, now: &GatewayTool, out: &mut Changes) {
    use Category::{Loosened, Tightened};
    let verb = &*now.verb;
    for pin in now.pins.iter() {
        let argument = &*pin.argument;
        let Some(before) = pin_of(was, argument) else {
            out.push(Tightened, verb, format!("`{argument}` is now pinned ({})", rule(&pin.rule)));
            continue;
        };
        match (&before.rule, &pin.rule) {
            (PinRule::Allowed(a), PinRule::Allowed(b)) => {
                let (a, b) = (strings(a), strings(b));
                let gained: Vec<&String> = b.difference(&a).collect();
                let lost: Vec<&String> = a.difference(&b).collect();
                if !gained.is_empty() {
                    out.push(Loosened, verb, format!("pin on `{argument}` now also allows {}", quoted(gained)));
                }
                if !lost.is_empty() {
                    out.push(Tightened, verb, format!("pin on `{argument}` no longer allows {}", quoted(lost)));
                }
            }
            (PinRule::Under { dirs: a, hard_links: h0 }, PinRule::Under { dirs: b, hard_links: h1 }) => {
                let (a, b) = (strings(a), strings(b));
                // A directory inside one the pin already allowed reaches
                // nothing new: narrowing `/srv` to `/srv/docs` tightens.
                let (inside, gained): (Vec<&String>, Vec<&String>) =
                    b.difference(&a).partition(|dir| a.iter().any(|old| within(dir, old)));
                let lost: Vec<&String> = a.difference(&b).collect();
                if !gained.is_empty() {
                    out.push(
                        Loosened,
                        verb,
                        format!("pin on `{argument}` now also allows paths under {}", quoted(gained)),
                    );
                }
                if !inside.is_empty() {
                    out.push(
                        Tightened,
                        verb,
                        format!(
                            "pin on `{argument}` now allows paths under {}, inside what it allowed before: \
                             nothing new",
                            quoted(inside)
                        ),
                    );
                }
                if !lost.is_empty() {
                    out.push(
                        Tightened,
                        verb,
                        format!("pin on `{argument}` no longer allows paths under {}", quoted(lost)),
                    );
                }
                match (h0, h1) {
                    (false, true) => out.push(
                        Loosened,
                        verb,
                        format!("pin on `{argument}` now lets hard-linked files through (`hard_links = true`)"),
                    ),
                    (true, false) => out.push(
                        Tightened,
                        verb,
                        format!("pin on `{argument}` no longer lets hard-linked files through"),
                    ),
                    _ => {}
                }
            }
            // Another kind of rule admits other values: read it as a loosening.
            (a, b) => out.push(
                Loosened,
                verb,
                format!("pin on `{argument}` is now {}, was {}: other values pass", rule(b), rule(a)),
            ),
        }
    }
    for pin in was.pins.iter().filter(|p| pin_of(now, &p.argument).is_none()) {
        out.push(
            Loosened,
            verb,
            format!("`{}` is no longer pinned (was {}): any value passes", pin.argument, rule(&pin.rule)),
        );
    }
}

/// Whether the directory `dir` lies inside `old` as written, component by
/// component (`/srv/repo-evil` is not inside `/srv/repo`), with no `..` or
/// `.` that could lead out (M014 refuses them; checked again here so the
/// diff never relies on it). Like the rest of this diff it reads the policy,
/// not a machine: the gateway resolves each pinned directory through the
/// file system when it starts, so a symlink at `dir` is the deployment's
/// to rule out.
fn within(dir: &str, old: &str) -> bool {
    use std::path::{Component, Path};
    let plain = |p: &Path| p.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    let (dir, old) = (Path::new(dir), Path::new(old));
    plain(dir) && plain(old) && dir.starts_with(old)
}

/// A pin rule in a few words.
fn rule(rule: &PinRule) -> String {
    match rule {
        PinRule::Allowed(values) => format!("`allowed` = {}", quoted(&strings(values))),
        PinRule::Under { dirs, hard_links } => {
            format!("`under` {}{}", quoted(&strings(dirs)), if *hard_links { ", hard links allowed" } else { "" })
        }
    }
}

/// The reviewed definition digest: dropped (any definition passes), added,
/// or changed (another definition was reviewed).
fn definition(was: &GatewayTool, now: &GatewayTool, out: &mut Changes) {
    use Category::{Loosened, Tightened, Verbs};
    let verb = &*now.verb;
    match (was.definition.as_deref(), now.definition.as_deref()) {
        (Some(a), Some(b)) if a != b => out.push(Verbs, verb, format!("definition changed: {a} → {b}")),
        (Some(a), None) => out.push(
            Loosened,
            verb,
            format!("`definition` no longer pinned (was {a}): whatever the upstream says the tool is, it is served"),
        ),
        (None, Some(b)) => out.push(
            Tightened,
            verb,
            format!("`definition` now pinned to {b}: another definition is hidden and refused"),
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
