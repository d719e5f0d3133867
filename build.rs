//! Rebuild when anything in policy/ changes (new files included), gate
//! the ui suite's `compile_fail` cases to the rustc their `.stderr` files were blessed with,
//! and compile the store's page-checksum VFS shim (src/store/checksum_vfs.c) against
//! the `sqlite3.h` of the SQLite that rusqlite bundles.

use std::process::Command;

/// The rustc whose diagnostics the ui `.stderr` files record.
const BLESSED_RUSTC: &str = "1.95";

fn main() {
    #[cfg(feature = "store")]
    compile_checksum_shim();
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

/// The shim calls only SQLite's public API, so it is built against the very
/// header of the amalgamation it links with: libsqlite3-sys (`links =
/// "sqlite3"`) exports its include directory to the build scripts of crates
/// that depend on it directly, as `DEP_SQLITE3_INCLUDE`. It is linked in
/// statically and exports `m1nd_checksum_vfs_register` (src/store/checksum.rs).
/// Without the `store` feature there is no SQLite to build it against, and nothing calls it.
#[cfg(feature = "store")]
fn compile_checksum_shim() {
    const SHIM: &str = "src/store/checksum_vfs.c";
    println!("cargo::rerun-if-changed={SHIM}");
    println!("cargo::rerun-if-env-changed=DEP_SQLITE3_INCLUDE");
    let include = std::env::var("DEP_SQLITE3_INCLUDE")
        .expect("libsqlite3-sys (bundled) exports DEP_SQLITE3_INCLUDE to its direct dependents");
    cc::Build::new()
        .file(SHIM)
        .include(include)
        // Our own code: every warning is shown, and fixed.
        .warnings(true)
        .extra_warnings(true)
        // Every page SQLite writes or reads is checksummed here. The release profile optimises
        // for size; this file is a few kilobytes, and at -Os its checksum loop and page copy
        // cost about half the instructions of a `memorize` (docs/benchmarks.md section 14).
        .opt_level(3)
        .compile("m1nd_checksum_vfs");
}
