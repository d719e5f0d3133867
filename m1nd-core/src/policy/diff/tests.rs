//! Each category, produced by one edit of the real policy's compiled table.

use std::borrow::Cow;
use std::path::Path;

use super::*;
use crate::table::{Argument, Str};
use crate::{PolicyFile, PolicySources, compile};

fn real() -> Cockpit {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy");
    let sources = PolicySources::read_dir(&dir, "policy");
    compile(&sources).unwrap_or_else(|p| panic!("{}", p.iter().map(|d| d.render(&sources)).collect::<String>()))
}

fn owned(s: &str) -> Str {
    Cow::Owned(s.to_owned())
}

/// The table with its digest recomputed, as a compiled policy would carry it.
fn sealed(mut c: Cockpit) -> Cockpit {
    c.digest = owned(&crate::policy::digest(&c));
    c
}

fn subjects(d: &PolicyDiff, category: Category) -> Vec<String> {
    d.of(category).map(|c| c.subject.clone()).collect()
}

/// A denied verb that is live (not retired) in the real policy.
fn live_denied(c: &Cockpit) -> String {
    c.deny.tools.iter().find(|t| c.verb(t).is_some_and(|v| !v.retired)).expect("a live denied verb").to_string()
}

#[test]
fn the_same_policy_has_no_changes() {
    let c = real();
    let d = diff(&c, &c);
    assert!(d.changes.is_empty(), "{:?}", d.changes);
    assert!(d.is_empty());
    let [before, after] = d.bound.as_ref().expect("a cockpit diff has a bound");
    assert_eq!(before, after);
}

#[test]
fn a_verb_leaving_the_deny_list_is_loosened_and_first() {
    let old = real();
    let verb = live_denied(&old);
    let mut new = old.clone();
    new.deny.tools.to_mut().retain(|t| *t != verb);
    new.verbs.to_mut().push(Verb {
        name: owned("zz_new_read"),
        summary: owned("a new verb"),
        requires: Cow::Borrowed(&[]),
        accepts: Cow::Borrowed(&[]),
        arguments: Cow::Borrowed(&[]),
        common: true,
        one_of: Cow::Borrowed(&[]),
        retired: false,
    });
    let new = sealed(new);
    let d = diff(&old, &new);
    assert_eq!(subjects(&d, Category::Loosened), [verb.as_str()]);
    assert_eq!(d.changes[0].category, Category::Loosened, "loosened comes first: {:?}", d.changes);
    assert!(d.changes[0].detail.contains("left read_only_denied.toml"), "{}", d.changes[0].detail);
    assert_eq!(subjects(&d, Category::Verbs), ["zz_new_read"]);
    assert!(d.of(Category::Verbs).next().unwrap().detail.contains("callable by read-only sessions"));
    assert_ne!(d.digest[0], d.digest[1]);
    // The reverse is a tightening, and the added verb a removal.
    let back = diff(&new, &old);
    assert_eq!(subjects(&back, Category::Tightened), [verb]);
    assert!(back.of(Category::Loosened).next().is_none());
    assert!(back.of(Category::Verbs).next().unwrap().detail.starts_with("removed"));
}

#[test]
fn status_only_changes_are_graded() {
    let old = real();
    let rule = old.deny.status_only.first().expect("the real policy has a status-only rule").clone();
    let verb = rule.verb.to_string();

    let mut wider = old.clone();
    wider.deny.status_only.to_mut()[0].allowed.to_mut().push(owned("save"));
    let d = diff(&old, &sealed(wider));
    assert_eq!(subjects(&d, Category::Loosened), [verb.as_str()]);
    assert!(d.changes[0].detail.contains("`save`"), "{}", d.changes[0].detail);

    let mut free = old.clone();
    free.deny.status_only.to_mut().remove(0);
    let d = diff(&old, &sealed(free.clone()));
    assert_eq!(subjects(&d, Category::Loosened), [verb.as_str()]);
    assert_eq!(subjects(&diff(&free, &old), Category::Tightened), [verb.as_str()]);

    let mut denied = free;
    denied.deny.tools.to_mut().push(owned(&verb));
    let d = diff(&old, &sealed(denied.clone()));
    assert_eq!(subjects(&d, Category::Tightened), [verb.as_str()]);
    let d = diff(&denied, &old);
    assert_eq!(subjects(&d, Category::Loosened), [verb]);
    assert!(d.changes[0].detail.contains("now status-only"), "{}", d.changes[0].detail);
}

