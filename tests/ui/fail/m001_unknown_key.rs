//! M001: an unknown key gets a "did you mean".

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_unknown_key");

fn main() {
    let _ = &COCKPIT;
}
