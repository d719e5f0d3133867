//! M001: cockpit.toml is a symlink to /dev/zero, a device that never ends:
//! it is refused before anything is read from it.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_device");

fn main() {
    let _ = &COCKPIT;
}
