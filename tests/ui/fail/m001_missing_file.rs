//! M001: a policy directory without help_cards.toml.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_missing_file");

fn main() {
    let _ = &COCKPIT;
}
