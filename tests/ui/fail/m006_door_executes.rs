//! M006: doors that carry a card, a tool and actions.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m006_door_executes");

fn main() {
    let _ = &COCKPIT;
}
