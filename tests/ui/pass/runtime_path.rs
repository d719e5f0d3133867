//! `crate = path` names where the runtime is, for a crate that reaches it
//! through its own re-export rather than a dependency of that name.

mod engine {
    pub use m1nd_policy::*;
}

static COCKPIT: engine::Cockpit = m1nd_macros::cockpit!("policy", crate = crate::engine);

fn main() {
    assert_eq!(COCKPIT.digest.len(), 64);
}
