//! What an upstream MCP server sends back through the gateway: its tool list
//! (`m1nd_policy::gateway::View::new`) and the calls checked against it
//! (`gateway::check`, with the pins of `gateway/pins.rs` and `paths.rs`).
//!
//! The input is JSON:
//!
//! ```json
//! {"policy": 1, "read_only": true,
//!  "tools": [{"name": "read_file", "description": "…", "inputSchema": {…}}],
//!  "calls": [{"name": "read_file", "arguments": {"path": "/…"}}]}
//! ```
//!
//! `policy` picks one of [`crate::tables::gateways`]; `tools` is the
//! upstream's `tools/list`; in a path, `{root}` stands for the scratch
//! directory the fuzz policy pins, so a corpus works on any machine.
//!
//! The view offers only what the policy declares and the session may call,
//! under the policy's name and (unless a person reviewed the definition)
//! summary, with the upstream's annotations made no less cautious (a verb
//! that may write is never `readOnlyHint: true`, no other hint changes), with a pinned definition only at its reviewed digest.
//! A call is forwarded only if the guard allows its verb and the view offers
//! it; then a read-only session's status-only value is byte for byte an
//! allowed one, and it carries only arguments the verb declares, every one it
//! requires, every value as sent but the pinned paths, and every pinned value
//! satisfies its pin (a path: no symlink on the way, and one hard link unless
//! the pin allows more), checked here against the file system. Every refusal is display-safe.

use std::collections::HashSet;
use std::path::{Component, Path};

use m1nd_policy::Refusal;
use m1nd_policy::gateway::annotations::{HINTS, READ_ONLY};
use m1nd_policy::gateway::{Forward, Gateway, PinRule, View, check as gateway_check, digest};
use m1nd_policy::guard::{Guard, Refused};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::tables::{gateways, scratch};

#[derive(Deserialize, Default)]
#[serde(default)]
struct Upstream {
    policy: usize,
    read_only: bool,
    tools: Vec<Value>,
    calls: Vec<Call>,
}

#[derive(Deserialize)]
struct Call {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
}

/// The most calls checked for one input.
const MOST_CALLS: usize = 16;

pub fn check(data: &[u8]) {
    let root = scratch();
    let text = String::from_utf8_lossy(data).replace("{root}", root.to_str().unwrap_or_default());
    let Ok(upstream) = serde_json::from_str::<Upstream>(&text) else { return };
    let gateways = gateways();
    let gateway = &gateways[upstream.policy % gateways.len()];
    let guard = Guard::for_gateway(gateway, upstream.read_only);
    let view = View::new(gateway, &guard, &upstream.tools);
    judge_view(gateway, &guard, &view, &upstream.tools);

    for call in upstream.calls.iter().take(MOST_CALLS) {
        let arguments = call.arguments.as_ref().and_then(Value::as_object);
        match gateway_check(gateway, &guard, &view, &call.name, arguments) {
            Ok(forward) => judge_forward(gateway, &guard, &view, call, arguments, &forward),
            Err(refused) => {
                let message = refused.to_string();
                assert!(crate::is_display_safe(&message), "refusal {message:?}");
            }
        }
    }
}

