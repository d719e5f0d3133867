//! M008: actions at the root, and a level below the item.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m008_depth");

fn main() {
    let _ = &COCKPIT;
}
