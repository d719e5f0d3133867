//! `m1nd policy check`, `expand`, `digest` and `diff`.
//!
//! Each compiles with `m1nd_core::compile`, the function the `cockpit!` macro
//! calls, and renders diagnostics with the same `Diagnostic::render`, so a
//! violation reads here exactly as rustc shows it.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use m1nd_core::policy::diff::{Category, diff as compare, render};
use m1nd_core::policy::report;
use m1nd_core::{Cockpit, Diagnostic, PolicySources, compile, compile_gateway};
use serde_json::{Value, json};

use super::revision::{self, Side};
use super::{Failure, Format, emit};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The policy directory (tools.toml, read_only_denied.toml, help_cards.toml, cockpit.toml).
    #[arg(value_name = "DIR", default_value = "policy")]
    dir: PathBuf,
    /// `text` (as rustc shows it), `json` (for tools), `sarif` (SARIF 2.1.0) or `github` (annotations).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Check a gateway policy: help_cards.toml and cockpit.toml are optional.
    #[arg(long)]
    gateway: bool,
}

#[derive(Debug, Args)]
pub struct ExpandArgs {
    /// The policy directory.
    #[arg(value_name = "DIR", default_value = "policy")]
    dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct DigestArgs {
    /// The policy directory.
    #[arg(value_name = "DIR", default_value = "policy")]
    dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The policy before: a directory, or a git revision `REV` (its `policy/`) or `REV:DIR`.
    #[arg(value_name = "OLD")]
    old: String,
    /// The policy after, in the same forms.
    #[arg(value_name = "NEW", default_value = "policy")]
    new: String,
    /// `text`, `json` (for tools) or `markdown` (for a pull request comment).
    #[arg(long, value_enum, default_value = "text")]
    format: DiffFormat,
    /// Exit 1 when the diff has changes of this kind (`loosened` for CI), after printing it.
    #[arg(long, value_enum, value_name = "KIND")]
    fail_on: Option<FailOn>,
}

/// Output format of `policy diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum DiffFormat {
    Text,
    Json,
    Markdown,
}

/// What makes `policy diff --fail-on` exit 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FailOn {
    /// A session can reach more than before (the deny list or the human-only verbs).
    Loosened,
    /// Any change to the policy's meaning (the digests differ).
    Any,
}

/// The directory as diagnostics name it: as written, without a trailing `/`.
pub fn display(dir: &Path) -> Result<String, Failure> {
    if !dir.is_dir() {
        return Err(Failure::usage(format!("the policy directory `{}` does not exist", dir.display())));
    }
    let written = dir.to_string_lossy();
    let trimmed = written.trim_end_matches('/');
    Ok(if trimmed.is_empty() { written.into_owned() } else { trimmed.to_owned() })
}

pub fn check(args: CheckArgs) -> Result<(), Failure> {
    let display = display(&args.dir)?;
    let sources = PolicySources::read_dir(&args.dir, &display);
    let compiled = if args.gateway { compile_gateway(&sources).map(|g| g.policy) } else { compile(&sources) };
    let problems = match compiled {
        Ok(cockpit) => {
            return match args.format {
                Format::Text => emit(&format!(
                    "{display}: ok ({} verbs, {} denied, {} cards, {} slots; digest {})",
                    cockpit.verbs.len(),
                    cockpit.deny.tools.len(),
                    cockpit.cards.len(),
                    cockpit.slots.len(),
                    cockpit.digest.get(..12).unwrap_or(&cockpit.digest)
                )),
                Format::Json => emit("[]"),
                Format::Sarif => emit(&pretty(&report::sarif(&[], &sources))),
                // Nothing to annotate; workflow commands have no "all clear".
                Format::Github => Ok(()),
            };
        }
        Err(problems) => problems,
    };
    match args.format {
        Format::Text => {
            let rendered: Vec<String> = problems.iter().map(|d| format!("error: {}", d.render(&sources))).collect();
            emit(&rendered.join("\n\n"))?;
        }
        Format::Json => {
            let values: Vec<Value> = problems.iter().map(|d| diagnostic_json(d, &sources)).collect();
            emit(&pretty(&Value::Array(values)))?;
        }
        Format::Sarif => emit(&pretty(&report::sarif(&problems, &sources)))?,
        Format::Github => emit(&report::github(&problems, &sources))?,
    }
    Err(Failure::refused(breaks(&display, problems.len())))
}

