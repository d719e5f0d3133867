//! `cargo run -p m1nd-upstream`: write `policy/catalog.json` anew from
//! `m1nd-control`, `policy/routes.toml` from the checked-in `routes.json`,
//! and the same two files with `tools.toml` (from the checked-in
//! `schemas.json`) into the policy of m1nd's real surface and its variants
//! (see the crate's documentation).

fn main() -> std::process::ExitCode {
    let read = |path: std::path::PathBuf| {
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let catalog = m1nd_upstream::catalog_json().map_err(|e| format!("m1nd-control's catalog does not validate: {e}"));
    let routes = read(m1nd_upstream::routes_json_path()).and_then(|json| m1nd_upstream::routes_toml(&json));
    let tools = read(m1nd_upstream::schemas_json_path())
        .and_then(|json| m1nd_upstream::tools_toml(&json).map_err(|e| e.to_string()));
    let policy = m1nd_upstream::policy_dir();
    let mut files = vec![(policy.clone(), "catalog.json", &catalog), (policy, "routes.toml", &routes)];
    for relative in std::iter::once(m1nd_upstream::UPSTREAM_POLICY).chain(m1nd_upstream::UPSTREAM_POLICY_VARIANTS) {
        let dir = m1nd_upstream::repository_dir(relative);
        files.extend([
            (dir.clone(), "catalog.json", &catalog),
            (dir.clone(), "routes.toml", &routes),
            (dir, "tools.toml", &tools),
        ]);
    }
    let written = files.into_iter().try_for_each(|(dir, name, text)| {
        let path = dir.join(name);
        let text = text.as_ref().map_err(Clone::clone)?;
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
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
