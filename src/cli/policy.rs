//! `m1nd policy check`, `expand`, `digest` and `diff`, on m1nd's own policy
//! and on gateway policies alike.
//!
//! Each recognises the policy's kind from its files ([`kind`]), compiles it
//! with the function its macro calls (`compile` for `cockpit!`,
//! `compile_gateway` for `gateway!`), and renders diagnostics with the same
//! `Diagnostic::render`, so a violation reads here exactly as rustc shows it.
//! A gateway policy's `definitions.json` is checked against its pins too.

mod fleet;
pub mod kind;

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use m1nd_policy::gateway_table::Gateway;
use m1nd_policy::policy::diff::{Category, PolicyDiff, diff as compare, diff_gateway, render};
use m1nd_policy::policy::{gateway_declarations, gateway_digest, report};
use m1nd_policy::{Cockpit, Diagnostic, PolicySources, compile, compile_gateway};
use serde_json::{Value, json};

use self::kind::{Kind, recognise};
use super::revision::{self, Side};
use super::{Failure, Format, emit};

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The policy directory: m1nd's own (tools.toml, read_only_denied.toml, help_cards.toml,
    /// cockpit.toml) or a gateway's (tools.toml, read_only_denied.toml), recognised from its files.
    #[arg(value_name = "DIR", default_value = "policy")]
    dir: PathBuf,
    /// `text` (as rustc shows it), `json` (for tools), `sarif` (SARIF 2.1.0) or `github` (annotations).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Assert that DIR is a gateway policy: refuse (exit 2) if it is m1nd's own.
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

/// A compiled policy of either kind.
enum Compiled {
    Cockpit(Cockpit),
    Gateway(Gateway),
}

impl Compiled {
    /// The digest `policy digest` prints: over the whole policy, pins and
    /// definitions included for a gateway.
    fn digest(&self) -> String {
        match self {
            Compiled::Cockpit(c) => c.digest.to_string(),
            Compiled::Gateway(g) => gateway_digest(g),
        }
    }

    /// `policy check`'s summary of a sound policy.
    fn summary(&self, display: &str) -> String {
        let digest = self.digest();
        let short = digest.get(..12).unwrap_or(&digest);
        match self {
            Compiled::Cockpit(c) => format!(
                "{display}: ok ({} verbs, {} denied, {} cards, {} slots{}; digest {short})",
                c.verbs.len(),
                c.deny.tools.len(),
                c.cards.len(),
                c.slots.len(),
                effects(&c.effects),
            ),
            Compiled::Gateway(g) => {
                let s = &g.surfaces;
                let surfaces = if s.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", {}, {}, {}",
                        counted(s.prompts.len(), "prompt"),
                        counted(s.resources.len(), "resource"),
                        counted(s.templates.len(), "template")
                    )
                };
                format!(
                    "{display}: ok, a gateway policy ({}{surfaces}, {} denied, {}, {} pinned; digest {short})",
                    counted(g.policy.verbs.len(), "tool"),
                    g.policy.deny.tools.len(),
                    counted(g.tools.iter().map(|t| t.pins.len()).sum(), "pin"),
                    counted(
                        g.tools.iter().filter(|t| t.definition.is_some()).count()
                            + [&s.prompts, &s.resources, &s.templates]
                                .iter()
                                .flat_map(|kind| kind.iter())
                                .filter(|d| d.definition.is_some())
                                .count(),
                        "definition"
                    ),
                )
            }
        }
    }
}

/// `1 pin`, `2 pins`.
fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// Compile `sources` as the kind its files say.
fn compile_kind(kind: Kind, sources: &PolicySources) -> Result<Compiled, Vec<Diagnostic>> {
    match kind {
        Kind::Cockpit => compile(sources).map(Compiled::Cockpit),
        Kind::Gateway => compile_gateway(sources).map(Compiled::Gateway),
    }
}

