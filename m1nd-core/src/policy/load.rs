//! M001: every file is readable, valid TOML, with known keys and right types.

use serde::de::DeserializeOwned;

use super::diagnostic::{Diagnostic, Law};
use super::effects::catalog::ParsedCatalog;
use super::effects::raw::EffectFiles;
use super::profile::Profile;
use super::raw::{CardsFile, CockpitFile, RawPolicy};
use super::source::{Loc, PolicyFile, PolicySources, ReadProblem};
use crate::names::{did_you_mean, suggest};

/// Parse the policy's files, reporting every file that fails, not just the
/// first. A gateway policy may leave out the menu files (see [`Profile`]). An
/// optional file that is missing declares nothing; one that is present is
/// held to the same rules as the others.
pub fn load(sources: &PolicySources, profile: Profile) -> Result<RawPolicy, Vec<Diagnostic>> {
    let mut problems = Vec::new();
    let optional = |file| profile == Profile::Gateway && sources.file(file).text == Err(ReadProblem::Missing);
    let tools = parse(sources, PolicyFile::Tools, &mut problems);
    let deny = parse(sources, PolicyFile::Deny, &mut problems);
    let cards = if optional(PolicyFile::Cards) {
        Some(CardsFile::default())
    } else {
        parse(sources, PolicyFile::Cards, &mut problems)
    };
    let menu = !optional(PolicyFile::Cockpit);
    let cockpit = if menu { parse(sources, PolicyFile::Cockpit, &mut problems) } else { Some(CockpitFile::absent()) };
    let human_only = match &sources.file(PolicyFile::HumanOnly).text {
        Err(ReadProblem::Missing) => None,
        _ => parse(sources, PolicyFile::HumanOnly, &mut problems),
    };
    let effects = load_effects(sources, &mut problems);
    match (tools, deny, cards, cockpit) {
        (Some(tools), Some(deny), Some(cards), Some(cockpit)) if problems.is_empty() => {
            Ok(RawPolicy { tools, deny, cards, cockpit, human_only, profile, menu, effects })
        }
        _ => Err(problems),
    }
}

/// The effect files come together or not at all: the modes mean nothing
/// without the catalog they were decided against, and the catalog judges
/// nothing without routes.
fn load_effects(sources: &PolicySources, out: &mut Vec<Diagnostic>) -> Option<EffectFiles> {
    let present = |file| sources.file(file).text != Err(ReadProblem::Missing);
    if !PolicyFile::EFFECTS.iter().any(|&f| present(f)) {
        return None;
    }
    for file in PolicyFile::EFFECTS.into_iter().filter(|&f| !present(f)) {
        let with: Vec<&str> = PolicyFile::EFFECTS.iter().filter(|&&f| present(f)).map(|f| f.file_name()).collect();
        out.push(
            Diagnostic::whole_file(
                Law::M001,
                file,
                format!("{} is missing, though the policy has {}", file.file_name(), with.join(" and ")),
            )
            .help(
                "effects.toml, routes.toml and catalog.json come together: add the missing one \
                 (m1nd-upstream/regenerate.sh writes routes.toml and catalog.json), or remove the others",
            ),
        );
    }
    let effects = present(PolicyFile::Effects).then(|| parse(sources, PolicyFile::Effects, out)).flatten();
    let routes = present(PolicyFile::Routes).then(|| parse(sources, PolicyFile::Routes, out)).flatten();
    let catalog = match &sources.file(PolicyFile::Catalog).text {
        Ok(text) => match ParsedCatalog::parse(text) {
            Ok(catalog) => Some(catalog),
            Err(problem) => {
                out.push(*problem);
                None
            }
        },
        Err(ReadProblem::Missing) => None,
        Err(_) => {
            // Unreadable, too large or not UTF-8: said the way every file says it.
            parse::<toml::Value>(sources, PolicyFile::Catalog, out);
            None
        }
    };
    Some(EffectFiles { effects: effects?, routes: routes?, catalog: catalog? })
}

/// Why a pipe, device or socket is refused as a policy file.
const ONLY_REGULAR_FILES: &str = "policy files are never read from pipes, devices or sockets";

fn parse<T: DeserializeOwned>(sources: &PolicySources, file: PolicyFile, out: &mut Vec<Diagnostic>) -> Option<T> {
    let name = file.file_name();
    let text = match &sources.file(file).text {
        Ok(text) => text,
        Err(ReadProblem::NotUtf8 { valid_up_to }) => {
            out.push(
                Diagnostic::new(
                    Law::M001,
                    Loc::new(file, *valid_up_to..*valid_up_to),
                    format!("{name} is not valid UTF-8"),
                )
                .label("the first invalid byte is here")
                .help("save the file as UTF-8; policy text is read as UTF-8 only"),
            );
            return None;
        }
        Err(problem) => {
            let help = match problem {
                ReadProblem::TooLarge { .. } => format!(
                    "a policy is small by design: remove what does not belong in {name} (generated data, pasted logs)"
                ),
                ReadProblem::Unreadable(_) => format!("make {name} readable by the user running the build"),
                ReadProblem::NotAFile { kind } if *kind != "a directory" => {
                    format!("replace {kind} with a regular UTF-8 file named {name}: {ONLY_REGULAR_FILES}")
                }
                ReadProblem::Missing => did_you_mean(
                    suggest(name, sources.other_files().iter().map(String::as_str)),
                    &format!("it is in the directory; rename it to `{name}`"),
                    || put_it_there(name),
                ),
                _ => put_it_there(name),
            };
            out.push(Diagnostic::whole_file(Law::M001, file, format!("{name} cannot be used: {problem}")).help(help));
            return None;
        }
    };
    if text.trim().is_empty() {
        out.push(Diagnostic::whole_file(Law::M001, file, format!("{name} is empty")).help(empty_help(file)));
        return None;
    }
    match toml::from_str::<T>(text) {
        Ok(parsed) => Some(parsed),
        Err(error) => {
            out.push(toml_diagnostic(file, text, &error));
            None
        }
    }
}

