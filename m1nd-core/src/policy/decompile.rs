//! A compiled table written back as policy files.
//!
//! This is how a table is re-checked with the laws themselves rather than
//! with a second, hand-written list of invariants: decompile it, compile the
//! result, and require the same table back. A generated `COCKPIT` that could
//! not have come from a lawful policy fails that round trip.

use std::fmt::Write;

use super::source::{PolicyFile, PolicySources};
use crate::arguments::{ArgKind, ArgType};
use crate::effects::Effects;
use crate::primitives::Str;
use crate::table::{Cockpit, SlotKind};

/// The table as policy sources, named `display/<file>` in diagnostics.
pub fn decompile(c: &Cockpit, display: &str) -> PolicySources {
    let [effects, routes, catalog] = effect_files(&c.effects);
    let files = [tools(c), deny(c), cards(c), cockpit(c), human_only(c), effects, routes, catalog];
    PolicySources::from_bytes(display, |f| {
        let text = &files[PolicyFile::EVERY.iter().position(|x| *x == f).unwrap_or(0)];
        // An optional file with nothing to declare is left out, as a policy would.
        (!(f.optional() && text.is_empty())).then_some(text.as_bytes())
    })
}

/// effects.toml, routes.toml and catalog.json, or three empty texts for a
/// policy without effects. The catalog holds the actions the table keeps
/// (every one a route reaches), so nothing needs an `[unrouted]` reason;
/// what upstream says beyond effects and floor is not judged, and is written
/// as the plainest value its schema allows.
fn effect_files(x: &Effects) -> [String; 3] {
    if x.modes.is_empty() && x.routes.is_empty() {
        return [String::new(), String::new(), String::new()];
    }
    let names = |items: &[Str]| array(items.iter().map(|s| &**s));
    let mut effects = format!("catalog_digest = {}\n", q(&x.catalog_digest));
    for mode in x.modes.iter() {
        let allowed = array(mode.effects.iter().map(|e| &*e.name));
        let _ = write!(effects, "\n[mode.{}]\neffects = {allowed}\nfloors = {}\n", mode.name, names(&mode.floors));
        let _ = writeln!(effects, "[mode.{}.reasons]", mode.name);
        for reason in mode.effects.iter().filter(|e| !e.reason.is_empty()) {
            let _ = writeln!(effects, "{} = {}", q(&reason.name), q(&reason.reason));
        }
        let _ = writeln!(effects, "[mode.{}.also]", mode.name);
        for also in mode.also.iter() {
            let _ = writeln!(effects, "{} = {}", q(&also.name), q(&also.reason));
        }
    }
    let mut routes = String::from("source = \"decompiled\"\n");
    for route in x.routes.iter() {
        let _ = write!(routes, "\n[routes.{}]\nactions = {}\n", q(&route.verb), names(&route.actions));
        if let Some(absent) = &route.absent {
            let _ = writeln!(routes, "absent = {}", names(absent));
        }
        let mut arguments: Vec<&str> = route.by.iter().map(|v| &*v.argument).collect();
        arguments.dedup();
        for argument in arguments {
            let _ = writeln!(routes, "[routes.{}.by.{}]", q(&route.verb), q(argument));
            for value in route.by.iter().filter(|v| v.argument == argument) {
                let _ = writeln!(routes, "{} = {}", q(&value.value), names(&value.actions));
            }
        }
    }
    let entries: Vec<serde_json::Value> = x
        .actions
        .iter()
        .map(|a| {
            serde_json::json!({
                "action": a.name, "ingresses": ["MCP"], "complete_effects": a.effects,
                "risk_class": "LOW", "authority_floor": a.floor,
            })
        })
        .collect();
    let catalog = serde_json::json!({
        "schema": "m1nd-action-catalog-v1", "catalog_version": "decompiled",
        "entries": entries, "catalog_digest": x.catalog_digest,
    });
    [effects, routes, serde_json::to_string_pretty(&catalog).unwrap_or_default()]
}

fn human_only(c: &Cockpit) -> String {
    if c.human_only.verbs.is_empty() && c.human_only.acts_at.is_empty() {
        return String::new();
    }
    format!("acts_at = {}\nverbs = {}\n", q(&c.human_only.acts_at), array(c.human_only.verbs.iter().map(|s| &**s)))
}

/// A TOML basic string: JSON's escapes are all valid TOML escapes.
fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

