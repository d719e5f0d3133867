//! `cockpit!` passed straight as a function argument, by value and by reference.

fn digest_of(cockpit: &m1nd_policy::Cockpit) -> String {
    m1nd_policy::policy::digest(cockpit)
}

fn owned_digest(cockpit: m1nd_policy::Cockpit) -> String {
    cockpit.digest.into_owned()
}

fn main() {
    let by_reference = digest_of(&m1nd_macros::cockpit!("policy"));
    let by_value = owned_digest(m1nd_macros::cockpit!("policy"));
    assert_eq!(by_reference, by_value);
}