/// `policy breaks 3 laws`: the last line of every failed compile.
fn breaks(name: &str, n: usize) -> String {
    format!("{name} breaks {n} law{}", if n == 1 { "" } else { "s" })
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn diagnostic_json(d: &Diagnostic, sources: &PolicySources) -> Value {
    let file = d.file.map(|f| sources.file(f).display.clone());
    let (line, column) = d.line_col(sources).unzip();
    json!({
        "law": d.law.code(),
        "file": file,
        "line": line,
        "column": column,
        "title": d.title,
        "help": d.help,
        "rendered": d.render(sources),
    })
}

#[cfg(feature = "expand")]
pub fn expand(args: ExpandArgs) -> Result<(), Failure> {
    let display = display(&args.dir)?;
    match m1nd::expand::expand_file(&args.dir, &display, &display) {
        Ok(source) => emit(&source),
        Err(m1nd::expand::ExpandError::Policy(rendered)) => {
            let rendered: Vec<String> = rendered.iter().map(|r| format!("error: {r}")).collect();
            emit(&rendered.join("\n\n"))?;
            Err(Failure::refused(format!("{display} breaks the laws; nothing to expand")))
        }
        Err(other) => Err(Failure::usage(other.to_string())),
    }
}

/// A build without the code generator says how to get one.
#[cfg(not(feature = "expand"))]
pub fn expand(_args: ExpandArgs) -> Result<(), Failure> {
    Err(Failure::usage(
        "this m1nd was built without the `expand` feature, so it cannot print the expansion; build one with it \
         (it is on by default): cargo install --locked --path .",
    ))
}

/// Compile `sources` or fail with every violation rendered, as `check` prints them.
fn compiled(name: &str, sources: &PolicySources) -> Result<Cockpit, Failure> {
    compile(sources).map_err(|problems| {
        let rendered: Vec<String> = problems.iter().map(|d| format!("error: {}", d.render(sources))).collect();
        Failure::refused(format!("{}:\n\n{}", breaks(name, problems.len()), rendered.join("\n\n")))
    })
}

pub fn digest(args: DigestArgs) -> Result<(), Failure> {
    let display = display(&args.dir)?;
    let sources = PolicySources::read_dir(&args.dir, &display);
    emit(&compiled(&display, &sources)?.digest)
}

pub fn diff(args: DiffArgs) -> Result<(), Failure> {
    let (old, new) = (revision::read(&args.old)?, revision::read(&args.new)?);
    let table = |side: &Side| compiled(&side.name, &side.sources);
    let (old_table, new_table) = (table(&old)?, table(&new)?);
    let d = compare(&old_table, &new_table);
    let (a, b) = (old.name.as_str(), new.name.as_str());
    match args.format {
        DiffFormat::Text => emit(&render::text(&d, a, b))?,
        DiffFormat::Json => emit(&pretty(&render::json(&d, a, b)))?,
        DiffFormat::Markdown => emit(&render::markdown(&d, a, b))?,
    }
    let loosened = d.of(Category::Loosened).count();
    match args.fail_on {
        Some(FailOn::Loosened) if loosened > 0 => Err(Failure::refused(format!(
            "{b} loosens the guard for {loosened} verb{} (--fail-on loosened)",
            if loosened == 1 { "" } else { "s" }
        ))),
        Some(FailOn::Any) if !d.is_empty() => Err(Failure::refused(format!("{b} changes the policy (--fail-on any)"))),
        _ => Ok(()),
    }
}
