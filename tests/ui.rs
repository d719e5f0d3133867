//! The trybuild ui suite: every law fails compilation with its blessed
//! message, and the pass cases (including the golden expansion) compile and run.
//!
//! Only the `compile_fail` cases compare rustc's output, which changes between
//! releases, so only they are tied to the rustc the `.stderr` files were
//! blessed with (see build.rs); on any other rustc that test is reported as
//! ignored, never as passed. The `pass` cases hold on every rustc.
//! Bless: `TRYBUILD=overwrite cargo test --test ui`, then read the diff.

#[test]
#[cfg_attr(
    not(m1nd_ui_blessed),
    ignore = "ui .stderr files are blessed with rustc 1.95; this rustc differs (see build.rs)"
)]
fn compile_fail() {
    trybuild::TestCases::new().compile_fail("tests/ui/fail/*.rs");
}

#[test]
fn pass() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.pass("tests/golden/cockpit.rs");
}
