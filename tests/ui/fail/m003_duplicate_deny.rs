//! M003: the deny list names a verb twice (aliases fold).

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m003_duplicate_deny");

fn main() {
    let _ = &COCKPIT;
}
