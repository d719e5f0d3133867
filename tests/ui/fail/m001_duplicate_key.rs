//! M001: a key given twice in one table.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_duplicate_key");

fn main() {
    let _ = &COCKPIT;
}
