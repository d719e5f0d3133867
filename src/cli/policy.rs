//! `m1nd policy check`, `expand` and `digest`.
//!
//! Each compiles with `m1nd_core::compile`, the function the `cockpit!` macro
//! calls, and renders diagnostics with the same `Diagnostic::render`, so a
//! violation reads here exactly as rustc shows it.

use std::path::{Path, PathBuf};

use clap::Args;
use m1nd_core::{Cockpit, Diagnostic, PolicySources, compile};
use serde_json::{Value, json};

use super::{Failure, Format, emit};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The policy directory (tools.toml, read_only_denied.toml, help_cards.toml, cockpit.toml).
    #[arg(value_name = "DIR", default_value = "policy")]
    dir: PathBuf,
    /// `text` (as rustc shows it) or `json` (an array of diagnostics, for tools).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
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

/// The directory as diagnostics name it: as written, without a trailing `/`.
fn display(dir: &Path) -> Result<String, Failure> {
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
    let problems = match compile(&sources) {
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
    }
    let n = problems.len();
    Err(Failure::refused(format!("{display} breaks {n} law{}", if n == 1 { "" } else { "s" })))
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

/// Compile `sources` or fail with every violation rendered, as `check` prints them.
fn compiled(name: &str, sources: &PolicySources) -> Result<Cockpit, Failure> {
    compile(sources).map_err(|problems| {
        let rendered: Vec<String> = problems.iter().map(|d| format!("error: {}", d.render(sources))).collect();
        let n = problems.len();
        Failure::refused(format!("{}\n\n{name} breaks {n} law{}", rendered.join("\n\n"), if n == 1 { "" } else { "s" }))
    })
}

pub fn digest(args: DigestArgs) -> Result<(), Failure> {
    let display = display(&args.dir)?;
    let sources = PolicySources::read_dir(&args.dir, &display);
    emit(&compiled(&display, &sources)?.digest)
}
