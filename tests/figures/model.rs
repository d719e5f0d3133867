//! `docs/figures.toml`, read and checked: each entry says what was measured,
//! the figure, what it was compared with in the same run, the goal and its
//! verdict, and how to reproduce it (command, date, commit, load average).

use std::path::Path;

use toml_edit::{DocumentMut, Item, Table};

/// One row of the README's performance table, or a figure quoted in a sentence.
#[derive(Debug)]
pub struct Figure {
    pub id: String,
    pub what: String,
    pub figure: String,
    pub against: Option<String>,
    /// Whether the README's table shows it (a figure quoted only in a sentence says `readme = false`).
    pub readme: bool,
    pub provenance: Provenance,
}

/// A measured table a guide page shows whole.
#[derive(Debug)]
pub struct Measured {
    pub id: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub provenance: Provenance,
}

/// How a figure was produced and what it was held to.
#[derive(Debug)]
pub struct Provenance {
    /// The goal as the issue set it, or `none`.
    pub goal: String,
    /// Which issue (and item) set the goal; absent when there is none.
    pub issue: Option<String>,
    /// `met`, `not met` or `no goal`, with any detail after it.
    pub verdict: String,
    pub command: String,
    pub date: String,
    pub commit: String,
    /// The load average (1, 5, 15 minutes) when the run started.
    pub load: String,
}

#[derive(Debug, Default)]
pub struct Figures {
    pub figures: Vec<Figure>,
    pub tables: Vec<Measured>,
}

/// What every entry has, for the checks that treat both kinds alike.
pub struct Entry<'a> {
    pub id: &'a str,
    pub commit: &'a str,
    command: &'a str,
    markers: Vec<String>,
}

impl Entry<'_> {
    /// The repository files the command runs: paths it names, and the bench
    /// file of a `cargo bench --bench NAME`.
    pub fn scripts(&self) -> Vec<String> {
        let words: Vec<&str> = self.command.split_whitespace().collect();
        let mut found: Vec<String> = words
            .iter()
            // `NAME=value` sets the environment (`M1ND_BIN=target/release/m1nd`): a build's output, not a script.
            .filter(|w| w.contains('/') && !w.contains('=') && !w.starts_with('-') && !w.contains("://"))
            .map(|w| w.to_string())
            .collect();
        if let Some(at) = words.iter().position(|w| *w == "--bench")
            && let Some(name) = words.get(at + 1)
        {
            found.push(format!("m1nd-core/benches/{name}.rs"));
        }
        found
    }

    /// Whether `pages` (every page, concatenated) shows this entry.
    pub fn shown_in(&self, pages: &str) -> bool {
        self.markers.iter().any(|m| pages.contains(m.as_str()))
    }
}

impl Figures {
    pub fn entries(&self) -> Vec<Entry<'_>> {
        let figures = self.figures.iter().map(|f| Entry {
            id: &f.id,
            commit: &f.provenance.commit,
            command: &f.provenance.command,
            markers: if f.readme {
                vec![super::pages::README_OPEN.to_string(), super::pages::figure_open(&f.id)]
            } else {
                vec![super::pages::figure_open(&f.id)]
            },
        });
        let tables = self.tables.iter().map(|t| Entry {
            id: &t.id,
            commit: &t.provenance.commit,
            command: &t.provenance.command,
            markers: vec![super::pages::table_open(&t.id)],
        });
        figures.chain(tables).collect()
    }

    pub fn figure(&self, id: &str) -> Option<&Figure> {
        self.figures.iter().find(|f| f.id == id)
    }

    pub fn table(&self, id: &str) -> Option<&Measured> {
        self.tables.iter().find(|t| t.id == id)
    }
}

pub fn load(path: &Path) -> Result<Figures, String> {
    parse(&std::fs::read_to_string(path).map_err(|e| e.to_string())?)
}

