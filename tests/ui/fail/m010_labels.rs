//! M010: a missing and a misspelt condition, and a placeholder that is not a number of the facet.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m010_labels");

fn main() {
    let _ = &COCKPIT;
}
