//! Copy m1nd-mcp's routing module (`M1ND_ACTION_ROUTES`) into `OUT_DIR` so
//! that `include!` can take it inside a module: its module-level `//!` doc
//! comments become plain comments, the only change.

fn main() {
    println!("cargo::rerun-if-env-changed=M1ND_ACTION_ROUTES");
    let source = std::env::var("M1ND_ACTION_ROUTES").expect("set M1ND_ACTION_ROUTES (see ../regenerate.sh)");
    println!("cargo::rerun-if-changed={source}");
    let text = std::fs::read_to_string(&source).unwrap_or_else(|e| panic!("cannot read {source}: {e}"));
    let copied: String = text
        .lines()
        .map(|line| line.strip_prefix("//!").map_or_else(|| line.to_owned(), |rest| format!("//{rest}")))
        .map(|line| line + "\n")
        .collect();
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("action_routes.rs");
    std::fs::write(out, copied).expect("write the copy");
}