pub fn parse(text: &str) -> Result<Figures, String> {
    let doc: DocumentMut = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    let mut out = Figures::default();
    for key in doc.as_table().iter().map(|(k, _)| k) {
        if key != "figure" && key != "table" {
            return Err(format!("unknown key `{key}`: an entry is a [[figure]] or a [[table]]"));
        }
    }
    for (n, t) in array(&doc, "figure")?.into_iter().enumerate() {
        let id = string(t, "id", n)?;
        out.figures.push(Figure {
            what: string(t, "what", n)?,
            figure: string(t, "figure", n)?,
            against: optional(t, "against"),
            readme: t.get("readme").and_then(Item::as_bool).unwrap_or(true),
            provenance: provenance(t, &id)?,
            id,
        });
    }
    for (n, t) in array(&doc, "table")?.into_iter().enumerate() {
        let id = string(t, "id", n)?;
        let columns = strings(t.get("columns"), &id, "columns")?;
        let rows = t
            .get("rows")
            .and_then(Item::as_value)
            .and_then(|v| v.as_array())
            .ok_or_else(|| format!("{id}: `rows` must be an array of rows"))?
            .iter()
            .map(|row| {
                let cells: Vec<String> =
                    row.as_array().into_iter().flatten().filter_map(|c| c.as_str().map(str::to_string)).collect();
                if cells.len() == columns.len() {
                    Ok(cells)
                } else {
                    Err(format!("{id}: a row has {} cells for {} columns", cells.len(), columns.len()))
                }
            })
            .collect::<Result<_, _>>()?;
        out.tables.push(Measured { provenance: provenance(t, &id)?, columns, rows, id });
    }
    let mut ids: Vec<&str> = out.entries().iter().map(|e| e.id).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("two entries are called `{}`", w[0]));
    }
    Ok(out)
}

fn array<'a>(doc: &'a DocumentMut, key: &str) -> Result<Vec<&'a Table>, String> {
    match doc.get(key) {
        None => Ok(Vec::new()),
        Some(item) => item
            .as_array_of_tables()
            .map(|a| a.iter().collect())
            .ok_or_else(|| format!("`{key}` must be written [[{key}]]")),
    }
}

fn string(t: &Table, key: &str, n: usize) -> Result<String, String> {
    let id = t.get("id").and_then(Item::as_str).map_or_else(|| format!("entry {}", n + 1), str::to_string);
    match t.get(key).and_then(Item::as_str) {
        Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
        _ => Err(format!("{id}: `{key}` is missing or empty")),
    }
}

fn optional(t: &Table, key: &str) -> Option<String> {
    t.get(key).and_then(Item::as_str).map(str::to_string)
}

fn strings(item: Option<&Item>, id: &str, key: &str) -> Result<Vec<String>, String> {
    let array = item.and_then(Item::as_array).ok_or_else(|| format!("{id}: `{key}` must be an array of strings"))?;
    array
        .iter()
        .map(|v| v.as_str().map(str::to_string).ok_or_else(|| format!("{id}: `{key}` holds a non-string")))
        .collect()
}

fn provenance(t: &Table, id: &str) -> Result<Provenance, String> {
    let get = |key: &str| match t.get(key).and_then(Item::as_str) {
        Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
        _ => Err(format!("{id}: `{key}` is missing or empty")),
    };
    let p = Provenance {
        goal: get("goal")?,
        issue: optional(t, "issue"),
        verdict: get("verdict")?,
        command: get("command")?,
        date: get("date")?,
        commit: get("commit")?,
        load: get("load")?,
    };
    let is_date = p.date.len() == 10
        && p.date.char_indices().all(|(i, c)| if i == 4 || i == 7 { c == '-' } else { c.is_ascii_digit() });
    if !is_date {
        return Err(format!("{id}: `date` must be YYYY-MM-DD, not {:?}", p.date));
    }
    if !(7..=40).contains(&p.commit.len()) || !p.commit.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("{id}: `commit` must be a commit's hash (7 to 40 hex digits), not {:?}", p.commit));
    }
    // Three load averages first ("1.00, 0.50, 0.25"), then any words (the other runs' starts).
    let averages: Vec<&str> = p.load.splitn(3, ", ").collect();
    let third = averages.get(2).and_then(|a| a.split([' ', ';']).next());
    let numbers = averages.len() == 3 && averages[..2].iter().chain(third.iter()).all(|a| a.parse::<f64>().is_ok());
    let explained =
        ["n/a: ", "not recorded: "].iter().any(|k| p.load.strip_prefix(k).is_some_and(|why| !why.trim().is_empty()));
    if !numbers && !explained {
        return Err(format!(
            "{id}: `load` must be the three load averages at the start (\"1.00, 0.50, 0.25\"), \"n/a: why the figure \
             does not depend on it\" or \"not recorded: what is known\", not {:?}",
            p.load
        ));
    }
    let known = ["met", "not met", "no goal"];
    if !known.iter().any(|k| p.verdict == *k || p.verdict.starts_with(&format!("{k}:"))) {
        return Err(format!(
            "{id}: `verdict` must be `met`, `not met` or `no goal` (then `: detail`), not {:?}",
            p.verdict
        ));
    }
    if (p.goal == "none") != p.verdict.starts_with("no goal") {
        return Err(format!("{id}: `goal = \"none\"` goes with `verdict = \"no goal\"`, and only with it"));
    }
    if p.goal != "none" && p.issue.is_none() {
        return Err(format!("{id}: a goal names the `issue` (and item) that set it"));
    }
    Ok(p)
}