#[test]
fn retiring_and_removing_verbs_are_verb_changes_not_loosening() {
    let old = real();
    let mut new = old.clone();
    let retired = new.verbs.to_mut().iter_mut().find(|v| !v.retired).expect("a live verb");
    retired.retired = true;
    let retired = retired.name.to_string();
    let removed = new.verbs.to_mut().pop().expect("a verb").name.to_string();
    let d = diff(&old, &sealed(new));
    assert!(d.of(Category::Loosened).next().is_none(), "{:?}", d.changes);
    let verbs: Vec<(String, String)> = d.of(Category::Verbs).map(|c| (c.subject.clone(), c.detail.clone())).collect();
    assert!(verbs.iter().any(|(s, d)| *s == retired && d.starts_with("retired")), "{verbs:?}");
    assert!(verbs.iter().any(|(s, d)| *s == removed && d.starts_with("removed")), "{verbs:?}");
}

#[test]
fn menu_changes_name_the_slot_and_what_moved() {
    let old = real();
    let mut new = old.clone();
    let slots = new.slots.to_mut();
    let last = slots.pop().expect("a slot");
    let first = &mut slots[0];
    let condition = first.labels[0].condition.clone();
    first.labels.to_mut()[0].text = owned("relabelled");
    let card = new.cards.to_mut();
    card[0].arguments.to_mut().push(Argument { name: owned("depth"), value: owned("2") });
    let card_id = card[0].id.to_string();
    let d = diff(&old, &sealed(new));
    let menu: Vec<(String, String)> = d.of(Category::Menu).map(|c| (c.subject.clone(), c.detail.clone())).collect();
    let first_n = format!("slot {}", old.slots[0].n);
    assert!(menu.iter().any(|(s, d)| *s == first_n && d.contains(&format!("label `{condition}`"))), "{menu:?}");
    assert!(menu.iter().any(|(s, d)| *s == format!("slot {}", last.n) && d.starts_with("removed")), "{menu:?}");
    assert!(menu.iter().any(|(s, d)| *s == format!("card {card_id}") && d.starts_with("arguments")), "{menu:?}");
}

#[test]
fn the_budget_bound_is_measured_on_both_sides() {
    let old = real();
    let mut new = old.clone();
    let slot = new.slots.to_mut().iter_mut().find(|s| s.collection.is_some()).expect("a collection");
    let n = slot.n;
    slot.collection.as_mut().unwrap().limit += 1;
    let d = diff(&old, &sealed(new));
    assert!(d.of(Category::Menu).any(|c| c.subject == format!("slot {n}") && c.detail.starts_with("collection")));
    let [before, after] = d.bound.as_ref().expect("a cockpit diff has a bound");
    assert_eq!(before.root_budget, old.budget.root_tokens);
    assert!(after.drill_tokens >= before.drill_tokens, "{before:?} → {after:?}");
}

#[test]
fn a_denied_verb_set_free_shows_up_in_the_derived_help_overview() {
    let old = real();
    // `seek` is denied because its action writes (M021): set free, its action
    // is allowed to both modes too, with a reason, as a person would.
    let card = old.cards.iter().find(|c| c.overview && &*c.tool == "seek").expect("a dropped overview card");
    assert!(old.deny.denies(&card.tool));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy");
    let texts: Vec<(PolicyFile, String)> =
        PolicyFile::EVERY.iter().map(|&f| (f, std::fs::read_to_string(dir.join(f.file_name())).unwrap())).collect();
    let line = format!("  \"{}\",\n", card.tool);
    let allowed = "\"query.seek\" = \"its writes are its own cache\"\n";
    let edited = |f: PolicyFile, t: &str| match f {
        PolicyFile::Deny => t.replacen(&line, "", 1),
        PolicyFile::Effects => {
            t.replacen("[mode.read_only.also]\n", &format!("[mode.read_only.also]\n{allowed}"), 1)
                + &format!("\n[mode.menu.also]\n{allowed}")
        }
        _ => t.to_owned(),
    };
    let texts: Vec<(PolicyFile, String)> = texts.iter().map(|(f, t)| (*f, edited(*f, t))).collect();
    let sources =
        PolicySources::from_bytes("policy", |want| texts.iter().find(|(f, _)| *f == want).map(|(_, t)| t.as_bytes()));
    let new =
        compile(&sources).unwrap_or_else(|p| panic!("{}", p.iter().map(|d| d.render(&sources)).collect::<String>()));
    let d = diff(&old, &new);
    // The verb, and both modes that now allow its action by name.
    assert_eq!(subjects(&d, Category::Loosened), [&*card.tool, "mode read_only", "mode menu"]);
    let offered = format!("the help overview now offers card `{}`", card.id);
    assert!(d.of(Category::Menu).any(|c| c.detail == offered), "{:?}", d.changes);
}

