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

/// Each crate's source and the names its own paths may start with.
const CRATES: [(&str, &str, &[&str]); 4] = [
    ("m1nd", "src", &["m1nd"]),
    ("m1nd-policy", "m1nd-core/src", &["m1nd_policy"]),
    ("m1nd-macros", "m1nd-macros/src", &["m1nd_macros"]),
    ("m1nd-guard", "m1nd-guard/src", &["m1nd_guard"]),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn no_two_sibling_modules_name_each_other() {
    let mut found = Vec::new();
    for (name, src, own) in CRATES {
        let krate = Crate::read(&root().join(src), own);
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

/// Each crate of the table, with the folder of its `Cargo.toml`.
const MANIFESTS: [(&str, &str); 4] =
    [("m1nd", "."), ("m1nd-policy", "m1nd-core"), ("m1nd-macros", "m1nd-macros"), ("m1nd-guard", "m1nd-guard")];

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
    for (name, folder) in MANIFESTS {
        let Some(&own) = crate_floor.get(name) else {
            wrong.push(format!("the crate `{name}` is on no floor"));
            continue;
        };
        let manifest = std::fs::read_to_string(root().join(folder).join("Cargo.toml")).expect("a manifest");
        let manifest: toml_edit::DocumentMut = manifest.parse().expect("a manifest parses");
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
