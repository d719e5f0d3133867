//! `fleet.toml` as written: each upstream's name, policy directory, name
//! prefix and endpoint, with the positions diagnostics point at, and law
//! M001 over its shape.
//!
//! ```toml
//! [upstreams.git]
//! policy = "git"                      # a gateway policy directory, relative to fleet.toml
//! prefix = "git_"                     # every tool and prompt of this upstream is served as git_<name>
//! command = ["uvx", "mcp-server-git"] # started as a child process, spoken to over stdio
//! env = ["GIT_CONFIG_GLOBAL"]         # variables it gets besides HOME, PATH and the like
//!
//! [upstreams.files]
//! policy = "files"
//! prefix = "fs_"
//! url = "https://files.example.org/mcp" # or a Streamable HTTP endpoint
//! bearer_env = "FILES_TOKEN"          # the variable holding its token, never the token
//! ```
//!
//! The endpoint is part of the reviewed file on purpose: which program runs
//! behind a prefix is as much a review question as what it may be asked.
//! Credentials are named, never written: a variable's name, or a file's path.
//! A started upstream gets a small environment (see `m1nd::gateway`'s child
//! environment) plus exactly the variables its `env` names, never the
//! gateway's own secrets or another member's.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::problem::{FleetDiagnostic, FleetFile, FleetLoc};
use crate::names::spec::fold;
use crate::policy::Law;
use crate::policy::load::unknown_field_help;

/// The file a fleet directory holds besides its members' policies.
pub const FLEET_FILE: &str = "fleet.toml";

/// The longest upstream name and prefix: room for a tool name under the
/// MCP limit of 128 characters.
pub const MAX_NAME: usize = 32;

type Text = Spanned<String>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFleet {
    upstreams: Spanned<BTreeMap<Text, Spanned<RawUpstream>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUpstream {
    policy: Text,
    prefix: Text,
    command: Option<Spanned<Vec<Text>>>,
    #[serde(default)]
    env: Vec<Text>,
    url: Option<Text>,
    ca_file: Option<Text>,
    bearer_env: Option<Text>,
    bearer_file: Option<Text>,
    #[serde(default)]
    header_env: Vec<Text>,
}

/// One upstream, as `fleet.toml` declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub prefix: String,
    /// The policy directory, relative to the fleet's directory.
    pub policy: String,
    pub endpoint: Endpoint,
    /// Where the table's name, the prefix and the policy are written.
    pub at: Spans,
}

/// Positions in `fleet.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spans {
    pub name: Range<usize>,
    pub prefix: Range<usize>,
    pub policy: Range<usize>,
}

/// How an upstream is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// A program and its arguments, started as a child process.
    Command(Command),
    /// A Streamable HTTP endpoint, with where its trust and credentials come from.
    Http(Http),
}

/// A started upstream: what runs, and what of the gateway's environment it may see.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Command {
    /// The program, then its arguments.
    pub argv: Vec<String>,
    /// The variables passed to it by name, besides the few every child gets.
    pub env: Vec<String>,
}

/// A Streamable HTTP upstream: the URL, and only the names of its secrets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Http {
    pub url: String,
    /// Also trust the certificate authorities in this PEM file.
    pub ca_file: Option<String>,
    /// The environment variable holding a bearer token.
    pub bearer_env: Option<String>,
    /// The file holding a bearer token.
    pub bearer_file: Option<String>,
    /// `HEADER=NAME`: send HEADER with the value of the variable NAME.
    pub header_env: Vec<String>,
}

