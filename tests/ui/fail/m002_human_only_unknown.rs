//! M002: human_only.toml names a verb tools.toml does not declare.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m002_human_only_unknown");

fn main() {
    let _ = &COCKPIT;
}
