//! The generated blocks in a page, what `docs/figures.toml` renders for each,
//! and the measured figures a page quotes outside them.

use std::fmt;
use std::ops::Range;

use super::model::{Figure, Figures, Measured, Provenance};

pub const README_OPEN: &str = "<!-- figures: readme -->";
const TABLE_OPEN: &str = "<!-- figures: table ";
const BLOCK_END: &str = "<!-- figures: end -->";
const FIGURE_OPEN: &str = "<!-- figure ";
const FIGURE_END: &str = "<!-- /figure -->";

pub fn table_open(id: &str) -> String {
    format!("{TABLE_OPEN}{id} -->")
}

pub fn figure_open(id: &str) -> String {
    format!("{FIGURE_OPEN}{id} -->")
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// The README's performance table: every figure with `readme = true`.
    Readme,
    /// One measured table.
    Table(String),
    /// One figure quoted in a sentence.
    Figure(String),
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Readme => write!(f, "the performance table"),
            Kind::Table(id) => write!(f, "table `{id}`"),
            Kind::Figure(id) => write!(f, "figure `{id}`"),
        }
    }
}

/// A generated span: `body` is what lies between its opening and closing markers.
#[derive(Debug)]
pub struct Block {
    pub kind: Kind,
    pub body: Range<usize>,
    /// The opening marker's line, from 1.
    pub line: usize,
}

/// Every generated block of `text`, in order; an opened block that never closes is an error.
pub fn blocks(text: &str) -> Result<Vec<Block>, String> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(start) = text[at..].find("<!-- figure").map(|i| i + at) {
        let line = text[..start].matches('\n').count() + 1;
        let close =
            text[start..].find("-->").map(|i| i + start + 3).ok_or(format!("line {line}: a marker never closes"))?;
        let marker = &text[start..close];
        let (kind, end_marker) = if marker == README_OPEN {
            (Kind::Readme, BLOCK_END)
        } else if let Some(id) = marker.strip_prefix(TABLE_OPEN).and_then(|m| m.strip_suffix(" -->")) {
            (Kind::Table(id.to_string()), BLOCK_END)
        } else if let Some(id) = marker.strip_prefix(FIGURE_OPEN).and_then(|m| m.strip_suffix(" -->")) {
            (Kind::Figure(id.to_string()), FIGURE_END)
        } else {
            return Err(format!(
                "line {line}: `{marker}` is not a figures marker ({README_OPEN}, {TABLE_OPEN}ID -->, {FIGURE_OPEN}ID -->)"
            ));
        };
        let end = text[close..]
            .find(end_marker)
            .map(|i| i + close)
            .ok_or(format!("line {line}: {kind} never ends ({end_marker})"))?;
        if text[close..end].contains("<!-- figure") {
            return Err(format!("line {line}: {kind} holds another marker before its {end_marker}"));
        }
        found.push(Block { kind, body: close..end, line });
        at = end + end_marker.len();
    }
    Ok(found)
}

/// What `figures` says a block of `kind` holds.
pub fn render_block(figures: &Figures, kind: &Kind) -> Result<String, String> {
    match kind {
        Kind::Readme => Ok(format!("\n\n{}\n", readme_table(figures.figures.iter().filter(|f| f.readme)))),
        Kind::Table(id) => {
            let table = figures.table(id).ok_or(format!("docs/figures.toml has no [[table]] `{id}`"))?;
            Ok(format!("\n\n{}\n", measured_table(table)))
        }
        Kind::Figure(id) => {
            let figure = figures.figure(id).ok_or(format!("docs/figures.toml has no [[figure]] `{id}`"))?;
            Ok(format!("{} ({})", figure.figure, reproduce(&figure.provenance)))
        }
    }
}

fn reproduce(p: &Provenance) -> String {
    let load = if p.load.starts_with(char::is_numeric) {
        format!("load average {}", p.load)
    } else {
        format!("load {}", p.load)
    };
    format!("`{}`, {}, commit {}, {load}", p.command, p.date, p.commit)
}

