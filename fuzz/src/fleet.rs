//! A fleet directory through `m1nd_policy::gateway::fleet::compile_fleet`:
//! `fleet.toml`'s parser (M001), every member's gateway policy, and M017.
//!
//! The input is `fleet.toml`'s text, then each member's policy directory
//! after a line `#% <directory>` (a TOML comment, like the policy markers),
//! written as a `policy` input ([`crate::policy_dir`]). Each upstream gets
//! the last section named by its `policy`, as `FleetSources::read_dir`
//! reads a directory; one that names no section gets a directory with no
//! file.
//!
//! Every problem of a refused fleet:
//! 1. has a headline `[<law>] <title>` on one line, and a title, label,
//!    help and notes that are display-safe (a fleet's names and TOML are
//!    the fleet author's text, quoted back to a terminal or a CI log);
//! 2. renders starting with that headline, and has a position.
//!
//! An accepted fleet holds one member per `[upstreams.NAME]` table, in order,
//! and (checked here pair by pair, not with M017's own code):
//! 3. names are unique, and names and prefixes are the words M001 allows;
//! 4. no two served tool names (prefix + name, any two members, or one
//!    member twice) fold together, nor two prompt names, and none is over
//!    128 bytes;
//! 5. no resource URI is declared by two members, nor matched by another
//!    member's template;
//! 6. an HTTP endpoint's URL is `http://` or `https://`.

use std::collections::HashMap;

use m1nd_policy::gateway::fleet::{Endpoint, FleetProblem, FleetSources, compile_fleet};
use m1nd_policy::gateway::uri_template::Template;
use m1nd_policy::names::spec::fold;
use m1nd_policy::policy::{Declared, ReadProblem, gateway_declarations};

use crate::is_display_safe;

/// The line that opens a member's policy directory.
pub const MEMBER: &str = "#% ";

/// A member's section: the directory its marker names, and its bytes.
pub type Section<'a> = (&'a [u8], &'a [u8]);

/// `fleet.toml`'s bytes and each member section, in input order.
pub fn split(data: &[u8]) -> (&[u8], Vec<Section<'_>>) {
    let mut sections: Vec<(&[u8], usize, usize)> = Vec::new();
    let mut config_end = data.len();
    let mut line_start = 0;
    while line_start < data.len() {
        let line_end = data[line_start..].iter().position(|b| *b == b'\n').map_or(data.len(), |p| line_start + p);
        if let Some(name) = data[line_start..line_end].strip_prefix(MEMBER.as_bytes()) {
            let name = name.strip_suffix(b"\r").unwrap_or(name);
            match sections.last_mut() {
                Some(last) => last.2 = line_start,
                None => config_end = line_start,
            }
            let body = (line_end + 1).min(data.len());
            sections.push((name, body, data.len()));
        }
        line_start = line_end + 1;
    }
    (&data[..config_end], sections.into_iter().map(|(name, start, end)| (name, &data[start..end])).collect())
}

/// One input holding `fleet.toml` and the members' directories: what the seeder writes.
pub fn join<'a>(config: &str, members: impl IntoIterator<Item = (&'a str, Vec<u8>)>) -> Vec<u8> {
    let mut out = config.as_bytes().to_vec();
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    for (name, policy) in members {
        out.extend_from_slice(format!("{MEMBER}{name}\n").as_bytes());
        out.extend_from_slice(&policy);
    }
    out
}

/// The input as `FleetSources::read_dir` reads a directory, named `fuzz/...`.
pub fn sources(data: &[u8]) -> FleetSources {
    let (config, sections) = split(data);
    let config = String::from_utf8(config.to_vec())
        .map_err(|e| ReadProblem::NotUtf8 { valid_up_to: e.utf8_error().valid_up_to() });
    let members = match config.as_deref().map(m1nd_policy::gateway::fleet::config::parse) {
        Ok(Ok(entries)) => entries
            .iter()
            .map(|e| {
                let section = sections.iter().rev().find(|(name, _)| *name == e.policy.as_bytes());
                crate::policy_dir::sources_in(&format!("fuzz/{}", e.policy), section.map_or(&[][..], |s| s.1))
            })
            .collect(),
        _ => Vec::new(),
    };
    FleetSources::from_parts("fuzz", config, members)
}