fn array<'a>(items: impl Iterator<Item = &'a str>) -> String {
    format!("[{}]", items.map(q).collect::<Vec<_>>().join(", "))
}

fn tools(c: &Cockpit) -> String {
    let (required, accepted): (Vec<&str>, Vec<&str>) =
        c.common.iter().map(|s| &**s).partition(|s| c.common_required.iter().any(|r| r == s));
    let mut out = format!(
        "[common]\naccepts = {}\nrequires = {}\n[arguments]\n",
        array(accepted.into_iter()),
        array(required.into_iter())
    );
    for p in c.arguments.iter() {
        let _ = writeln!(out, "{} = {}", q(&p.name), toml_type(&p.ty));
    }
    for v in c.verbs.iter() {
        let _ = writeln!(out, "[verbs.{}]\nsummary = {}", v.name, q(&v.summary));
        let own = |name: &str| v.arguments.iter().any(|p| p.name == name);
        let _ = writeln!(
            out,
            "requires = {}\naccepts = {}",
            array(v.requires.iter().map(|s| &**s)),
            array(v.accepts.iter().map(|s| &**s).filter(|a| !own(a)))
        );
        if v.retired {
            out.push_str("retired = true\n");
        }
        if !v.common {
            out.push_str("common = false\n");
        }
        if !v.one_of.is_empty() {
            out.push_str("one_of = [\n");
            for set in v.one_of.iter() {
                let arguments: Vec<String> =
                    set.arguments.iter().map(|p| format!("{} = {}", q(&p.name), toml_type(&p.ty))).collect();
                let requires = array(set.requires.iter().map(|s| &**s));
                let _ = writeln!(out, "  {{ requires = {requires}, arguments = {{ {} }} }},", arguments.join(", "));
            }
            out.push_str("]\n");
        }
        if !v.arguments.is_empty() {
            let _ = writeln!(out, "[verbs.{}.arguments]", v.name);
            for p in v.arguments.iter() {
                let _ = writeln!(out, "{} = {}", q(&p.name), toml_type(&p.ty));
            }
        }
    }
    out
}

/// A type as tools.toml writes it: the bare key when plain, else an inline table.
fn toml_type(t: &ArgType) -> String {
    if t.is_plain() {
        return q(t.kind.key());
    }
    let mut keys: Vec<String> = Vec::new();
    if t.one_of.is_empty() || t.kind != ArgKind::Any {
        keys.push(format!("type = {}", q(t.kind.key())));
    }
    if t.nullable {
        keys.push("nullable = true".into());
    }
    if !t.choices.is_empty() {
        keys.push(format!("enum = {}", array(t.choices.iter().map(|s| &**s))));
    }
    if let Some(c) = &t.constant {
        keys.push(format!("const = {}", q(c)));
    }
    if let Some(d) = t.default.as_deref().and_then(|d| serde_json::from_str(d).ok()) {
        keys.push(format!("default = {}", toml_value(&d)));
    }
    for (key, bound) in [("minimum", t.minimum), ("maximum", t.maximum)] {
        if let Some(b) = bound {
            keys.push(format!("{key} = {b}"));
        }
    }
    if let Some(n) = t.min_length {
        keys.push(format!("min_length = {n}"));
    }
    if let Some(p) = &t.pattern {
        keys.push(format!("pattern = {}", q(p)));
    }
    if let Some(item) = t.item() {
        keys.push(format!("items = {}", toml_type(item)));
    }
    for (key, count) in [("min_items", t.min_items), ("max_items", t.max_items)] {
        if let Some(n) = count {
            keys.push(format!("{key} = {n}"));
        }
    }
    if t.unique_items {
        keys.push("unique_items = true".into());
    }
    if !t.properties.is_empty() {
        let members: Vec<String> =
            t.properties.iter().map(|p| format!("{} = {}", q(&p.name), toml_type(&p.ty))).collect();
        keys.push(format!("properties = {{ {} }}", members.join(", ")));
        let required = t.properties.iter().filter(|p| p.required).map(|p| &*p.name);
        let required: Vec<&str> = required.collect();
        if !required.is_empty() {
            keys.push(format!("required = {}", array(required.into_iter())));
        }
    }
    if t.closed {
        keys.push("additional_properties = false".into());
    }
    if !t.one_of.is_empty() {
        let branches: Vec<String> = t.one_of.iter().map(toml_type).collect();
        keys.push(format!("one_of = [{}]", branches.join(", ")));
    }
    format!("{{ {} }}", keys.join(", "))
}

