//! Every measured figure the README and the guide publish comes from one
//! file, `docs/figures.toml`, with the command that produced it, its date,
//! its commit, the load average it was taken at and its goal as the issue
//! set it. This test fails when a page says something that file does not:
//!
//! 1. `pages_show_the_file`: the README's performance table
//!    (`<!-- figures: readme -->` … `<!-- figures: end -->`), every table a
//!    guide page shows (`<!-- figures: table ID -->` … `<!-- figures: end -->`)
//!    and every figure quoted in a sentence
//!    (`<!-- figure ID -->` … `<!-- /figure -->`) are exactly what the file
//!    renders. `M1ND_BLESS=1 cargo test --test figures` rewrites them.
//! 2. `no_figure_outside_the_file`: outside those blocks and outside code
//!    fences, no page quotes a measurement: a ratio (`1.4×`, `0.82x`), a
//!    decimal time (`0.44 ms`, `7.1 µs`) or a rate (`3,253.4 cockpits/s`).
//!    Settings (`every 500 ms`) are whole numbers and are not measurements.
//! 3. `every_figure_can_be_reproduced`: each entry names a command whose
//!    script is in the repository, a date, a commit git knows, the load
//!    average it was taken at, and a goal with its verdict (or says it has
//!    no goal), and is shown on some page.
//!
//! `docs/benchmarks.md` is the lab notebook the figures are taken from (with
//! the runs that led to them); it is not checked here.

mod documents;
#[path = "figures/model.rs"]
mod model;
#[path = "figures/pages.rs"]
mod pages;

use std::path::Path;
use std::process::Command;

use documents::documents;
use model::{Figures, load};
use pages::{Block, blocks, render_block, strays};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn figures() -> Figures {
    load(&Path::new(ROOT).join("docs/figures.toml")).unwrap_or_else(|e| panic!("docs/figures.toml: {e}"))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(ROOT).unwrap_or(path).display().to_string()
}

#[test]
fn pages_show_the_file() {
    let figures = figures();
    let bless = std::env::var_os("M1ND_BLESS").is_some();
    let mut problems = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).expect("page");
        let found = match blocks(&text) {
            Ok(found) => found,
            Err(e) => {
                problems.push(format!("{}: {e}", relative(&path)));
                continue;
            }
        };
        let mut fixed = text.clone();
        // From the last block back, so the earlier blocks' offsets still hold.
        for block in found.iter().rev() {
            let wanted = match render_block(&figures, &block.kind) {
                Ok(wanted) => wanted,
                Err(e) => {
                    problems.push(format!("{}:{}: {e}", relative(&path), block.line));
                    continue;
                }
            };
            if text[block.body.clone()] != wanted {
                problems.push(differs(&path, block, &text[block.body.clone()], &wanted));
                fixed.replace_range(block.body.clone(), &wanted);
            }
        }
        if bless && fixed != text {
            std::fs::write(&path, fixed).expect("bless");
        }
    }
    if bless {
        return;
    }
    assert!(problems.is_empty(), "{}\nrewrite them with M1ND_BLESS=1 cargo test --test figures", problems.join("\n\n"));
}

fn differs(path: &Path, block: &Block, shown: &str, wanted: &str) -> String {
    let line = shown.lines().zip(wanted.lines()).position(|(a, b)| a != b);
    let at = line.map_or_else(|| "in its length".to_string(), |n| format!("at its line {}", n + 1));
    format!(
        "{}:{}: {} differs from docs/figures.toml {at}:\n  shown:  {}\n  wanted: {}",
        relative(path),
        block.line,
        block.kind,
        line.and_then(|n| shown.lines().nth(n)).unwrap_or(shown),
        line.and_then(|n| wanted.lines().nth(n)).unwrap_or(wanted),
    )
}

