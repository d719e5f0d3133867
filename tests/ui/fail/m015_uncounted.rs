//! M015: a label that counts one kind of item opens a list that shows another: ratified blocks
//! counted, candidates listed; and a `waiting` label that counts none of the waiting missions it lists.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m015_uncounted");

fn main() {
    let _ = &COCKPIT;
}
