//! Rebuild when anything in policy/ changes (new files included), and gate
//! the ui suite's `compile_fail` cases to the rustc their `.stderr` files were blessed with.

use std::process::Command;

/// The rustc whose diagnostics the ui `.stderr` files record.
const BLESSED_RUSTC: &str = "1.95";

fn main() {
    println!("cargo::rerun-if-changed=policy");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(m1nd_ui_blessed)");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .unwrap_or_default();
    // "rustc 1.95.0 (59807616e 2026-04-14)" → blessed when major.minor match.
    let release = version.split_whitespace().nth(1).unwrap_or_default();
    if release.starts_with(&format!("{BLESSED_RUSTC}.")) {
        println!("cargo::rustc-cfg=m1nd_ui_blessed");
    }
}
