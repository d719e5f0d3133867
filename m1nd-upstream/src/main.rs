//! `cargo run -p m1nd-upstream`: write `m1nd-<version>/catalog.json` anew
//! from `m1nd-control` (see the crate's documentation).

fn main() -> std::process::ExitCode {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(m1nd_upstream::FACTS_DIR).join("catalog.json");
    let written = m1nd_upstream::catalog_json()
        .map_err(|e| format!("m1nd-control's catalog does not validate: {e}"))
        .and_then(|text| std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display())));
    match written {
        Ok(()) => {
            println!("wrote {}", path.display());
            std::process::ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("error: {why}");
            std::process::ExitCode::FAILURE
        }
    }
}
