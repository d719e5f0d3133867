//! `cockpit!` as the value of a `let` inside a function: the table's slices
//! still live for `'static`, so this is not E0716.

fn main() {
    let cockpit = m1nd_macros::cockpit!("policy");
    assert_eq!(cockpit.digest, m1nd_policy::policy::digest(&cockpit));
    assert!(!cockpit.verbs.is_empty());
}
