//! M013: `acts_at` must be one line saying where the human acts.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m013_acts_at");

fn main() {
    let _ = &COCKPIT;
}