pub fn check(data: &[u8]) {
    let sources = sources(data);
    match compile_fleet(&sources) {
        Err(problems) => {
            assert!(!problems.is_empty(), "a fleet refused without a reason");
            for problem in &problems {
                judge(problem, &sources);
            }
        }
        Ok(fleet) => {
            let declared: Vec<Declared> = sources
                .members()
                .iter()
                .map(|m| gateway_declarations(m).expect("an accepted member's policy parses"))
                .collect();
            assert_eq!(fleet.members.len(), declared.len(), "one member per policy read");
            let mut names = HashMap::new();
            for member in &fleet.members {
                let entry = &member.entry;
                assert!(word(&entry.name, false), "upstream name {:?}", entry.name);
                assert!(word(&entry.prefix, true) && !fold(&entry.prefix).is_empty(), "prefix {:?}", entry.prefix);
                let lower = entry.prefix.to_ascii_lowercase();
                assert!(!lower.starts_with("m1nd") && !"m1nd".starts_with(&lower), "prefix {:?}", entry.prefix);
                assert!(names.insert(entry.name.clone(), ()).is_none(), "upstream `{}` twice", entry.name);
                match &entry.endpoint {
                    Endpoint::Http(http) => {
                        assert!(http.url.starts_with("http://") || http.url.starts_with("https://"), "{:?}", http.url)
                    }
                    Endpoint::Command(..) => {}
                }
            }
            let prefixes: Vec<&str> = fleet.members.iter().map(|m| &*m.entry.prefix).collect();
            served_apart(&prefixes, &declared, |d| &d.tools, "tool");
            served_apart(&prefixes, &declared, |d| &d.prompts, "prompt");
            addresses_apart(&declared);
            let _ = fleet.digest();
        }
    }
}

fn judge(problem: &FleetProblem, sources: &FleetSources) {
    let (headline, texts): (String, Vec<&str>) = match problem {
        FleetProblem::Fleet(d) => {
            let notes = d.related.iter().map(|(_, note)| note.as_str());
            (format!("[{}] {}", d.law, d.title), [&*d.title, &*d.label, &*d.help].into_iter().chain(notes).collect())
        }
        FleetProblem::Member { diagnostic: d, .. } => {
            let notes = d.related.iter().map(|(_, note)| note.as_str());
            (d.headline(), [&*d.title, &*d.label, &*d.help].into_iter().chain(notes).collect())
        }
    };
    assert!(headline.starts_with(&format!("[{}] ", problem.law().code())), "{headline:?}");
    assert!(!headline.chars().any(crate::unicode::breaks_text), "a headline of more than one line: {headline:?}");
    for text in texts {
        assert!(is_display_safe(text), "a diagnostic's text is not display-safe: {text:?}");
    }
    assert!(problem.render(sources).starts_with(&headline), "the rendering does not start with {headline:?}");
    let _ = problem.position(sources);
}

/// M001's words: 1 to 32 ASCII letters, digits, `_`, `-` (and `.` in a prefix).
fn word(text: &str, dot: bool) -> bool {
    (1..=32).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (dot && b == b'.'))
}

fn served_apart(
    prefixes: &[&str],
    declared: &[Declared],
    of: fn(&Declared) -> &m1nd_policy::policy::Names,
    noun: &str,
) {
    let mut seen: HashMap<String, String> = HashMap::new();
    for (prefix, declared) in prefixes.iter().zip(declared) {
        for (name, _) in of(declared) {
            let served = format!("{prefix}{name}");
            assert!(served.len() <= 128, "the {noun} `{served}` is served over 128 bytes");
            if let Some(earlier) = seen.insert(fold(&served), served.clone()) {
                panic!("{noun}s `{earlier}` and `{served}` fold together in an accepted fleet");
            }
        }
    }
}

fn addresses_apart(declared: &[Declared]) {
    for (a, first) in declared.iter().enumerate() {
        for (b, second) in declared.iter().enumerate().filter(|(b, _)| *b != a) {
            for (uri, _) in &second.resources {
                assert!(a > b || !first.resources.iter().any(|(r, _)| r == uri), "members {a} and {b} declare {uri}");
                for (template, _) in &first.templates {
                    let matched = Template::parse(template).is_ok_and(|t| t.matches(uri));
                    assert!(!matched, "member {a}'s template `{template}` matches member {b}'s resource `{uri}`");
                }
            }
        }
    }
}