/// A JSON value as a TOML inline value (TOML has no null; no lawful policy
/// holds one).
fn toml_value(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "\"\"".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => q(s),
        Value::Array(items) => format!("[{}]", items.iter().map(toml_value).collect::<Vec<_>>().join(", ")),
        Value::Object(members) => {
            let members: Vec<String> = members.iter().map(|(k, v)| format!("{} = {}", q(k), toml_value(v))).collect();
            format!("{{ {} }}", members.join(", "))
        }
    }
}

/// A card's fixed value as the card wrote it: text for an argument that
/// takes strings, else the TOML of the JSON the table holds.
fn fixed_value(c: &Cockpit, tool: &str, name: &str, value: &str) -> String {
    let ty = c.verb(tool).and_then(|v| c.argument_type(v, name));
    match ty {
        Some(ty) if !ty.is_textual() => serde_json::from_str(value).map_or_else(|_| q(value), |v| toml_value(&v)),
        _ => q(value),
    }
}

fn deny(c: &Cockpit) -> String {
    let mut out = format!("tools = {}\n", array(c.deny.tools.iter().map(|s| &**s)));
    for rule in c.deny.status_only.iter() {
        let _ = writeln!(
            out,
            "[status_only.{}]\nargument = {}\nallowed = {}",
            rule.verb,
            q(&rule.argument),
            array(rule.allowed.iter().map(|s| &**s))
        );
    }
    out
}

/// An inline table of already-written TOML values.
fn inline<'a>(pairs: impl Iterator<Item = (&'a str, String)>) -> String {
    format!("{{ {} }}", pairs.map(|(k, v)| format!("{} = {}", q(k), v)).collect::<Vec<_>>().join(", "))
}

fn cards(c: &Cockpit) -> String {
    let mut out = String::new();
    for card in c.cards.iter() {
        let _ = writeln!(
            out,
            "[[card]]\nid = {}\ntitle = {}\nwhy = {}\ntool = {}",
            q(&card.id),
            q(&card.title),
            q(&card.why),
            q(&card.tool)
        );
        let _ = writeln!(
            out,
            "arguments = {}\noverview = {}",
            inline(card.arguments.iter().map(|a| (&*a.name, fixed_value(c, &card.tool, &a.name, &a.value)))),
            card.overview
        );
        if let (Some(tool), Some(reason)) = (&card.reject_tool, &card.reject_reason) {
            let _ = writeln!(out, "reject_tool = {}\nreject_reason = {}", q(tool), q(reason));
        }
    }
    out
}

fn cockpit(c: &Cockpit) -> String {
    let mut out =
        format!("schema = {}\ntitle = {}\nnegative_default = {}\n", q(&c.schema), q(&c.title), q(&c.negative_default));
    let b = c.budget;
    let _ = writeln!(
        out,
        "[budget]\nroot_tokens = {}\ndrill_tokens = {}\nitem_tokens = {}",
        b.root_tokens, b.drill_tokens, b.item_tokens
    );
    for slot in c.slots.iter() {
        let _ = writeln!(out, "[[slot]]\nn = {}\nkey = {}\npinned = {}", slot.n, q(slot.facet.key()), slot.pinned);
        match &slot.kind {
            SlotKind::Door { text, source } => {
                let _ = writeln!(out, "door = {}", q(text));
                if let Some(source) = source {
                    let _ = writeln!(out, "source = {}", q(source.card()));
                }
                if let Some(link) = &slot.link {
                    let _ = writeln!(out, "link = {}", q(link));
                }
            }
            SlotKind::Read { read } => {
                let _ = writeln!(out, "card = {}", q(read.card()));
            }
            SlotKind::Help { .. } => {}
        }
        let _ = writeln!(out, "label = {}", inline(slot.labels.iter().map(|l| (&*l.condition, q(&l.text)))));
        if let Some(col) = &slot.collection {
            let _ = writeln!(out, "collection = {{ items = {}, limit = {} }}", q(&col.items), col.limit);
            for action in col.actions.iter() {
                let _ = writeln!(
                    out,
                    "[[slot.actions]]\ncard = {}\nbind = {}",
                    q(action.read.card()),
                    inline(action.bind.iter().map(|b| (&*b.argument, q(&b.field))))
                );
            }
        }
    }
    out
}
