//! M003: a verb lists again an argument `[common]` gives every verb.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m003_common_again");

fn main() {
    let _ = &COCKPIT;
}
