//! M021: the deny list lags the catalog: `apply` writes source files and is not denied.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m021_deny_lags");

fn main() {
    let _ = &COCKPIT;
}