#[test]
fn no_figure_outside_the_file() {
    let mut problems = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).expect("page");
        for stray in strays(&text) {
            problems.push(format!(
                "{}:{}: `{}` is a measured figure outside a generated block: add it to docs/figures.toml \
                 (with its command, date, commit, load average and goal) and show it with a \
                 `<!-- figure ID -->` or `<!-- figures: … -->` block\n  {}",
                relative(&path),
                stray.line,
                stray.token,
                stray.text.trim()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_figure_can_be_reproduced() {
    let figures = figures();
    let shown: String = documents().iter().map(|p| std::fs::read_to_string(p).expect("page")).collect();
    let mut problems = Vec::new();
    for entry in figures.entries() {
        let id = entry.id;
        for script in entry.scripts() {
            if !Path::new(ROOT).join(&script).is_file() {
                problems.push(format!("{id}: its command names {script}, which is not in the repository"));
            }
        }
        if !commit_is_known(entry.commit) {
            problems.push(format!("{id}: commit {} is not in this repository's history", entry.commit));
        }
        if !entry.shown_in(&shown) {
            problems.push(format!("{id}: no page shows it; show it or remove it from docs/figures.toml"));
        }
    }
    assert!(!figures.entries().is_empty(), "docs/figures.toml holds no figure");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Whether git knows `commit`. The checkout must be a git clone: a figure's
/// commit is how anyone reproduces it.
fn commit_is_known(commit: &str) -> bool {
    let out = Command::new("git")
        .args(["-C", ROOT, "cat-file", "-e", &format!("{commit}^{{commit}}")])
        .output()
        .expect("git must be installed: each figure names the commit it was measured at");
    out.status.success()
}

#[test]
fn a_page_that_quotes_a_figure_the_file_does_not_hold_fails() {
    let page =
        "The cockpit is 1.3× a ping (p50), or 0.44 ms.\n\n```sh\n1.5x inside a fence is code\n```\nevery 500 ms\n";
    let found: Vec<String> = strays(page).into_iter().map(|s| s.token).collect();
    assert_eq!(found, ["1.3×", "0.44 ms"]);
    let figures = model::parse(
        r#"
        [[figure]]
        id = "x"
        what = "w"
        figure = "1.3× a ping"
        goal = "≤ 1.2× a ping"
        issue = "figures that hold, item 3"
        verdict = "not met"
        command = "scripts/bench-callgrind.sh"
        date = "2026-12-06"
        commit = "53c5bd7"
        load = "0.10, 0.20, 0.30"
        "#,
    )
    .expect("parse");
    let page = "<!-- figure x -->1.2× a ping<!-- /figure -->\n";
    let block = &blocks(page).expect("blocks")[0];
    let wanted = render_block(&figures, &block.kind).expect("render");
    assert_ne!(&page[block.body.clone()], wanted, "a changed figure is caught");
    assert!(render_block(&figures, &pages::Kind::Figure("y".into())).is_err(), "an unknown id is an error");
}

#[test]
fn an_entry_without_its_provenance_is_refused() {
    let whole = r#"
        [[figure]]
        id = "x"
        what = "w"
        figure = "1.3×"
        goal = "none"
        verdict = "no goal"
        command = "scripts/bench-callgrind.sh"
        date = "2026-12-06"
        commit = "53c5bd7"
        load = "0.10, 0.20, 0.30"
    "#;
    model::parse(whole).expect("a whole entry parses");
    for (key, bad) in [("date", "yesterday"), ("commit", "HEAD"), ("verdict", "fine"), ("load", "low"), ("command", "")]
    {
        let edited: String = whole
            .lines()
            .map(|l| {
                if l.trim_start().starts_with(&format!("{key} =")) {
                    format!("{key} = \"{bad}\"")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let err = model::parse(&edited).expect_err(key);
        assert!(err.contains(key), "{key}: {err}");
    }
    let missing = whole.replace("load = \"0.10, 0.20, 0.30\"", "");
    assert!(model::parse(&missing).expect_err("no load").contains("load"));
}

/// A bench on a machine too busy to measure says so and records nothing:
/// with the threshold below any load average, each bench that a stock
/// python3 can start exits 3 before it builds, starts or writes anything.
#[test]
fn a_bench_on_a_busy_machine_records_nothing() {
    let out = tempfile::Builder::new().prefix("m1nd-busy-").tempdir().expect("dir");
    let record = out.path().join("record");
    let record = record.to_str().expect("utf-8");
    let benches: [&[&str]; 4] = [
        &["scripts/bench_callgrind.py", "--bin", "/nonexistent/m1nd", "--out", record],
        &["scripts/bench_store.py", "--sqlite", "/nonexistent/m1nd", "--json", record],
        &["scripts/loadtest/team.py", "--bin", "/nonexistent/m1nd", "--out", record, "--json"],
        &["scripts/journal-syncs.py", "--n", "1"],
    ];
    for args in benches {
        let run = Command::new("python3")
            .args(args)
            .current_dir(ROOT)
            .env("M1ND_BENCH_MAX_LOAD", "-1")
            .env("M1ND_BENCH_SETTLE", "0")
            .output()
            .expect("python3 runs the benches");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(3), "{}: {stderr}", args[0]);
        assert!(
            stderr.contains("too busy to measure") && stderr.contains("nothing measured or recorded"),
            "{}: {stderr}",
            args[0]
        );
        assert!(std::fs::read_dir(out.path()).expect("dir").next().is_none(), "{} wrote {record}", args[0]);
    }
}