fn goal(p: &Provenance) -> String {
    match &p.issue {
        Some(issue) => format!("{} (issue \"{issue}\"): **{}**", p.goal, p.verdict),
        None => p.verdict.clone(),
    }
}

fn readme_table<'a>(rows: impl Iterator<Item = &'a Figure>) -> String {
    let mut out = String::from("| what | figure | against | goal | reproduce |\n|---|---|---|---|---|\n");
    for f in rows {
        let against = f.against.as_deref().unwrap_or("");
        out += &format!(
            "| {} | {} | {against} | {} | {} |\n",
            f.what,
            f.figure,
            goal(&f.provenance),
            reproduce(&f.provenance)
        );
    }
    out
}

fn measured_table(t: &Measured) -> String {
    let mut out = format!("| {} |\n|", t.columns.join(" | "));
    for n in 0..t.columns.len() {
        out += if n == 0 { "---|" } else { "---:|" };
    }
    out.push('\n');
    for row in &t.rows {
        out += &format!("| {} |\n", row.join(" | "));
    }
    out += &format!("\n{}. Goal: {}.\n", reproduce(&t.provenance), goal(&t.provenance));
    out
}

/// A measured figure found outside every generated block.
#[derive(Debug)]
pub struct Stray {
    pub token: String,
    pub line: usize,
    pub text: String,
}

/// Measurements `text` quotes outside generated blocks and code fences: a
/// ratio (`1.4×`, `0.82x`), a decimal time (`0.44 ms`, `7.1 µs`, `0.09 s`) or a
/// rate (`3,253.4 cockpits/s`, `279 /s`).
pub fn strays(text: &str) -> Vec<Stray> {
    let generated: Vec<Range<usize>> = blocks(text).unwrap_or_default().into_iter().map(|b| b.body).collect();
    let mut found = Vec::new();
    let mut fenced = false;
    let mut offset = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (at, token) in measurements(line) {
            let pos = start + at;
            if !generated.iter().any(|r| r.contains(&pos)) {
                found.push(Stray { token, line: n + 1, text: line.to_string() });
            }
        }
    }
    found
}

/// Each measurement in `line`, with its byte offset.
fn measurements(line: &str) -> Vec<(usize, String)> {
    let bytes = line.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_number = bytes[i].is_ascii_digit() && (i == 0 || !is_word(bytes[i - 1]));
        if !starts_number {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < bytes.len() && (bytes[end].is_ascii_digit() || bytes[end] == b',' || bytes[end] == b'.') {
            end += 1;
        }
        let number = line[i..end].trim_end_matches([',', '.']);
        let end = i + number.len();
        let decimal = number.contains('.');
        if let Some(unit) = unit_after(&line[end..], decimal) {
            found.push((i, format!("{number}{unit}")));
        }
        i = end.max(i + 1);
    }
    found
}

/// The unit after a number, when it makes the number a measurement.
fn unit_after(rest: &str, decimal: bool) -> Option<String> {
    if rest.starts_with('×') {
        return Some("×".into());
    }
    if decimal && rest.starts_with('x') && !rest[1..].starts_with(|c: char| c.is_alphanumeric()) {
        return Some("x".into());
    }
    let spaced = rest.strip_prefix(' ').unwrap_or(rest);
    let gap = &rest[..rest.len() - spaced.len()];
    if decimal {
        for unit in ["ms", "µs", "s"] {
            if spaced.starts_with(unit) && !spaced[unit.len()..].starts_with(|c: char| c.is_alphanumeric()) {
                return Some(format!("{gap}{unit}"));
            }
        }
    }
    let word_len = spaced.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(spaced.len());
    let after_word = &spaced[word_len..];
    if after_word.starts_with("/s") && !after_word[2..].starts_with(|c: char| c.is_alphanumeric()) {
        return Some(format!("{gap}{}/s", &spaced[..word_len]));
    }
    None
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.'
}
