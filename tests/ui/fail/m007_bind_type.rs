//! M007: an item action binds an argument that is not `text` to a free-text item field.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m007_bind_type");

fn main() {
    let _ = &COCKPIT;
}
