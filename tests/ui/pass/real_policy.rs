//! The repository's policy compiles. Its derived help overview has silently
//! dropped the overview card whose verb is deny-listed.

use m1nd_policy::SlotKind;

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("policy");

fn main() {
    let help = COCKPIT
        .slots
        .iter()
        .find_map(|s| match &s.kind {
            SlotKind::Help { cards } => Some(cards),
            _ => None,
        })
        .expect("the policy has a help slot");
    assert!(help.iter().all(|h| !COCKPIT.deny.denies(&h.tool)));
    let dropped = COCKPIT.cards.iter().filter(|c| c.overview && COCKPIT.deny.denies(&c.tool)).count();
    assert!(dropped > 0, "the real policy keeps a deny-listed overview card, and the overview drops it");
    assert_eq!(help.len() + dropped, COCKPIT.cards.iter().filter(|c| c.overview).count());
}
