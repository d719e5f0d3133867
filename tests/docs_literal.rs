//! Every literal output the README and the guide quote is checked against
//! what the code produces, so no figure or listing can drift unseen:
//!
//! 1. `outputs`: a fenced block whose first line is `$ m1nd ARGS` shows, on
//!    its other lines, what `m1nd ARGS` prints (stdout, and stderr when it
//!    fails), run
//!    from the repository's root on a fresh demo store (`M1ND_STORE`); so
//!    does a block right after `<!-- output: m1nd ARGS -->`, on all its
//!    lines. A line `…` alone stands for any lines the block leaves out. A
//!    `$ m1nd` block that needs more than the checkout (a policy the reader
//!    edited) follows `<!-- output: not checked: WHY -->`. Bless with
//!    `M1ND_BLESS=1 cargo test --test docs_literal` (blocks without `…` are
//!    rewritten whole).
//! 2. `source_snippets`: a diagnostic quoted in a block (`--> FILE:L:C`, then
//!    `L | text` and its underline) quotes line `L` of that file as it is
//!    now, underlined from column `C`; without a snippet, line `L` has a
//!    column `C`. A policy file's line is compared by its key (`card` in
//!    `card = "health"`), the part an example's edit leaves alone, and a copy
//!    of the shipped policy (`bad/`) is checked against `policy/`.
//! 3. `widget_size`: the README's widget template size is the template's.
//!
//! The law pages need none of this: they `{{#include}}` blessed ui `.stderr`.

mod documents;
mod server_support;

use std::path::Path;
use std::process::Command;

use documents::documents;
use server_support::{BIN, demo_store};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const MARKER: &str = "<!-- output: m1nd ";
const NOT_CHECKED: &str = "<!-- output: not checked: ";
const PROMPT: &str = "$ m1nd ";

fn shown(path: &Path) -> String {
    path.strip_prefix(ROOT).unwrap_or(path).display().to_string()
}

/// A fenced block: the 0-based index of its first and last content lines
/// (`end` is one past the last), and the marker's arguments before it, if any.
struct Block {
    start: usize,
    end: usize,
    command: Option<String>,
}

fn blocks(lines: &[&str]) -> Vec<Block> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("```") {
            let before = if i > 0 { lines[i - 1].trim() } else { "" };
            let mut start = i + 1;
            let end = (start..lines.len()).find(|&j| lines[j].trim_start().starts_with("```")).unwrap_or(lines.len());
            let marked = before.strip_prefix(MARKER).and_then(|rest| rest.strip_suffix("-->"));
            let prompted = lines.get(start).and_then(|first| first.strip_prefix(PROMPT)).filter(|_| start < end);
            let command = match (marked, prompted) {
                (Some(args), _) => Some(args.trim().to_owned()),
                (None, Some(_)) if before.starts_with(NOT_CHECKED) => None,
                (None, Some(args)) => {
                    start += 1;
                    Some(args.trim().to_owned())
                }
                (None, None) => None,
            };
            found.push(Block { start, end, command });
            i = end + 1;
        } else {
            i += 1;
        }
    }
    found
}

/// A directory holding only `m1nd` (a link to the binary), first on `PATH`,
/// so that the binary is started as an installed one and the commands it
/// suggests read `m1nd ...`, as the docs write them.
fn installed(dir: &Path) -> std::ffi::OsString {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).expect("bin dir");
    std::os::unix::fs::symlink(BIN, bin.join("m1nd")).expect("link m1nd");
    std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("PATH")
}

/// What `m1nd ARGS` prints, started from `PATH` in the repository's root on
/// the store `store`: stdout, and after it stderr when the command fails
/// (a note on stderr beside a card is not part of the card).
fn run(args: &str, store: &Path, path: &std::ffi::OsStr) -> String {
    let out = Command::new("m1nd")
        .args(args.split_whitespace())
        .current_dir(ROOT)
        .env("PATH", path)
        .env_remove("CARGO")
        .env("M1ND_STORE", store)
        .env_remove("M1ND_READ_ONLY")
        .env_remove("M1ND_HTTP_TOKEN")
        .output()
        .expect("run m1nd");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        text.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    text
}

/// Whether `quoted` (with `…` lines standing for any lines) is `actual`.
fn matches(quoted: &[&str], actual: &[&str]) -> bool {
    match quoted.split_first() {
        None => actual.is_empty(),
        Some((line, rest)) if line.trim() == "…" => (0..=actual.len()).any(|skip| matches(rest, &actual[skip..])),
        Some((line, rest)) => {
            actual.first().is_some_and(|first| first.trim_end() == line.trim_end()) && matches(rest, &actual[1..])
        }
    }
}

