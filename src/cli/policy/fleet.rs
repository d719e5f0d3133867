//! `m1nd policy check` and `digest` on a fleet: a directory holding
//! `fleet.toml` (several upstreams behind one gateway, each with its own
//! gateway policy). The same [`compile_fleet`] as `m1nd gateway --fleet`
//! and `fleet!`, so a fleet that checks here starts there.

use std::path::Path;

use m1nd_policy::gateway::fleet::{FLEET_FILE, Fleet, FleetProblem, FleetSources, compile_fleet};
use serde_json::{Value, json};

use crate::cli::{Failure, Format, emit};

/// Whether `dir` is a fleet rather than one policy.
pub fn is_fleet(dir: &Path) -> bool {
    dir.join(FLEET_FILE).is_file()
}

/// The fleet's sources, and the fleet compiled from them or its problems.
fn compiled(dir: &Path, display: &str) -> (FleetSources, Result<Fleet, Vec<FleetProblem>>) {
    let sources = FleetSources::read_dir(dir, display);
    let compiled = compile_fleet(&sources);
    (sources, compiled)
}

fn breaks(display: &str, n: usize) -> Failure {
    Failure::refused(format!("the fleet {display} breaks {n} law{}", if n == 1 { "" } else { "s" }))
}

pub fn check(dir: &Path, display: &str, format: Format) -> Result<(), Failure> {
    let (sources, compiled) = compiled(dir, display);
    let problems = match compiled {
        Ok(fleet) => {
            return match format {
                Format::Text => {
                    let members: Vec<String> = fleet
                        .members
                        .iter()
                        .map(|m| {
                            let tools = m.gateway.tools.len();
                            format!(
                                "{} as {}… ({tools} tool{})",
                                m.entry.name,
                                m.entry.prefix,
                                if tools == 1 { "" } else { "s" }
                            )
                        })
                        .collect();
                    let digest = fleet.digest();
                    emit(&format!(
                        "{display}: ok, a fleet of {} upstreams ({}; digest {})",
                        fleet.members.len(),
                        members.join(", "),
                        digest.get(..12).unwrap_or(&digest)
                    ))
                }
                Format::Json | Format::Github => emit(if format == Format::Json { "[]" } else { "" }),
                Format::Sarif => Err(sarif_not_yet(display)),
            };
        }
        Err(found) => found,
    };
    match format {
        Format::Text => {
            let rendered: Vec<String> = problems.iter().map(|p| format!("error: {}", p.render(&sources))).collect();
            emit(&rendered.join("\n\n"))?;
        }
        Format::Json => {
            let values: Vec<Value> = problems
                .iter()
                .map(|p| json!({ "law": p.law().code(), "position": p.position(&sources), "rendered": p.render(&sources) }))
                .collect();
            emit(&serde_json::to_string_pretty(&Value::Array(values)).unwrap_or_default())?;
        }
        Format::Github => {
            let lines: Vec<String> = problems
                .iter()
                .map(|p| {
                    let position = p.position(&sources);
                    let mut parts = position.rsplitn(3, ':');
                    let (col, line, file) = (parts.next(), parts.next(), parts.next());
                    let place = match (file, line, col) {
                        (Some(file), Some(line), Some(col)) => format!("file={file},line={line},col={col},"),
                        _ => String::new(),
                    };
                    let first = p.render(&sources).lines().next().unwrap_or_default().to_owned();
                    format!("::error {place}title=m1nd policy {}::{first}", p.law())
                })
                .collect();
            emit(&lines.join("\n"))?;
        }
        Format::Sarif => return Err(sarif_not_yet(display)),
    }
    Err(breaks(display, problems.len()))
}

fn sarif_not_yet(display: &str) -> Failure {
    Failure::usage(format!(
        "SARIF is not written for a fleet yet: check {display} with `--format github` or `--format json`, or each \
         member's policy directory with `--format sarif`"
    ))
}

pub fn digest(dir: &Path, display: &str) -> Result<(), Failure> {
    let (sources, compiled) = compiled(dir, display);
    match compiled {
        Ok(fleet) => emit(&fleet.digest()),
        Err(problems) => {
            let rendered: Vec<String> = problems.iter().map(|p| format!("error: {}", p.render(&sources))).collect();
            eprintln!("{}", rendered.join("\n\n"));
            Err(breaks(display, problems.len()))
        }
    }
}

/// `policy diff` and `expand` take one policy: say what to run on a fleet.
pub fn one_policy_only(display: &str, command: &str) -> Failure {
    Failure::usage(format!(
        "`{display}` is a fleet (it has {FLEET_FILE}); `policy {command}` works on one policy: run it on each \
         member's policy directory, as fleet.toml names them"
    ))
}
