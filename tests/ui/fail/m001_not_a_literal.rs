//! M001: the macro takes one string literal.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!(policy);

fn main() {
    let _ = &COCKPIT;
}
