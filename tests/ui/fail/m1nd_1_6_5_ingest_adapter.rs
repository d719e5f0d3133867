//! M007: upstream's document card passes `ingest` an `adapter` its schema's enum does not list.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m1nd_1_6_5_ingest_adapter");

fn main() {
    let _ = &COCKPIT;
}
