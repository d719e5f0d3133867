//! When the deny list grows, the derived help collection shrinks by itself:
//! `deny_grows` is `base` with `audit` added to read_only_denied.toml, and
//! nothing else. It still compiles, and its overview has lost exactly that card.

use m1nd_policy::{Cockpit, SlotKind};

static BASE: Cockpit = m1nd_macros::cockpit!("tests/ui/policies/base");
static GROWN: Cockpit = m1nd_macros::cockpit!("tests/ui/policies/deny_grows");

fn overview(cockpit: &Cockpit) -> Vec<&str> {
    cockpit
        .slots
        .iter()
        .find_map(|s| match &s.kind {
            SlotKind::Help { cards } => Some(cards.iter().map(|c| &*c.card).collect()),
            _ => None,
        })
        .expect("a help slot")
}

fn main() {
    let before = overview(&BASE);
    let after = overview(&GROWN);
    assert!(before.contains(&"audit_area"), "{before:?}");
    let expected: Vec<&str> = before.iter().copied().filter(|c| *c != "audit_area").collect();
    assert_eq!(after, expected);
    // ingest was denied from the start, so its card was never offered.
    assert!(!before.contains(&"load_repository"));
    assert_ne!(BASE.digest, GROWN.digest);
}
