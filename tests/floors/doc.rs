//! The floor table of `docs/architecture.md`: each row's floor number, the
//! modules of `src/` and the crates on it, as the page writes them
//! (backticked; a crate is written `crate name`).

use std::collections::BTreeMap;

/// What sits on one floor.
#[derive(Debug, Default)]
pub struct Floor {
    pub modules: Vec<String>,
    pub crates: Vec<String>,
}

/// The rows of the first table under `## Floors`, by floor number.
pub fn floors(page: &str) -> BTreeMap<u32, Floor> {
    let section = page.split("\n## Floors\n").nth(1).expect("docs/architecture.md has a `## Floors` section");
    let mut floors = BTreeMap::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Some(Ok(number)) = cells.get(1).map(|c| c.parse::<u32>()) else { continue };
        let mut floor = Floor::default();
        let listed = cells.get(2).copied().unwrap_or_default();
        for (i, name) in listed.split('`').enumerate().filter(|(i, _)| i % 2 == 1) {
            let before = listed.split('`').nth(i - 1).unwrap_or_default();
            if before.trim_end().ends_with("crate") {
                floor.crates.push(name.to_owned());
            } else {
                floor.modules.push(name.to_owned());
            }
        }
        assert!(floors.insert(number, floor).is_none(), "floor {number} is listed twice");
    }
    assert!(!floors.is_empty(), "the `## Floors` section of docs/architecture.md has no table");
    floors
}
