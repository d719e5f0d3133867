//! The generated `COCKPIT` re-checked at run time, from the table itself.

use std::path::Path;

use m1nd::COCKPIT;
use m1nd_policy::policy::decompile;
use m1nd_policy::{PolicySources, SlotKind, compile};

/// The table is what the compiler makes of policy/ today (so the build
/// script's tracking did its job), and it survives the laws on its own:
/// written back as a policy and compiled, it comes back unchanged.
#[test]
fn the_generated_table_passes_the_laws_again() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("policy");
    let from_disk = compile(&PolicySources::read_dir(&dir, "policy")).unwrap_or_else(|p| panic!("{p:?}"));
    assert_eq!(COCKPIT, from_disk);
    let sources = decompile(&COCKPIT, "generated");
    match compile(&sources) {
        Ok(again) => assert_eq!(again, COCKPIT),
        Err(problems) => panic!("{}", problems.iter().map(|d| d.render(&sources)).collect::<Vec<_>>().join("\n")),
    }
}

/// `menu verbs ∩ READ_ONLY_DENIED_TOOLS = ∅`, computed from the table alone,
/// with the status-only verbs held to their pinned argument.
#[test]
fn the_menu_and_the_deny_list_share_no_verb() {
    let mut verbs: Vec<(&str, &str)> = COCKPIT.reads().map(|r| (r.card(), r.verb())).collect();
    for slot in COCKPIT.slots.iter() {
        if let SlotKind::Help { cards } = &slot.kind {
            verbs.extend(cards.iter().map(|c| (&*c.card, &*c.tool)));
        }
    }
    assert!(verbs.len() > 10, "the menu reads through {} verbs", verbs.len());
    for (card, verb) in verbs {
        assert!(!COCKPIT.deny.denies(verb), "card `{card}` reaches denied `{verb}`");
        if let Some(rule) = COCKPIT.deny.status_only(verb) {
            let card = COCKPIT.cards.iter().find(|c| c.id == card).expect("card exists");
            let pinned = card.arguments.iter().find(|a| a.name == rule.argument).map(|a| &*a.value);
            assert!(pinned.is_some_and(|v| rule.permits(v)), "card `{}` calls status-only `{verb}` unpinned", card.id);
        }
    }
}

/// The real deny list is upstream's 29 verbs and the tray's stamp, and the
/// retired and human-only verbs are on it.
#[test]
fn the_deny_list_is_complete() {
    // Upstream's 29, the tray's stamp, and the 57 only the catalog's effects name (M021).
    assert_eq!(COCKPIT.deny.tools.len(), 87);
    for verb in COCKPIT.verbs.iter().filter(|v| v.retired) {
        assert!(COCKPIT.deny.denies(&verb.name), "retired `{}` must stay denied", verb.name);
    }
    for verb in COCKPIT.human_only.verbs.iter() {
        assert!(COCKPIT.deny.denies(verb), "human-only `{verb}` must be denied");
        assert!(!COCKPIT.reads().any(|r| r.verb() == &**verb), "the menu reaches human-only `{verb}`");
    }
}