/// Parse `fleet.toml`, or report every problem of its shape (M001).
pub fn parse(text: &str) -> Result<Vec<Entry>, Vec<FleetDiagnostic>> {
    let at = |span: Range<usize>| FleetLoc { file: FleetFile::Config, span };
    if text.trim().is_empty() {
        let d = FleetDiagnostic::new(Law::M001, at(0..0), format!("{FLEET_FILE} is empty")).help(
            "declare each upstream as an `[upstreams.NAME]` table with `policy`, `prefix`, and `command` or `url`",
        );
        return Err(vec![d]);
    }
    let raw: RawFleet = toml::from_str(text).map_err(|error| {
        let span = error.span().unwrap_or(0..0);
        let message = error.message().trim();
        let first = message.lines().next().unwrap_or("invalid TOML").to_owned();
        // The allowed keys come from serde's message, as for a policy file: never a second list here.
        let help = unknown_field_help(message).unwrap_or_else(|| {
            if first.starts_with("missing field") {
                "every upstream needs `policy` (its gateway policy directory) and `prefix` (what its names are \
                 served under)"
                    .to_owned()
            } else {
                "fix the TOML at this position; the fleet must parse before any other law is checked".to_owned()
            }
        });
        vec![FleetDiagnostic::new(Law::M001, at(span), format!("{FLEET_FILE}: {first}")).help(help)]
    })?;
    let mut entries: Vec<_> = raw.upstreams.get_ref().iter().collect();
    entries.sort_by_key(|(name, _)| name.span().start);
    let mut problems = Vec::new();
    if entries.is_empty() {
        problems.push(
            FleetDiagnostic::new(Law::M001, at(raw.upstreams.span()), format!("{FLEET_FILE} declares no upstream"))
                .help("declare at least one `[upstreams.NAME]` table"),
        );
    }
    let mut out = Vec::new();
    for (name, upstream) in entries {
        let upstream = upstream.get_ref();
        let before = problems.len();
        check_word(name, "upstream name", &mut problems);
        check_prefix(&upstream.prefix, &mut problems);
        let policy = upstream.policy.get_ref();
        if policy.trim().is_empty() || std::path::Path::new(policy).is_absolute() {
            let title = if policy.trim().is_empty() {
                "an upstream's `policy` is empty".to_owned()
            } else {
                format!("the policy directory `{}` is absolute", policy.escape_debug())
            };
            problems.push(
                FleetDiagnostic::new(Law::M001, at(upstream.policy.span()), title)
                    .help("name the upstream's gateway policy directory relative to fleet.toml, so the fleet reads the same wherever it is checked out"),
            );
        }
        let endpoint = endpoint(name, upstream, &mut problems);
        if let (Some(endpoint), true) = (endpoint, problems.len() == before) {
            out.push(Entry {
                name: name.get_ref().clone(),
                prefix: upstream.prefix.get_ref().clone(),
                policy: upstream.policy.get_ref().clone(),
                endpoint,
                at: Spans { name: name.span(), prefix: upstream.prefix.span(), policy: upstream.policy.span() },
            });
        }
    }
    if problems.is_empty() { Ok(out) } else { Err(problems) }
}

/// An upstream's name: it names the upstream in errors and audit lines.
fn check_word(word: &Text, what: &str, out: &mut Vec<FleetDiagnostic>) {
    let value = word.get_ref();
    let fine = (1..=MAX_NAME).contains(&value.len())
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
    if !fine {
        out.push(
            FleetDiagnostic::new(
                Law::M001,
                FleetLoc { file: FleetFile::Config, span: word.span() },
                format!("the {what} `{}` is not 1 to {MAX_NAME} letters, digits, `_` or `-`", value.escape_debug()),
            )
            .help(format!("rename it with only ASCII letters, digits, `_` and `-`, at most {MAX_NAME} of them")),
        );
    }
}

/// A prefix goes in front of names a client folds (case, `-`, `_`, `.`, a
/// leading `m1nd.`), so it must survive folding: a prefix that folds to
/// nothing, or to the `m1nd` a client's spelling loses, would not separate
/// anything.
fn check_prefix(prefix: &Text, out: &mut Vec<FleetDiagnostic>) {
    let value = prefix.get_ref();
    let at = FleetLoc { file: FleetFile::Config, span: prefix.span() };
    let allowed = value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    let problem = if !(1..=MAX_NAME).contains(&value.len()) || !allowed {
        Some(format!("the prefix `{}` is not 1 to {MAX_NAME} of `A-Z a-z 0-9 _ - .`", value.escape_debug()))
    } else if value.get(..4).is_some_and(|head| head.eq_ignore_ascii_case("m1nd"))
        || "m1nd".starts_with(&value.to_ascii_lowercase())
    {
        Some(format!(
            "the prefix `{value}` can make a served name start with `m1nd`, which a client's spelling may drop"
        ))
    } else if fold(value).is_empty() {
        Some(format!("the prefix `{value}` holds no letter or digit, so it folds to nothing"))
    } else {
        None
    };
    if let Some(title) = problem {
        out.push(FleetDiagnostic::new(Law::M001, at, title).help(
            "a prefix is a short word of letters and digits, usually ending in `_` (`git_`, `fs_`): \
             tool and prompt names are served as prefix + name, and a client may spell them in any case",
        ));
    }
}

