//! M007: upstream's continuity card calls `trail_save` with `title`; its schema requires `label`.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m1nd_1_6_5_trail_save");

fn main() {
    let _ = &COCKPIT;
}
