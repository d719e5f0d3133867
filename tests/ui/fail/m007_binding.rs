//! M007: an action leaves a required argument unbound and binds a field the item lacks.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m007_binding");

fn main() {
    let _ = &COCKPIT;
}
