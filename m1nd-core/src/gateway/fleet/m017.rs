//! M017: no two upstreams behind one gateway expose names that collide
//! after prefixing.
//!
//! # What it protects
//!
//! A fleet serves one merged list. A client's call names one tool, and the
//! gateway must know which upstream, and which of its policies, decides it.
//! Tool and prompt names are served as prefix + name and folded as any
//! gateway name is (case, `-`, `_`, `.`; see M016), so two members whose
//! prefixed names fold together would make routing a guess: the refusal of
//! one upstream's policy could be answered by the other's. Resource URIs are
//! served as the upstream writes them (they are addresses the upstream's own
//! answers repeat), so a URI, or a URI one member's template matches, must
//! belong to one member only.
//!
//! Each collision is reported at the second member's `prefix` in
//! `fleet.toml` (tools and prompts) or at its declaration (resources),
//! with both declarations shown.

use std::ops::Range;

use super::config::Entry;
use super::problem::{FleetDiagnostic, FleetFile, FleetLoc};
use super::served_name;
use crate::gateway::uri_template::Template;
use crate::names::spec;
use crate::policy::{Declared, Law, Names, PolicyFile};

/// One declared name of one member.
struct Named<'a> {
    member: usize,
    name: &'a str,
    span: Range<usize>,
}

/// Check every member's declarations against every other's.
pub fn check(entries: &[Entry], declared: &[Declared], out: &mut Vec<FleetDiagnostic>) {
    let named = |of: fn(&Declared) -> &Names| -> Vec<Named<'_>> {
        declared
            .iter()
            .enumerate()
            .flat_map(|(member, d)| of(d).iter().map(move |(name, span)| Named { member, name, span: span.clone() }))
            .collect()
    };
    prefixed(entries, &named(|d| &d.tools), ["tool", "tools/call"], out);
    prefixed(entries, &named(|d| &d.prompts), ["prompt", "prompts/get"], out);
    addresses(entries, &named(|d| &d.resources), &named(|d| &d.templates), out);
}

fn declaration(named: &Named<'_>) -> FleetLoc {
    FleetLoc { file: FleetFile::Member(named.member, PolicyFile::Tools), span: named.span.clone() }
}

/// Tools or prompts of two members whose served names fold together.
fn prefixed(entries: &[Entry], names: &[Named<'_>], [noun, request]: [&str; 2], out: &mut Vec<FleetDiagnostic>) {
    let served: Vec<String> = names.iter().map(|n| served_name(&entries[n.member].prefix, n.name)).collect();
    for collision in spec::collisions(served.iter().map(String::as_str)) {
        let (first, second) = (&names[collision.first], &names[collision.second]);
        // Two names of one member can collide too: folding strips a leading
        // `m1nd.` only at the start of a name, and the prefix moves where the
        // name starts (`m1nd_x` and `m1ndx` differ, `git_m1nd_x` and
        // `git_m1ndx` do not). The member's own M016 passed before this runs.
        let (a, b) = (&entries[first.member], &entries[second.member]);
        out.push(
            FleetDiagnostic::new(
                Law::M017,
                FleetLoc { file: FleetFile::Config, span: b.at.prefix.clone() },
                if first.member == second.member {
                    format!(
                        "upstream `{}` serves {noun}s `{}` and `{}`, which fold to the same name `{}` once prefixed",
                        a.name, served[collision.first], served[collision.second], collision.folded
                    )
                } else if served[collision.first] == served[collision.second] {
                    format!(
                        "upstreams `{}` and `{}` both serve a {noun} named `{}`",
                        a.name, b.name, served[collision.first]
                    )
                } else {
                    format!(
                        "upstreams `{}` and `{}` serve {noun}s `{}` and `{}`, which fold to the same name `{}`",
                        a.name, b.name, served[collision.first], served[collision.second], collision.folded
                    )
                },
            )
            .label(format!("`{}` + `{}` is served as `{}`", b.prefix, second.name, served[collision.second]))
            .related(declaration(first), format!("`{}`'s {noun} `{}`", a.name, first.name))
            .related(declaration(second), format!("`{}`'s {noun} `{}`", b.name, second.name))
            .help(format!(
                "give `{}` a prefix no other upstream's names start with, or leave the {noun} out of one policy: a \
                 client's `{request}` names one {noun}, and the gateway must know which upstream decides it",
                b.name
            )),
        );
    }
}

/// Resource URIs and templates that two members would both answer for.
fn addresses(entries: &[Entry], resources: &[Named<'_>], templates: &[Named<'_>], out: &mut Vec<FleetDiagnostic>) {
    let parsed: Vec<Option<Template>> = templates.iter().map(|t| Template::parse(t.name).ok()).collect();
    let mut collide = |first: &Named<'_>, second: &Named<'_>, why: String| {
        let (a, b) = (&entries[first.member].name, &entries[second.member].name);
        out.push(
            FleetDiagnostic::new(Law::M017, declaration(second), format!("upstreams `{a}` and `{b}` {why}"))
                .label(format!("declared by `{b}`"))
                .related(declaration(first), format!("declared by `{a}`"))
                .help(
                    "resource URIs are served as the upstream writes them, never prefixed, so each URI must \
                     belong to one upstream: declare it (or a template that matches it) in one policy only",
                ),
        );
    };
    for (i, first) in resources.iter().enumerate() {
        for second in resources[i + 1..].iter().filter(|s| s.member != first.member && s.name == first.name) {
            collide(first, second, format!("both declare the resource `{}`", first.name));
        }
    }
    for (t, template) in templates.iter().enumerate() {
        let Some(parsed) = &parsed[t] else { continue };
        for resource in resources.iter().filter(|r| r.member != template.member && parsed.matches(r.name)) {
            let why = format!("both answer for `{}`, which the template `{}` matches", resource.name, template.name);
            let (first, second) =
                if resource.member < template.member { (resource, template) } else { (template, resource) };
            collide(first, second, why);
        }
    }
    for (i, first) in templates.iter().enumerate() {
        for second in templates[i + 1..].iter().filter(|s| s.member != first.member) {
            let (head_a, head_b) = (literal_head(first.name), literal_head(second.name));
            if head_a.starts_with(head_b) || head_b.starts_with(head_a) {
                let why = format!(
                    "declare templates `{}` and `{}`, which may match the same URI (one's text before its first \
                     variable begins the other's)",
                    first.name, second.name
                );
                collide(first, second, why);
            }
        }
    }
}

/// A template's text before its first variable: two templates whose heads
/// do not start one another can never match the same URI.
fn literal_head(template: &str) -> &str {
    template.split('{').next().unwrap_or(template)
}