fn endpoint(name: &Text, upstream: &RawUpstream, out: &mut Vec<FleetDiagnostic>) -> Option<Endpoint> {
    let at = |span| FleetLoc { file: FleetFile::Config, span };
    let http_only = [&upstream.ca_file, &upstream.bearer_env, &upstream.bearer_file]
        .into_iter()
        .flatten()
        .map(|t| t.span())
        .chain(upstream.header_env.iter().map(Spanned::span))
        .next();
    if let (Some(first), None) = (upstream.env.first(), &upstream.command) {
        out.push(
            FleetDiagnostic::new(Law::M001, at(first.span()), "`env` for an upstream that is not started as a command")
                .help(
                    "`env` names variables passed to an upstream the gateway starts; an upstream at a `url` \
                       gets its credentials through `bearer_env`, `bearer_file` or `header_env`",
                ),
        );
        return None;
    }
    if let Some(bad) = upstream.env.iter().find(|name| !is_variable_name(name.get_ref())) {
        out.push(FleetDiagnostic::new(Law::M001, at(bad.span()), "an `env` entry is not the name of a variable").help(
            "write variable names only (letters, digits and `_`, not starting with a digit), \
                       never `NAME=value`: a value set for the upstream goes in its `command`, \
                       as `command = [\"env\", \"NAME=value\", \"program\"]`",
        ));
        return None;
    }
    match (&upstream.command, &upstream.url) {
        (Some(command), None) => {
            if let Some(span) = http_only {
                out.push(
                    FleetDiagnostic::new(Law::M001, at(span), "a credential or CA file for an upstream started as a command")
                        .help("`ca_file`, `bearer_env`, `bearer_file` and `header_env` go with `url`; a command gets the variables its `env` names"),
                );
                return None;
            }
            let parts: Vec<String> = command.get_ref().iter().map(|p| p.get_ref().clone()).collect();
            if parts.first().is_none_or(|program| program.trim().is_empty()) {
                out.push(
                    FleetDiagnostic::new(Law::M001, at(command.span()), "an upstream's `command` names no program")
                        .help("write the program first, then its arguments: `command = [\"uvx\", \"mcp-server-git\"]`"),
                );
                return None;
            }
            let env = upstream.env.iter().map(|t| t.get_ref().clone()).collect();
            Some(Endpoint::Command(Command { argv: parts, env }))
        }
        (None, Some(url)) => {
            let value = url.get_ref();
            if !(value.starts_with("https://") || value.starts_with("http://")) {
                out.push(
                    FleetDiagnostic::new(Law::M001, at(url.span()), "an upstream's `url` is not http:// or https://")
                        .help("write the Streamable HTTP endpoint, e.g. `url = \"https://mcp.example.org/mcp\"`"),
                );
                return None;
            }
            let text = |t: &Option<Text>| t.as_ref().map(|t| t.get_ref().clone());
            Some(Endpoint::Http(Http {
                url: value.clone(),
                ca_file: text(&upstream.ca_file),
                bearer_env: text(&upstream.bearer_env),
                bearer_file: text(&upstream.bearer_file),
                header_env: upstream.header_env.iter().map(|t| t.get_ref().clone()).collect(),
            }))
        }
        (Some(_), Some(url)) => {
            out.push(
                FleetDiagnostic::new(Law::M001, at(url.span()), "an upstream has both `command` and `url`")
                    .help("an upstream is either started (`command`) or reached (`url`): keep one"),
            );
            None
        }
        (None, None) => {
            out.push(
                FleetDiagnostic::new(
                    Law::M001,
                    at(name.span()),
                    format!("upstream `{}` has neither `command` nor `url`", name.get_ref()),
                )
                .help("add `command = [\"program\", \"arg\"]` to start it, or `url = \"https://…/mcp\"` to reach it"),
            );
            None
        }
    }
}

