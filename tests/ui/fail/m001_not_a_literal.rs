//! M001: the macro takes one string literal.

static COCKPIT: m1nd_core::Cockpit = m1nd_macros::cockpit!(policy);

fn main() {
    let _ = &COCKPIT;
}
