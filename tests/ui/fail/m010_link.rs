//! M010: a link that is not a static path or loopback URL, and a link on a slot that is not a door.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m010_link");

fn main() {
    let _ = &COCKPIT;
}
