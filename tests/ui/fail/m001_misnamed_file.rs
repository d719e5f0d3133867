//! M001: a missing file whose near-miss name is in the directory gets a "did you mean".

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_misnamed_file");

fn main() {
    let _ = &COCKPIT;
}
