//! `crate = path` is the path the expansion reaches its runtime through: a
//! path that names nothing is an error there, not silently replaced by the
//! `m1nd-policy` dependency (tests/ui/pass/runtime_path.rs is the working one).

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("policy", crate = crate::nowhere);

fn main() {
    assert_eq!(COCKPIT.digest.len(), 64);
}