/// The offered tools against the policy, and every hidden one accounted for.
fn judge_view(gateway: &Gateway, guard: &Guard<'_>, view: &View, listed: &[Value]) {
    let mut verbs = HashSet::new();
    for offered in view.offered() {
        assert!(verbs.insert(&offered.verb), "`{}` is offered twice", offered.verb);
        let def = gateway.policy.verb(&offered.verb).expect("an offered verb is declared");
        assert!(guard.shows(def), "`{}` is offered to a session that may not see it", offered.verb);
        match guard.check(&offered.verb, None) {
            Ok(_) | Err(Refused::ReadOnly(Refusal::StatusOnly { .. })) => {}
            Err(refused) => panic!("`{}` is offered but the guard refuses it: {refused}", offered.verb),
        }
        assert_eq!(offered.tool["name"], Value::from(&*offered.verb), "the served name is the policy's");
        let sources: Vec<&Value> =
            listed.iter().filter(|d| d.get("name").and_then(Value::as_str) == Some(&offered.upstream)).collect();
        assert!(!sources.is_empty(), "`{}` comes from no listed tool", offered.upstream);
        let pinned = gateway.tool(&offered.verb).and_then(|t| t.definition.as_deref());
        match pinned {
            Some(pin) => {
                assert!(sources.iter().any(|d| digest(d) == pin), "`{}` is not the reviewed one", offered.verb)
            }
            None => assert_eq!(offered.tool["description"], Value::from(&*def.summary), "an unreviewed description"),
        }
        let writes = !gateway.policy.deny.never_writes(&offered.verb);
        let source = sources.iter().find(|d| pinned.is_none_or(|pin| digest(d) == pin)).copied();
        let served = offered.tool.get("annotations").cloned().unwrap_or_else(|| Value::Object(Map::new()));
        judge_annotations(&offered.verb, &served, source, pinned.is_some(), writes);
        if guard.read_only() {
            assert!(!gateway.policy.deny.denies(&offered.verb), "read-only sees denied `{}`", offered.verb);
        }
    }
    assert!(view.offered().len() + view.hidden().len() <= listed.len(), "the view invents tools");
    for hidden in view.hidden() {
        assert!(crate::is_display_safe(&hidden.upstream), "hidden name {:?}", hidden.upstream);
        assert!(crate::is_display_safe(&hidden.to_string()), "why hidden: {hidden}");
    }
}

/// The served annotations are the upstream's, made no less cautious: a verb
/// that may write says `readOnlyHint: false`; every other hint is the
/// upstream's boolean or absent; a key that is not a hint only when pinned.
fn judge_annotations(verb: &str, served: &Value, source: Option<&Value>, pinned: bool, writes: bool) {
    let served = served.as_object().unwrap_or_else(|| panic!("`{verb}`'s annotations are not an object: {served}"));
    let given = source.and_then(|d| d.get("annotations")).and_then(Value::as_object);
    let upstream = |key: &str| given.and_then(|g| g.get(key));
    for (key, value) in served {
        if key == READ_ONLY && writes {
            assert_eq!(value, &Value::Bool(false), "`{verb}` may write and is served readOnlyHint {value}");
        } else {
            assert_eq!(Some(value), upstream(key), "`{verb}`'s `{key}` is not the upstream's");
            assert!(HINTS.contains(&key.as_str()) || pinned, "`{verb}`'s `{key}` is served unreviewed");
            assert!(!HINTS.contains(&key.as_str()) || value.is_boolean(), "`{verb}`'s `{key}` is {value}");
        }
    }
    assert!(!writes || served.contains_key(READ_ONLY), "`{verb}` may write and its readOnlyHint is left out");
    for hint in HINTS.iter().filter(|h| **h != READ_ONLY || !writes) {
        let kept = upstream(hint).filter(|v| v.is_boolean());
        assert_eq!(served.get(*hint), kept, "`{verb}`'s `{hint}` was changed");
    }
}