/// A portable environment variable name: what `env = [...]` may hold.
fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn titles(text: &str) -> Vec<String> {
        parse(text).expect_err("a problem").into_iter().map(|d| d.title).collect()
    }

    #[test]
    fn upstreams_are_read_in_source_order_with_their_endpoints() {
        let entries = parse(
            "[upstreams.zeta]\npolicy = \"z\"\nprefix = \"z_\"\ncommand = [\"run\", \"--flag\"]\n\n\
             [upstreams.alpha]\npolicy = \"a\"\nprefix = \"a_\"\nurl = \"http://127.0.0.1:1/mcp\"\nbearer_env = \"T\"\n",
        )
        .expect("a sound fleet");
        assert_eq!(entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["zeta", "alpha"]);
        assert_eq!(
            entries[0].endpoint,
            Endpoint::Command(Command { argv: vec!["run".into(), "--flag".into()], env: vec![] })
        );
        let Endpoint::Http(http) = &entries[1].endpoint else { panic!("an HTTP upstream") };
        assert_eq!((http.url.as_str(), http.bearer_env.as_deref()), ("http://127.0.0.1:1/mcp", Some("T")));
    }

    #[test]
    fn every_shape_problem_is_reported_not_just_the_first() {
        let found = titles(
            "[upstreams.\"bad name\"]\npolicy = \"p\"\nprefix = \"_\"\ncommand = [\"x\"]\n\n\
             [upstreams.b]\npolicy = \"\"\nprefix = \"M1nd_\"\n\n\
             [upstreams.c]\npolicy = \"c\"\nprefix = \"c_\"\ncommand = [\"\"]\nurl = \"ftp://x\"\n\n\
             [upstreams.d]\npolicy = \"d\"\nprefix = \"d_\"\ncommand = [\"x\"]\nbearer_env = \"T\"\n",
        );
        assert_eq!(found.len(), 7, "{found:#?}");
        assert!(found[0].starts_with("the upstream name `bad name`"), "{found:#?}");
        assert!(found[1].contains("folds to nothing"), "{found:#?}");
        assert!(found.iter().any(|t| t.contains("start with `m1nd`")), "{found:#?}");
        assert!(found.iter().any(|t| t == "an upstream's `policy` is empty"), "{found:#?}");
        assert!(found.iter().any(|t| t == "upstream `b` has neither `command` nor `url`"), "{found:#?}");
        assert!(found.iter().any(|t| t == "an upstream has both `command` and `url`"), "{found:#?}");
        assert!(found.iter().any(|t| t.starts_with("a credential or CA file")), "{found:#?}");
    }

    #[test]
    fn env_names_variables_for_a_started_upstream_only() {
        let entries =
            parse("[upstreams.a]\npolicy = \"a\"\nprefix = \"a_\"\ncommand = [\"x\"]\nenv = [\"GIT_DIR\", \"_X1\"]\n")
                .expect("a sound fleet");
        let Endpoint::Command(command) = &entries[0].endpoint else { panic!("a command") };
        assert_eq!(command.env, ["GIT_DIR", "_X1"]);
        let url = titles("[upstreams.a]\npolicy = \"a\"\nprefix = \"a_\"\nurl = \"https://h/mcp\"\nenv = [\"T\"]\n");
        assert_eq!(url, ["`env` for an upstream that is not started as a command"]);
        for bad in ["TOKEN=abc", "", "1X", "A-B", "A B"] {
            let text =
                format!("[upstreams.a]\npolicy = \"a\"\nprefix = \"a_\"\ncommand = [\"x\"]\nenv = [\"{bad}\"]\n");
            let problems = parse(&text).unwrap_err();
            assert_eq!(problems.len(), 1, "{bad:?}");
            assert_eq!(problems[0].title, "an `env` entry is not the name of a variable", "{bad:?}");
            assert!(problems[0].help.contains("never `NAME=value`"), "{bad:?}");
        }
    }

    #[test]
    fn junk_gets_a_positioned_m001_that_names_the_allowed_keys() {
        let problems = parse("[upstreams.a]\npolicy = \"a\"\nprefix = \"a_\"\ncomand = [\"x\"]\n").unwrap_err();
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].law, Law::M001);
        assert!(problems[0].title.starts_with("fleet.toml: unknown field `comand`"), "{}", problems[0].title);
        assert!(problems[0].help.starts_with("did you mean `command`?"), "{}", problems[0].help);
        assert_eq!(titles("  \n"), ["fleet.toml is empty"]);
        // A prefix that begins `m1nd` with the name after it is refused, as one that starts with it.
        let m1n = titles("[upstreams.a]\npolicy = \"a\"\nprefix = \"M1n\"\ncommand = [\"x\"]\n");
        assert_eq!(
            m1n,
            ["the prefix `M1n` can make a served name start with `m1nd`, which a client's spelling may drop"]
        );
        assert_eq!(titles("[upstreams]\n"), ["fleet.toml declares no upstream"]);
    }
}
