//! M003: a verb both denied outright and status-only.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m003_status_only_and_denied");

fn main() {
    let _ = &COCKPIT;
}