pub fn check(args: CheckArgs) -> Result<(), Failure> {
    let display = display(&args.dir)?;
    if fleet::is_fleet(&args.dir) && !args.gateway {
        return fleet::check(&args.dir, &display, args.format);
    }
    let sources = PolicySources::read_dir(&args.dir, &display);
    if args.gateway {
        kind::expect_gateway(&display, &sources, &format!("check it without --gateway: m1nd policy check {display}"))?;
    }
    let kind = if args.gateway { Kind::Gateway } else { recognise(&sources).kind };
    let problems = match compile_kind(kind, &sources) {
        Ok(compiled) => {
            if let Compiled::Gateway(gateway) = &compiled {
                stored_definitions(&args.dir, &display, gateway)?;
                visible_definitions(&args.dir, &display, &sources, args.format)?;
            }
            return match args.format {
                Format::Text => emit(&compiled.summary(&display)),
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

/// A gateway policy's `definitions.json` must hold the definitions its pins
/// match. This is not a law: the gateway never reads the file, so a mismatch
/// cannot widen what a session reaches, and the macro and the gateway's
/// startup have no use for it. It makes the text a reviewer reads differ from
/// what is enforced, so `policy check`, which CI runs on every change, refuses
/// it (exit 1) in every format. An entry for a declaration since removed is
/// stale, not a mismatch: removing a declaration only tightens, so it passes
/// with a note on stderr (stdout stays the chosen format's).
fn stored_definitions(dir: &Path, display: &str, gateway: &Gateway) -> Result<(), Failure> {
    let reviewed =
        m1nd::gateway::reviewed::Reviewed::checked(dir, gateway).map_err(|e| Failure::refused(e.to_string()))?;
    if let Some(note) = reviewed.and_then(|r| r.stale_note(display, gateway)) {
        eprintln!("note: {note}");
    }
    Ok(())
}

/// Law M018 on `definitions.json`: no invisible or control character in a
/// reviewed definition unless tools.toml allows it for that field. The laws
/// the compiler runs never see that file, so it is applied here, after
/// them, with a report in their words (stdout in text, as theirs; on stderr
/// in the machine formats, as the pins' check above), and exit 1.
fn visible_definitions(dir: &Path, display: &str, sources: &PolicySources, format: Format) -> Result<(), Failure> {
    let declared = gateway_declarations(sources).unwrap_or_default();
    let reports =
        m1nd::gateway::visible_review::check(dir, display, &declared).map_err(|e| Failure::refused(e.to_string()))?;
    if reports.is_empty() {
        return Ok(());
    }
    let rendered = reports.iter().map(|r| format!("error: {r}")).collect::<Vec<_>>().join("\n\n");
    let broken = breaks(display, reports.len());
    match format {
        Format::Text => {
            emit(&rendered)?;
            Err(Failure::refused(broken))
        }
        Format::Json | Format::Sarif | Format::Github => Err(Failure::refused(format!("{rendered}\n\n{broken}"))),
    }
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
    if fleet::is_fleet(&args.dir) {
        return Err(fleet::one_policy_only(&display, "expand"));
    }
    let expanded = match recognise(&PolicySources::read_dir(&args.dir, &display)).kind {
        Kind::Cockpit => m1nd::expand::expand_file(&args.dir, &display, &display),
        Kind::Gateway => m1nd::expand::expand_gateway_file(&args.dir, &display, &display),
    };
    match expanded {
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

/// Compile `sources` as `kind` or fail with every violation rendered, as `check` prints them.
fn compiled(name: &str, kind: Kind, sources: &PolicySources) -> Result<Compiled, Failure> {
    compile_kind(kind, sources).map_err(|problems| {
        let rendered: Vec<String> = problems.iter().map(|d| format!("error: {}", d.render(sources))).collect();
        Failure::refused(format!("{}:\n\n{}", breaks(name, problems.len()), rendered.join("\n\n")))
    })
}

pub fn digest(args: DigestArgs) -> Result<(), Failure> {
    let display = display(&args.dir)?;
    if fleet::is_fleet(&args.dir) {
        return fleet::digest(&args.dir, &display);
    }
    let sources = PolicySources::read_dir(&args.dir, &display);
    emit(&compiled(&display, recognise(&sources).kind, &sources)?.digest())
}

/// Both sides compiled, after checking they are of one kind: a diff between
/// m1nd's own policy and a gateway's would call every verb changed.
fn both(old: &Side, new: &Side) -> Result<(Compiled, Compiled), Failure> {
    let (was, now) = (recognise(&old.sources), recognise(&new.sources));
    if was.kind != now.kind {
        return Err(Failure::usage(format!(
            "`{}` is {} ({}) but `{}` is {} ({}); `policy diff` compares two policies of one kind: \
             give two gateway policy directories or two of m1nd's own",
            old.name,
            was.kind.name(),
            was.why,
            new.name,
            now.kind.name(),
            now.why
        )));
    }
    Ok((compiled(&old.name, was.kind, &old.sources)?, compiled(&new.name, now.kind, &new.sources)?))
}

pub fn diff(args: DiffArgs) -> Result<(), Failure> {
    for side in [&args.old, &args.new] {
        if fleet::is_fleet(Path::new(side)) {
            return Err(fleet::one_policy_only(side, "diff"));
        }
    }
    let (old, new) = (revision::read(&args.old)?, revision::read(&args.new)?);
    let d: PolicyDiff = match both(&old, &new)? {
        (Compiled::Cockpit(a), Compiled::Cockpit(b)) => compare(&a, &b),
        (Compiled::Gateway(a), Compiled::Gateway(b)) => diff_gateway(&a, &b),
        // `both` compiled the two sides as one kind.
        _ => return Err(Failure::usage("the two policies are of different kinds")),
    };
    let (a, b) = (old.name.as_str(), new.name.as_str());
    match args.format {
        DiffFormat::Text => emit(&render::text(&d, a, b))?,
        DiffFormat::Json => emit(&pretty(&render::json(&d, a, b)))?,
        DiffFormat::Markdown => emit(&render::markdown(&d, a, b))?,
    }
    let loosened = d.of(Category::Loosened).count();
    match args.fail_on {
        Some(FailOn::Loosened) if loosened > 0 => Err(Failure::refused(format!(
            "{b} loosens the guard in {loosened} place{} (--fail-on loosened)",
            if loosened == 1 { "" } else { "s" }
        ))),
        Some(FailOn::Any) if !d.is_empty() => Err(Failure::refused(format!("{b} changes the policy (--fail-on any)"))),
        _ => Ok(()),
    }
}

/// How a sound policy's summary names its effects: ", judged by catalog
/// fc1ca39db27b (150 routes)", or nothing for a policy without effect files.
fn effects(effects: &m1nd_policy::Effects) -> String {
    if effects.routes.is_empty() {
        return String::new();
    }
    let digest = &effects.catalog_digest;
    format!(", judged by catalog {} ({} routes)", digest.get(..12).unwrap_or(digest), effects.routes.len())
}
