//! M001: every unparsable file is reported, not just the first.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_every_file");

fn main() {
    let _ = &COCKPIT;
}
