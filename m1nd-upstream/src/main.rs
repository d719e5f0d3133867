//! `cargo run -p m1nd-upstream`: write `policy/catalog.json` anew from
//! `m1nd-control`, and `policy/routes.toml` from the checked-in
//! `routes.json` (see the crate's documentation).

fn main() -> std::process::ExitCode {
    let policy = m1nd_upstream::policy_dir();
    let catalog = m1nd_upstream::catalog_json().map_err(|e| format!("m1nd-control's catalog does not validate: {e}"));
    let routes = std::fs::read_to_string(m1nd_upstream::routes_json_path())
        .map_err(|e| format!("cannot read routes.json: {e}"))
        .and_then(|json| m1nd_upstream::routes_toml(&json));
    let written = [("catalog.json", catalog), ("routes.toml", routes)].into_iter().try_for_each(|(name, text)| {
        let path = policy.join(name);
        let text = text?;
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("wrote {}", path.display());
        Ok::<(), String>(())
    });
    match written {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("error: {why}");
            std::process::ExitCode::FAILURE
        }
    }
}
