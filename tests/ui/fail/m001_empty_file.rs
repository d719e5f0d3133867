//! M001: an empty file.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_empty_file");

fn main() {
    let _ = &COCKPIT;
}
