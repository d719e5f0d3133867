//! M001: argument types no value can satisfy (a constraint the kind cannot carry, crossed bounds, a pattern that does not compile, a default outside its enum, an unknown kind), and argument sets that are not a choice.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_type_constraints");

fn main() {
    let _ = &COCKPIT;
}
