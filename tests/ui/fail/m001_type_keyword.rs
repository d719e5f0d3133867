//! M001: a JSON Schema keyword the policy language has no word for (`anyOf`).

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_type_keyword");

fn main() {
    let _ = &COCKPIT;
}
