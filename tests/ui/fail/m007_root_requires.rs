//! M007: a root entry reads a verb that requires arguments.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m007_root_requires");

fn main() {
    let _ = &COCKPIT;
}
