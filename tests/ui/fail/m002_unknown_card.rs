//! M002: a slot names a card help_cards.toml lacks.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m002_unknown_card");

fn main() {
    let _ = &COCKPIT;
}
