//! M001: a TOML syntax error names the file, line and column.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m001_syntax");

fn main() {
    let _ = &COCKPIT;
}
