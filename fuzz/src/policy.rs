//! A policy directory (see [`crate::policy_dir`]) through the TOML loader,
//! the laws and lowering: `m1nd_policy::compile` and `compile_gateway`.
//!
//! A policy that is refused gets diagnostics that render, whose first line
//! is one line naming the law, and one GitHub annotation line each.
//!
//! A policy that compiles never lets a denied verb be reached:
//! 1. from the menu: no read of a slot, an item action or the help overview
//!    calls a denied verb, or a status-only one unpinned (the check of
//!    `tests/table.rs`), and composing every level over a recording reader
//!    asks for no read a read-only session could not make;
//! 2. from the guard: a read-only session is refused every denied verb,
//!    however it is spelt; retired and human-only verbs are refused in every
//!    session;
//! 3. from tools/list (`Guard::shows`): none of those verbs is listed.
//!
//! And its table survives the laws on their own, as `tests/table.rs` checks
//! the generated one: written back as a policy (`decompile`) and compiled, it
//! comes back unchanged. A cockpit policy is a gateway policy too, with the
//! same table.

use std::borrow::Cow;
use std::cell::RefCell;

use m1nd_policy::guard::Guard;
use m1nd_policy::policy::{decompile, report};
use m1nd_policy::runtime::{Item, Path, ReadError, Reader, Reading, Request, cockpit};
use m1nd_policy::{Cockpit, Diagnostic, PolicySources, ReadVerb, SlotKind, compile, compile_gateway};
use serde_json::{Map, Value};

pub fn check(data: &[u8]) {
    let sources = crate::policy_dir::sources(data);
    let as_cockpit = compile(&sources);
    let as_gateway = compile_gateway(&sources);
    for problems in [as_cockpit.as_ref().err(), as_gateway.as_ref().err()].into_iter().flatten() {
        judge_diagnostics(problems, &sources);
    }
    if let Ok(table) = &as_cockpit {
        menu_reaches_no_denied_verb(table);
        guard_refuses_denied_verbs(table);
        survives_the_laws_again(table);
        let gateway = as_gateway.as_ref().unwrap_or_else(|p| panic!("a cockpit policy refused as a gateway: {p:?}"));
        assert_eq!(gateway.policy, *table, "the gateway and the cockpit read one policy differently");
    }
    if let Ok(gateway) = &as_gateway {
        guard_refuses_denied_verbs(&gateway.policy);
        for tool in gateway.tools.iter() {
            let verb = gateway.policy.verb(&tool.verb).expect("a pinned verb is declared");
            for pin in tool.pins.iter() {
                assert!(gateway.policy.takes(verb).any(|t| t.name == pin.argument), "a pin on an argument not taken");
            }
            if let Some(definition) = &tool.definition {
                assert!(m1nd_policy::policy::is_digest(definition), "definition pin {definition:?}");
            }
        }
    }
}

fn judge_diagnostics(problems: &[Diagnostic], sources: &PolicySources) {
    assert!(!problems.is_empty(), "refused without a reason");
    for d in problems {
        let headline = d.headline();
        assert!(headline.starts_with(&format!("[{}] ", d.law.code())), "{headline:?}");
        assert!(!headline.chars().any(crate::unicode::breaks_text), "a headline of more than one line: {headline:?}");
        assert!(d.render(sources).starts_with(&headline), "the rendering does not start with {headline:?}");
    }
    let annotations = report::github(problems, sources);
    assert_eq!(annotations.split('\n').count(), problems.len(), "one annotation line per diagnostic:\n{annotations}");
    let _ = report::sarif(problems, sources);
}

/// Every verb a read-only session may never call: denied, retired, or the human's.
fn never_for_read_only(table: &Cockpit, verb: &str) -> bool {
    table.deny.denies(verb) || table.human_only.contains(verb) || table.verb(verb).is_none_or(|v| v.retired)
}