fn empty_help(file: PolicyFile) -> &'static str {
    match file {
        PolicyFile::Tools => "declare every verb as a `[verbs.NAME]` table with a `summary`",
        PolicyFile::Deny => "declare `tools = [...]`, the verbs a read-only session may not call",
        PolicyFile::Cards => "declare at least one `[[card]]` with id, title, why and tool",
        PolicyFile::Cockpit => "declare schema, title, negative_default, [budget] and the [[slot]]s",
        PolicyFile::HumanOnly => "declare `acts_at` and `verbs = [...]`, or remove the file if no verb is human-only",
        PolicyFile::Effects => "declare `catalog_digest`, `[mode.read_only]` and `[mode.menu]`",
        PolicyFile::Routes => {
            "regenerate it with m1nd-upstream/regenerate.sh: it declares `source` and `[routes.TOOL]`"
        }
        PolicyFile::Catalog => "regenerate it with m1nd-upstream/regenerate.sh",
    }
}

fn toml_diagnostic(file: PolicyFile, text: &str, error: &toml::de::Error) -> Diagnostic {
    let message = error.message().trim();
    let first_line = message.lines().next().unwrap_or("invalid TOML");
    let span = error.span().unwrap_or(0..0);
    let span = span.start.min(text.len())..span.end.min(text.len());
    let title = format!("{}: {}", file.file_name(), plain_types(&lower_first(first_line)));
    let help = unknown_field_help(message).unwrap_or_else(|| {
        if message.contains("duplicate key") && matches!(file, PolicyFile::Routes | PolicyFile::Effects) {
            "a tool is routed once and each argument value once, so its effects have one answer: keep one".to_owned()
        } else if message.contains("duplicate key") {
            "each key may appear once per table; remove or rename the second one".to_owned()
        } else if message.contains("invalid type") {
            "give the value the type the policy language expects (see the README's policy reference)".to_owned()
        } else if message.contains("missing field") {
            "add the missing key; every required key is listed in the README's policy reference".to_owned()
        } else {
            "fix the TOML at this position; the file must parse before any other law is checked".to_owned()
        }
    });
    Diagnostic::new(Law::M001, Loc::new(file, span), title).help(help)
}

/// The files a policy directory holds, named from [`PolicyFile::EVERY`]:
/// the required ones, then the optional ones with when they are needed.
fn put_it_there(name: &str) -> String {
    let required: Vec<&str> = PolicyFile::ALL.iter().map(|f| f.file_name()).collect();
    // Optional files needed for the same reason are named together.
    let mut optional: Vec<String> = Vec::new();
    for reason in PolicyFile::EVERY.iter().filter(|f| f.optional()).map(|f| f.needed_when()) {
        let files: Vec<&str> = PolicyFile::EVERY
            .iter()
            .filter(|f| f.optional() && f.needed_when() == reason)
            .map(|f| f.file_name())
            .collect();
        let named = match files.as_slice() {
            [one] => format!(" (and {one} when {reason})"),
            [first @ .., last] => format!(" (and {} and {last}, together, when {reason})", first.join(", ")),
            [] => continue,
        };
        if !optional.contains(&named) {
            optional.push(named);
        }
    }
    format!(
        "a policy directory holds exactly these files: {}{}; put {name} there as a regular UTF-8 file",
        required.join(", "),
        optional.concat()
    )
}

/// serde says "unknown field `x`, expected one of `a`, `b`": offer the closest.
/// Shared with a fleet's `fleet.toml`, whose keys serde lists the same way.
pub fn unknown_field_help(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (field, rest) = rest.split_once('`')?;
    let expected: Vec<&str> = rest.split('`').skip(1).step_by(2).collect();
    let listed = expected.iter().map(|e| format!("`{e}`")).collect::<Vec<_>>().join(", ");
    Some(did_you_mean(suggest(field, expected.iter().copied()), &format!("the keys allowed here are {listed}"), || {
        if expected.is_empty() {
            format!("remove `{field}`: no keys are allowed here")
        } else {
            format!("remove `{field}`; the keys allowed here are {listed}")
        }
    }))
}

/// serde names Rust types (`i64`, `a sequence`); a policy author thinks in TOML.
fn plain_types(message: &str) -> String {
    [
        ("expected i64", "expected an integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected a boolean", "expected `true` or `false`"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected a table"),
        ("expected struct ", "expected a table for "),
    ]
    .iter()
    .fold(message.to_owned(), |m, (from, to)| m.replace(from, to))
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}