/// A forwarded call: to an offered verb the guard allows, with declared
/// arguments only, as sent but the pinned paths, each pin satisfied.
fn judge_forward(
    gateway: &Gateway,
    guard: &Guard<'_>,
    view: &View,
    call: &Call,
    sent: Option<&Map<String, Value>>,
    forward: &Forward,
) {
    let allowed =
        guard.check(&call.name, sent).unwrap_or_else(|r| panic!("forwarded `{}` the guard refuses: {r}", call.name));
    assert_eq!(allowed.verb.name, forward.verb, "forwarded another verb than the guard allowed");
    let offered = view.find(allowed.id).unwrap_or_else(|| panic!("forwarded `{}`, which is not offered", forward.verb));
    assert_eq!(offered.verb, forward.verb, "the view offers the guard's verb under its handle");
    assert_eq!(offered.upstream, forward.upstream, "forwarded to another upstream tool");
    let def = gateway.policy.verb(&forward.verb).expect("a forwarded verb is declared");
    assert!(!def.retired && !gateway.policy.human_only.contains(&def.name), "forwarded `{}`", def.name);
    if guard.read_only() {
        assert!(!gateway.policy.deny.denies(&def.name), "read-only forwarded denied `{}`", def.name);
        // What was judged is what is forwarded: a status-only value reaches
        // the upstream only as bytes equal to an allowed value.
        if let Some(rule) = gateway.policy.deny.status_only(&def.name) {
            let value = forward.arguments.get(&*rule.argument).and_then(Value::as_str);
            assert!(
                value.is_some_and(|v| rule.allowed.iter().any(|a| a.as_bytes() == v.as_bytes())),
                "read-only forwarded `{}` with `{}` = {value:?}",
                def.name,
                rule.argument
            );
        }
    }

    let takes: Vec<&str> = gateway.policy.takes(def).map(|t| t.name).collect();
    let mut sent_keys: Vec<&String> = sent.into_iter().flat_map(|s| s.keys()).collect();
    let mut forwarded_keys: Vec<&String> = forward.arguments.keys().collect();
    sent_keys.sort();
    forwarded_keys.sort();
    assert_eq!(forwarded_keys, sent_keys, "forwarded other arguments than sent");
    for required in def.requires.iter() {
        let value = forward.arguments.get(&**required);
        assert!(value.is_some_and(|v| !v.is_null()), "forwarded `{}` without its required `{required}`", def.name);
    }
    let pins = gateway.tool(&forward.verb).map(|t| &t.pins[..]).unwrap_or_default();
    for (key, value) in &forward.arguments {
        assert!(takes.contains(&key.as_str()), "forwarded `{key}`, which `{}` does not declare", def.name);
        let pinned_path = pins.iter().any(|p| p.argument == *key && matches!(p.rule, PinRule::Under { .. }));
        if !pinned_path {
            assert_eq!(Some(value), sent.and_then(|s| s.get(key)), "`{key}` changed on the way");
        }
    }
    for pin in pins {
        let value =
            forward.arguments.get(&*pin.argument).unwrap_or_else(|| panic!("pinned `{}` missing", pin.argument));
        match &pin.rule {
            PinRule::Allowed(allowed) => {
                assert!(value.as_str().is_some_and(|v| allowed.iter().any(|a| a == v)), "`{}` = {value}", pin.argument)
            }
            PinRule::Under { dirs, hard_links } => {
                let paths: Vec<&Value> = match value {
                    Value::Array(items) => items.iter().collect(),
                    one => vec![one],
                };
                assert!(!paths.is_empty(), "`{}` forwarded no path", pin.argument);
                for path in paths {
                    let path = path.as_str().unwrap_or_else(|| panic!("`{}` forwarded {path}", pin.argument));
                    assert_confined(path, dirs, *hard_links);
                }
            }
        }
    }
}

/// `path` is absolute, canonical (no `.` or `..`, no symlink on the way,
/// as the file system resolves it now), and lies in one of `dirs`.
fn assert_confined(path: &str, dirs: &[impl AsRef<str>], hard_links: bool) {
    let p = Path::new(path);
    assert!(p.is_absolute(), "forwarded relative {path:?}");
    assert!(p.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_))), "{path:?} is not normal");
    let mut prefix = std::path::PathBuf::new();
    for component in p.components() {
        prefix.push(component);
        if let Ok(meta) = std::fs::symlink_metadata(&prefix) {
            assert!(!meta.file_type().is_symlink(), "{path:?} passes through the symlink {prefix:?}");
        }
    }
    let inside = dirs.iter().filter_map(|d| std::fs::canonicalize(d.as_ref()).ok()).any(|dir| p.starts_with(dir));
    assert!(inside, "{path:?} lies in none of the pinned directories");
    if let Ok(meta) = std::fs::symlink_metadata(p)
        && !meta.is_dir()
        && !hard_links
    {
        use std::os::unix::fs::MetadataExt;
        assert_eq!(meta.nlink(), 1, "{path:?} has several hard links and the pin does not allow them");
    }
}
