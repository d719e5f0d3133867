//! The trybuild ui suite: every law fails compilation with its blessed
//! message, and the pass cases (including the golden expansion) compile and run.
//!
//! The `.stderr` files record rustc's output, which changes between releases,
//! so the suite runs only on the rustc they were blessed with (see build.rs);
//! on any other rustc it is reported as ignored, never as passed.
//! Bless: `TRYBUILD=overwrite cargo test --test ui`, then read the diff.

#[test]
#[cfg_attr(
    not(m1nd_ui_blessed),
    ignore = "ui .stderr files are blessed with rustc 1.95; this rustc differs (see build.rs)"
)]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
    t.pass("tests/golden/cockpit.rs");
}