#[test]
fn a_verb_leaving_human_only_is_loosened_and_joining_it_tightened() {
    let old = real();
    let verb = old.human_only.verbs.first().expect("the real policy has a human-only verb").to_string();
    let mut new = old.clone();
    new.human_only.verbs.to_mut().retain(|v| *v != verb);
    let new = sealed(new);
    let d = diff(&old, &new);
    assert_eq!(subjects(&d, Category::Loosened), [verb.as_str()]);
    assert!(d.changes[0].detail.contains("left human_only.toml"), "{}", d.changes[0].detail);
    let back = diff(&new, &old);
    assert_eq!(subjects(&back, Category::Tightened), [verb.as_str()]);
    assert!(back.of(Category::Loosened).next().is_none(), "{:?}", back.changes);

    let mut moved = old.clone();
    moved.human_only.acts_at = owned("elsewhere");
    let d = diff(&old, &sealed(moved));
    assert_eq!(subjects(&d, Category::Verbs), ["human-only verbs"]);
}

#[test]
fn a_door_link_change_is_a_menu_change_of_its_slot() {
    let old = real();
    let door = old.slots.iter().find(|s| s.link.is_some()).expect("the real policy has a door with a link");
    let n = door.n;
    let mut new = old.clone();
    new.slots.to_mut().iter_mut().find(|s| s.n == n).unwrap().link = None;
    let d = diff(&old, &sealed(new.clone()));
    let subject = format!("slot {n}");
    assert!(
        d.of(Category::Menu).any(|c| c.subject == subject && c.detail.starts_with("door link removed")),
        "{:?}",
        d.changes
    );
    let back = diff(&sealed(new), &old);
    assert!(
        back.of(Category::Menu).any(|c| c.subject == subject && c.detail.starts_with("door link added")),
        "{:?}",
        back.changes
    );
}

/// The catalog says `query.seek` no longer mutates the graph: `seek` exceeds
/// read-only mode by less, which the laws would let through: loosened.
#[test]
fn an_action_that_does_less_by_the_catalog_is_loosened_and_more_tightened() {
    let old = real();
    let mut new = old.clone();
    let action = new.effects.actions.to_mut().iter_mut().find(|a| a.name == "query.seek").expect("query.seek");
    action.effects.to_mut().retain(|e| e != "GRAPH_MUTATION");
    let new = sealed(new);
    let d = diff(&old, &new);
    let loosened: Vec<&Change> = d.of(Category::Loosened).collect();
    assert!(
        loosened
            .iter()
            .any(|c| c.subject == "seek" && c.detail == "no longer exceeds read_only by GRAPH_MUTATION (`query.seek`)"),
        "{:?}",
        d.changes
    );
    assert!(d.of(Category::Tightened).next().is_none(), "{:?}", d.changes);
    let back = diff(&new, &old);
    assert!(
        back.of(Category::Tightened).any(|c| c.subject == "seek" && c.detail.starts_with("now exceeds read_only by"))
    );
}

#[test]
fn a_mode_that_allows_more_is_loosened_and_a_new_route_is_reported() {
    let old = real();
    let mut new = old.clone();
    let mode = new.effects.modes.to_mut().iter_mut().find(|m| m.name == "menu").expect("the menu's mode");
    mode.floors.to_mut().push(owned("SCOPED_GRANT_A2"));
    let route = new.effects.routes.to_mut().iter_mut().find(|r| r.verb == "doctor").expect("doctor's route");
    route.actions = Cow::Owned(vec![owned("query.seek")]);
    let d = diff(&old, &sealed(new));
    assert!(
        d.of(Category::Loosened)
            .any(|c| c.subject == "mode menu" && c.detail == "now allows the floor SCOPED_GRANT_A2")
    );
    assert!(d.of(Category::Tightened).any(|c| c.subject == "doctor"), "{:?}", d.changes);
    assert!(
        d.of(Category::Verbs).any(|c| c.subject == "doctor" && c.detail == "routes to query.seek (was query.read)")
    );
}