#[test]
fn outputs() {
    let bless = std::env::var_os("M1ND_BLESS").is_some();
    let (dir, store) = demo_store("docs-outputs");
    let path = installed(dir.path());
    let mut failures = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        let mut rewritten: Vec<String> = Vec::new();
        let mut copied = 0;
        for block in blocks(&lines) {
            let Some(args) = &block.command else { continue };
            checked += 1;
            let output = run(args, &store, &path);
            let actual: Vec<&str> = output.lines().collect();
            let quoted = &lines[block.start..block.end];
            if matches(quoted, &actual) {
                continue;
            }
            if bless && !quoted.iter().any(|l| l.trim() == "…") {
                rewritten.extend(lines[copied..block.start].iter().map(|l| (*l).to_owned()));
                rewritten.extend(actual.iter().map(|l| l.trim_end().to_owned()));
                copied = block.end;
                continue;
            }
            failures.push(format!(
                "{}:{}: `m1nd {args}` prints\n{}\nbut the block quotes\n{}",
                shown(&doc),
                block.start,
                output.trim_end(),
                quoted.join("\n")
            ));
        }
        if copied > 0 {
            rewritten.extend(lines[copied..].iter().map(|l| (*l).to_owned()));
            std::fs::write(&doc, rewritten.join("\n") + "\n").expect("bless");
        }
    }
    assert!(checked >= 10, "only {checked} quoted outputs found: is `{PROMPT}` or `{MARKER}ARGS -->` still the form?");
    assert!(
        failures.is_empty(),
        "{} quoted outputs drifted (bless with M1ND_BLESS=1):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// `--> FILE:L:C` or `::: FILE:L:C` in a diagnostic.
fn location(line: &str) -> Option<(&str, usize, usize)> {
    let rest = line.trim_start().strip_prefix("--> ").or_else(|| line.trim_start().strip_prefix("::: "))?;
    let mut parts = rest.trim().rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?, line, column))
}

/// The text after `L | ` in a snippet line numbered `number`.
fn numbered(line: &str, number: usize) -> Option<&str> {
    let (gutter, text) = line.split_once(" | ").or_else(|| line.split_once(" |").filter(|(_, t)| t.is_empty()))?;
    (gutter.trim() == number.to_string()).then_some(text)
}

/// Where the underline under a snippet line starts, 1-based.
fn underline_column(line: &str) -> Option<usize> {
    let (gutter, marks) = line.split_once(" | ")?;
    if !gutter.trim().is_empty() {
        return None;
    }
    let offset = marks.find(['^', '-'])?;
    marks[offset..].starts_with(['^', '-']).then_some(offset + 1)
}

/// The key of a TOML line, `card` for `card = "health"`.
fn key(line: &str) -> &str {
    line.split_once('=').map_or(line, |(k, _)| k).trim()
}

#[test]
fn source_snippets() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).expect("read");
        let lines: Vec<&str> = text.lines().collect();
        for block in blocks(&lines) {
            let body = &lines[block.start..block.end];
            for (i, line) in body.iter().enumerate() {
                let Some((file, number, column)) = location(line) else { continue };
                let at = format!("{}:{}", shown(&doc), block.start + i + 1);
                let direct = Path::new(ROOT).join(file);
                let name = Path::new(file).file_name().map(Path::new).unwrap_or(Path::new(file));
                let by_key = file.ends_with(".toml");
                let source = if direct.is_file() {
                    direct
                } else if by_key && Path::new(ROOT).join("policy").join(name).is_file() {
                    Path::new(ROOT).join("policy").join(name)
                } else {
                    continue;
                };
                checked += 1;
                let content = std::fs::read_to_string(&source).expect("read the quoted file");
                let real = content.lines().nth(number.saturating_sub(1)).unwrap_or_default();
                let Some((snippet_at, quoted)) =
                    body[i + 1..].iter().enumerate().find_map(|(j, l)| numbered(l, number).map(|t| (i + 1 + j, t)))
                else {
                    if real.chars().count() < column {
                        failures.push(format!("{at}: line {number} of {} has no column {column}", shown(&source)));
                    }
                    continue;
                };
                let same = if by_key { key(real) == key(quoted) } else { real == quoted };
                if !same {
                    failures.push(format!(
                        "{at}: `{file}:{number}` quotes {quoted:?}, but line {number} of {} is {real:?}",
                        shown(&source)
                    ));
                    continue;
                }
                if let Some(underline) = body.get(snippet_at + 1).and_then(|l| underline_column(l))
                    && underline != column
                {
                    failures.push(format!("{at}: `{file}:{number}:{column}` is underlined from column {underline}"));
                }
            }
        }
    }
    assert!(checked >= 3, "only {checked} quoted diagnostics found");
    assert!(failures.is_empty(), "{} quoted diagnostics drifted:\n{}", failures.len(), failures.join("\n"));
}

/// `20,914` → 20914.
fn figure(text: &str) -> Option<usize> {
    text.chars().filter(|c| *c != ',').collect::<String>().parse().ok()
}

#[test]
fn widget_size() {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).expect("README");
    let row = readme.lines().find(|l| l.starts_with("| widget template |")).expect("the README's widget row");
    let bytes = row.split('|').nth(2).and_then(|cell| cell.trim().split(' ').next()).and_then(figure);
    assert_eq!(bytes, Some(m1nd::widget::TEMPLATE.len()), "the README's widget row: {row}");
    let gzipped = Command::new("gzip")
        .arg("-9c")
        .stdin(std::fs::File::open(Path::new(ROOT).join("widget/cockpit.html")).expect("template"))
        .output()
        .expect("gzip")
        .stdout
        .len();
    let kb = format!("({:.1} KB gzipped", gzipped as f64 / 1000.0);
    assert!(row.contains(&kb), "the README's widget row should say {kb}: {row}");
}
