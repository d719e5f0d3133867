//! The house has floors and no circles: `docs/architecture.md` lists which
//! module (or crate) sits on which floor, and this test holds the code to
//! it. A module may name modules on its own floor or below, never above; no
//! two sibling modules, in any crate, name each other however indirectly;
//! and each crate depends only on crates below it. The references are read
//! from the source's tokens (`tests/floors/modules.rs`), so a comment or a
//! string never counts and a `use` inside a function does.

mod floors {
    pub mod doc;
    pub mod graph;
    pub mod modules;
}

use std::collections::BTreeMap;
use std::path::Path;

use floors::doc::floors;
use floors::graph::{circles, siblings};
use floors::modules::Crate;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn manifest(folder: &str) -> toml_edit::DocumentMut {
    let text = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).expect("a manifest");
    text.parse().expect("a manifest parses")
}

/// The house's crates, as the workspace's manifests say: the root package
/// and every member that is published (examples and the dev-only
/// `m1nd-upstream` say `publish = false`), each with its folder.
fn house() -> Vec<(String, String)> {
    let root_manifest = manifest(".");
    let members = root_manifest["workspace"]["members"].as_array().expect("workspace.members");
    let mut crates = vec![("m1nd".to_owned(), ".".to_owned())];
    for folder in members.iter().filter_map(|m| m.as_str()) {
        let package = &manifest(folder)["package"];
        if package.get("publish").and_then(|p| p.as_bool()) == Some(false) {
            continue;
        }
        let name = package["name"].as_str().expect("package.name").to_owned();
        crates.push((name, folder.to_owned()));
    }
    crates
}

#[test]
fn no_two_sibling_modules_name_each_other() {
    let mut found = Vec::new();
    for (name, folder) in house() {
        // A crate's paths may start with its own name (the binary names its library `m1nd`).
        let own = name.replace('-', "_");
        let krate = Crate::read(&root().join(&folder).join("src"), &[own.as_str()]);
        for (parent, edges) in siblings(&krate) {
            for circle in circles(&edges) {
                let at = if parent.is_empty() { "the crate root".to_owned() } else { parent.join("::") };
                let steps: Vec<String> = circle
                    .iter()
                    .map(|a| {
                        let to: Vec<&str> =
                            edges[a].iter().filter(|b| circle.contains(b)).map(String::as_str).collect();
                        let mut module = parent.clone();
                        module.push(a.clone());
                        let file =
                            krate.files.get(&module).map(|f| f.strip_prefix(root()).unwrap_or(f).display().to_string());
                        format!("{a} ({}) → {}", file.unwrap_or_default(), to.join(", "))
                    })
                    .collect();
                found.push(format!("{name}: under {at}, {}", steps.join("; ")));
            }
        }
    }
    assert!(found.is_empty(), "module circles:\n  {}", found.join("\n  "));
}

#[test]
fn the_floors_in_docs_architecture_md_are_the_code() {
    let page = std::fs::read_to_string(root().join("docs/architecture.md")).expect("docs/architecture.md");
    let floors = floors(&page);
    let krate = Crate::read(&root().join("src"), &["m1nd"]);
    let mut wrong = Vec::new();

    // Every module of src/ on exactly one floor, and no floor naming a module that is not there.
    let mut floor_of: BTreeMap<&str, u32> = BTreeMap::new();
    for (number, floor) in &floors {
        for module in &floor.modules {
            if floor_of.insert(module, *number).is_some() {
                wrong.push(format!("`{module}` is on two floors"));
            }
            if !krate.files.contains_key(&vec![module.clone()]) {
                wrong.push(format!("floor {number} names `{module}`, which is no module of src/"));
            }
        }
    }
    let top: Vec<&String> = krate.files.keys().filter(|m| m.len() == 1 && m[0] != "<main>").map(|m| &m[0]).collect();
    for module in &top {
        if !floor_of.contains_key(module.as_str()) {
            wrong.push(format!("`{module}` (src/) is on no floor: add it to the table"));
        }
    }

    // A module names nothing above its floor.
    for (from, to) in
        siblings(&krate).get(&Vec::new()).into_iter().flatten().flat_map(|(a, bs)| bs.iter().map(move |b| (a, b)))
    {
        if let (Some(&low), Some(&high)) = (floor_of.get(from.as_str()), floor_of.get(to.as_str()))
            && high > low
        {
            wrong.push(format!("`{from}` (floor {low}) names `{to}` (floor {high}), above it"));
        }
    }

    // A crate depends on no crate above it; `m1nd` sits on its lowest module's floor.
    let mut crate_floor: BTreeMap<&str, u32> = BTreeMap::new();
    for (number, floor) in &floors {
        for name in &floor.crates {
            crate_floor.insert(name, *number);
        }
    }
    if let Some(lowest) = floor_of.values().min() {
        crate_floor.insert("m1nd", *lowest);
    }
    let house = house();
    for listed in crate_floor.keys() {
        if !house.iter().any(|(name, _)| name == listed) {
            wrong.push(format!("the table names the crate `{listed}`, which no published workspace member is"));
        }
    }
    for (name, folder) in &house {
        let Some(&own) = crate_floor.get(name.as_str()) else {
            wrong.push(format!("the crate `{name}` is on no floor"));
            continue;
        };
        let manifest = manifest(folder);
        let dependencies = manifest.get("dependencies").and_then(|d| d.as_table_like());
        for (dependency, _) in dependencies.into_iter().flat_map(|d| d.iter()) {
            if let Some(&theirs) = crate_floor.get(dependency)
                && theirs >= own
            {
                wrong.push(format!("the crate `{name}` (floor {own}) depends on `{dependency}` (floor {theirs})"));
            }
        }
    }
    assert!(wrong.is_empty(), "docs/architecture.md's floors and the code disagree:\n  {}", wrong.join("\n  "));
}
