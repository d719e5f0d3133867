//! M001: a directory where cockpit.toml should be.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_directory");

fn main() {
    let _ = &COCKPIT;
}