fn menu_reaches_no_denied_verb(table: &Cockpit) {
    let mut reads: Vec<(&str, &str)> = table.reads().map(|r| (r.card(), r.verb())).collect();
    for slot in table.slots.iter() {
        if let SlotKind::Help { cards } = &slot.kind {
            reads.extend(cards.iter().map(|c| (&*c.card, &*c.tool)));
        }
    }
    for (card, verb) in reads {
        assert!(!never_for_read_only(table, verb), "card `{card}` reaches `{verb}`");
        if let Some(rule) = table.deny.status_only(verb) {
            let card = table.cards.iter().find(|c| c.id == card).expect("a menu card is declared");
            let pinned = card.arguments.iter().find(|a| a.name == rule.argument).map(|a| &*a.value);
            assert!(pinned.is_some_and(|v| rule.permits(v)), "card `{}` calls status-only `{verb}` unpinned", card.id);
        }
    }

    let reader = Recording { table, asked: RefCell::new(0) };
    let root = cockpit(table, &reader, &Request::default()).expect("the root composes");
    for entry in &root.entries {
        let Ok(level) = cockpit(table, &reader, &Request { select: Some(entry.select.clone()), ..Request::default() })
        else {
            continue;
        };
        let Some(first) = level.entries.first() else { continue };
        let item = cockpit(table, &reader, &Request { select: Some(first.select.clone()), ..Request::default() });
        for action in item.iter().flat_map(|v| &v.entries) {
            let _ = cockpit(table, &reader, &Request { select: Some(action.select.clone()), ..Request::default() });
        }
        assert!(matches!(level.level, Path::Collection { .. }), "a root entry opened {}", level.level);
    }
    assert!(*reader.asked.borrow() > 0 || table.reads().next().is_none(), "the composer read nothing");
}

/// A reader that holds every read to the read-only guard, then answers with
/// one item whose every field is `x`.
struct Recording<'a> {
    table: &'a Cockpit,
    asked: RefCell<usize>,
}

impl Reader for Recording<'_> {
    fn read(&self, read: &ReadVerb, bound: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError> {
        *self.asked.borrow_mut() += 1;
        let mut arguments: Map<String, Value> =
            read.arguments().iter().map(|a| (a.name.to_string(), Value::from(&*a.value))).collect();
        arguments.extend(bound.iter().map(|(k, v)| ((*k).to_owned(), Value::from(*v))));
        let verdict = Guard::new(self.table, true).check(read.verb(), Some(&arguments));
        assert!(verdict.is_ok(), "the menu asked for `{}`: {verdict:?}", read.verb());
        let fields = m1nd_policy::Facet::ALL.iter().filter_map(|f| f.items()).flat_map(|i| i.fields.iter());
        let item = Item::new(fields.map(|f| (f.name, "x")));
        Ok(Cow::Owned(Reading::listing([item]).with("count", 1)))
    }

    fn store_version(&self) -> u64 {
        1
    }
}

fn guard_refuses_denied_verbs(table: &Cockpit) {
    let read_only = Guard::new(table, true);
    let writable = Guard::new(table, false);
    for verb in table.verbs.iter() {
        let name = &*verb.name;
        let always = verb.retired || table.human_only.contains(name);
        let spellings = [name.to_owned(), name.to_ascii_uppercase(), format!(" m1nd.{name}\t"), format!("M1ND_{name}")];
        for spelling in &spellings {
            if always {
                assert!(writable.check(spelling, None).is_err(), "`{spelling}` is served in a writable session");
            }
            if always || table.deny.denies(name) {
                let anything: Map<String, Value> =
                    table.takes(verb).map(|t| (t.name.to_string(), Value::from("status"))).collect();
                assert!(read_only.check(spelling, Some(&anything)).is_err(), "read-only reaches `{spelling}`");
            }
        }
        if always || table.deny.denies(name) {
            assert!(!read_only.shows(verb), "read-only tools/list shows `{name}`");
        }
        if always {
            assert!(!writable.shows(verb), "tools/list shows `{name}`");
        }
        if table.deny.status_only(name).is_some() {
            assert!(read_only.check(name, None).is_err(), "read-only reaches status-only `{name}` bare");
        }
    }
}

fn survives_the_laws_again(table: &Cockpit) {
    let sources = decompile(table, "generated");
    match compile(&sources) {
        Ok(again) => assert_eq!(again, *table, "the table changed when written back and compiled"),
        Err(problems) => panic!(
            "the table, written back, breaks the laws:\n{}",
            problems.iter().map(|d| d.render(&sources)).collect::<Vec<_>>().join("\n")
        ),
    }
}
