//! The deployment page's table of caps and budgets against `m1nd serve
//! --help`: every flag whose help gives a number as its default is in the
//! table, and the table's default is that number.

use std::collections::BTreeMap;
use std::process::Command;

use super::support::read;

/// `--flag` → its default, for each flag whose help prints `[default: N]`
/// with a number.
fn help_defaults() -> BTreeMap<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_m1nd")).args(["serve", "--help"]).output().expect("run m1nd");
    assert!(out.status.success(), "m1nd serve --help: {out:?}");
    let help = String::from_utf8(out.stdout).expect("utf-8");
    let mut defaults = BTreeMap::new();
    let mut flag = None;
    for line in help.lines().map(str::trim) {
        // A flag's line: `--name <VALUE>`, or `-s, --name <VALUE>`.
        if line.starts_with('-') {
            flag = line.split([' ', ',']).find(|t| t.starts_with("--")).map(str::to_owned);
        }
        let Some(at) = line.find("[default: ") else { continue };
        let value = line[at + "[default: ".len()..].split(']').next().unwrap_or_default();
        if let (Some(flag), true) = (&flag, value.parse::<f64>().is_ok()) {
            defaults.insert(flag.clone(), value.to_owned());
        }
    }
    defaults
}

/// `--flag` → the table's default cell, for each row of the deployment
/// page's tables that names a flag.
fn table_defaults() -> BTreeMap<String, String> {
    let page = read("docs/guide/src/deployment.md");
    page.lines()
        .filter_map(|line| line.strip_prefix("| `--"))
        .filter_map(|row| {
            let mut cells = row.split('|').map(str::trim);
            let flag = cells.next()?.split([' ', '`']).next()?;
            let default = cells.next()?.split_whitespace().next()?;
            Some((format!("--{flag}"), default.to_owned()))
        })
        .collect()
}

#[test]
fn the_deployment_table_gives_the_defaults_serve_uses() {
    let help = help_defaults();
    let table = table_defaults();
    for flag in ["--max-requests", "--max-connections", "--arrival-timeout", "--max-event-streams"] {
        assert!(help.contains_key(flag), "the help parser missed {flag}: {help:?}");
    }
    for (flag, default) in &help {
        // `--readers` defaults to the machine's cores: the table says so in words.
        if flag == "--readers" {
            assert!(table.contains_key(flag), "docs/guide/src/deployment.md has no row for {flag}");
            continue;
        }
        assert_eq!(table.get(flag), Some(default), "docs/guide/src/deployment.md: the default of {flag}");
    }
}
