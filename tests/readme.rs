//! The README and the guide's first pages as a new user follows them:
//!
//! 1. The README opens with the two commands a fresh machine needs, the
//!    first keeping cargo's progress visible (no `-q`), and says how long
//!    the first build takes, naming the script that measured it.
//! 2. After the install section, the README and the guide write the
//!    installed `m1nd`, never `cargo run`.
//! 3. Every table row is inside its table, and `serve --http` is described
//!    under the server, not under the gateway.
//! 4. The gateway recipe runs in a directory of its own, so it leaves
//!    nothing untracked in the checkout.
//! 5. The count of `compile_fail` cases the README gives is the ui suite's.

use std::path::Path;

fn read(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The lines of `text` outside fenced code blocks, with their numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((n + 1, line));
        }
    }
    out
}

/// The body of the first fenced block of `text` whose info string is `lang`.
fn first_block<'a>(text: &'a str, lang: &str) -> &'a str {
    let open = format!("```{lang}\n");
    let start = text.find(&open).unwrap_or_else(|| panic!("no ```{lang} block")) + open.len();
    &text[start..start + text[start..].find("```").expect("a closed block")]
}

/// The text from the heading `heading` to the next heading of its level or above.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("no `{heading}`")) + 1;
    let level = heading.split(' ').next().expect("a heading").len();
    let body = &text[start + heading.len()..];
    let end = body
        .match_indices("\n#")
        .find(|(at, _)| {
            let line = &body[at + 1..];
            let hashes = line.bytes().take_while(|b| *b == b'#').count();
            hashes <= level && line.as_bytes().get(hashes) == Some(&b' ')
        })
        .map_or(body.len(), |(at, _)| at);
    &text[start..start + heading.len() + end]
}

#[test]
fn the_readme_opens_with_the_two_commands_and_the_first_shows_its_progress() {
    let readme = read("README.md");
    let first = first_block(&readme, "sh");
    let commands: Vec<&str> = first.lines().map(|l| l.split('#').next().expect("a line").trim()).collect();
    assert_eq!(commands, ["cargo run -- init --demo; cargo run -- cockpit", "cargo test --workspace"], "{first}");
    assert!(!first.contains(" -q") && !first.contains("--quiet"), "cargo's progress must show: {first}");
    let opening = &readme[..readme.find("\n## ").expect("a section")];
    assert!(
        opening.contains("scripts/cold-build.sh") && opening.contains("2-core"),
        "the opening should say how long the first build takes on a small machine, naming the script"
    );
}

#[test]
fn after_the_install_section_the_docs_write_the_installed_m1nd() {
    for (path, install) in [("README.md", "## Install"), ("docs/guide/src/quick-start.md", "## Install")] {
        let text = read(path);
        let install = section(&text, install);
        assert!(install.contains("cargo install --locked --path ."), "{path}: {install}");
        let after = &text[text.find(install).expect("found") + install.len()..];
        let offset = text[..text.len() - after.len()].lines().count();
        for (n, line) in after.lines().enumerate() {
            assert!(
                !line.contains("cargo run"),
                "{path}:{}: after the install section, write `m1nd`: {line}",
                offset + n + 1
            );
        }
    }
    for page in ["connecting-an-agent.md", "writing-a-policy.md", "tray.md", "gateway.md", "deployment.md"] {
        let path = format!("docs/guide/src/{page}");
        assert!(!read(&path).contains("cargo run"), "{path}: write `m1nd`, installed");
    }
}

#[test]
fn every_table_row_is_inside_its_table() {
    for path in ["README.md", "docs/guide/src/quick-start.md", "docs/guide/src/connecting-an-agent.md"] {
        let text = read(path);
        let lines = prose(&text);
        let mut i = 0;
        while i < lines.len() {
            if !lines[i].1.starts_with('|') {
                i += 1;
                continue;
            }
            let run: Vec<(usize, &str)> = lines[i..].iter().take_while(|(_, l)| l.starts_with('|')).copied().collect();
            let (first, header) = run[0];
            let separator = run.get(1).map(|(_, l)| *l).unwrap_or_default();
            assert!(
                separator.starts_with("|---") && separator.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')),
                "{path}:{first}: a table row outside a table (no header and separator above it): {header}"
            );
            let columns = cells(header);
            for (n, row) in &run {
                assert_eq!(cells(row), columns, "{path}:{n}: a row with another number of cells than its table: {row}");
            }
            i += run.len();
        }
    }
}

/// The number of cells of a table row (`\|` and pipes in code spans are text).
fn cells(row: &str) -> usize {
    let row = row.trim();
    let inner = row.strip_prefix('|').unwrap_or(row);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let (mut count, mut code, mut chars) = (1, false, inner.chars());
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '`' => code = !code,
            '|' if !code => count += 1,
            _ => {}
        }
    }
    count
}

#[test]
fn serve_http_is_described_under_the_server() {
    let readme = read("README.md");
    let server = section(&readme, "## The server");
    assert!(server.contains("\n### Over HTTP\n"), "`### Over HTTP` should be a part of `## The server`");
    let gateway = section(&readme, "## A read-only guard in front of any MCP server");
    assert!(!gateway.contains("### Over HTTP"), "`serve --http` is not a part of the gateway");
}

#[test]
fn the_gateway_recipe_runs_outside_the_checkout() {
    let readme = read("README.md");
    let gateway = section(&readme, "## A read-only guard in front of any MCP server");
    let recipe = first_block(gateway, "sh");
    let first = recipe.lines().next().expect("a recipe");
    assert!(first.starts_with("cd \"$(mktemp -d)\""), "the recipe writes .venv/ and git-policy/: {first}");
    assert!(recipe.contains(".venv") && recipe.contains("git-policy"), "{recipe}");
}

#[test]
fn the_readme_counts_the_ui_suites_compile_fail_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/fail");
    let cases = std::fs::read_dir(&dir)
        .expect("tests/ui/fail")
        .filter(|entry| entry.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "rs")))
        .count();
    let readme = read("README.md");
    let said = readme
        .split("compile_fail` cases in `tests/ui/fail/` (")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .expect("the README says how many compile_fail cases there are");
    assert_eq!(said, cases, "README.md counts {said} compile_fail cases; tests/ui/fail/ holds {cases}");
}
