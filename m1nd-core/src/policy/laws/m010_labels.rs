//! M010: labels are static text. Their only placeholders are the facet's
//! numeric ones, every facet condition has a label, and no unknown condition
//! is named. Door text is static too, and a door's link is a static relative
//! path or loopback URL ([`crate::links`]), on a door only. Because a label can only interpolate
//! numbers the runtime computes, no graph or repo string can ever reach one.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::raw::Text;
use super::super::source::PolicyFile;
use crate::facets::Facet;
use crate::names::{did_you_mean, suggest};

/// The longest label, in characters, before placeholders are filled.
pub const MAX_LABEL_CHARS: usize = 64;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for slot in cx.slots() {
        let n = *slot.n.get_ref();
        if let Some(door) = &slot.door {
            static_text(door, &[], &format!("slot {n}'s door text"), out);
        }
        if let Some(link) = &slot.link {
            door_link(n, slot.door.is_some(), link, out);
        }
        let Some(facet) = Facet::from_key(slot.key.get_ref()) else {
            let keys = Facet::ALL.map(Facet::key);
            out.push(
                Diagnostic::new(
                    Law::M010,
                    loc(PolicyFile::Cockpit, &slot.key),
                    format!("slot {n} shows `{}`, which is not a facet", slot.key.get_ref()),
                )
                .help({
                    let listed = format!("the facets are {}", keys.join(", "));
                    did_you_mean(suggest(slot.key.get_ref(), keys), &listed, || listed.clone())
                }),
            );
            continue;
        };
        let Some(labels) = &slot.label else {
            out.push(
                Diagnostic::new(Law::M010, loc(PolicyFile::Cockpit, &slot.key), format!("slot {n} has no labels"))
                    .help(format!(
                        "add `label = {{ {} }}`",
                        facet.conditions().iter().map(|c| format!("{} = \"…\"", c.name)).collect::<Vec<_>>().join(", ")
                    )),
            );
            continue;
        };
        let missing: Vec<&str> = facet
            .conditions()
            .iter()
            .map(|c| c.name)
            .filter(|c| !labels.get_ref().keys().any(|k| k.get_ref() == c))
            .collect();
        if !missing.is_empty() {
            out.push(
                Diagnostic::new(
                    Law::M010,
                    loc(PolicyFile::Cockpit, labels),
                    format!(
                        "slot {n} ({}) has no label for {}",
                        facet.key(),
                        missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
                    ),
                )
                .help("every condition of the facet needs a label, so the slot never goes blank when state changes"),
            );
        }
        for (condition, text) in labels.get_ref() {
            match facet.condition(condition.get_ref()) {
                None => {
                    let names: Vec<&str> = facet.conditions().iter().map(|c| c.name).collect();
                    out.push(
                        Diagnostic::new(
                            Law::M010,
                            loc(PolicyFile::Cockpit, condition),
                            format!("`{}` is not a condition of facet `{}`", condition.get_ref(), facet.key()),
                        )
                        .help({
                            let listed = format!("its conditions are {}", names.join(", "));
                            did_you_mean(suggest(condition.get_ref(), names.iter().copied()), &listed, || {
                                listed.clone()
                            })
                        }),
                    );
                }
                Some(c) => static_text(text, c.placeholders, &format!("slot {n}'s `{}` label", c.name), out),
            }
        }
    }
}

/// A door's link: on a door, and static in shape.
fn door_link(n: i64, on_door: bool, link: &Text, out: &mut Vec<Diagnostic>) {
    let at = loc(PolicyFile::Cockpit, link);
    if !on_door {
        out.push(
            Diagnostic::new(Law::M010, at.clone(), format!("slot {n} has a link but is not a door"))
                .label("only a door points elsewhere")
                .help("remove `link`, or make the slot a door (`door = \"…\"`) whose text says where it leads"),
        );
    }
    if let Err(why) = crate::links::check_link(link.get_ref()) {
        out.push(
            Diagnostic::new(Law::M010, at, format!("slot {n}'s link is not a static link: {why}"))
                .label("not a static relative path or loopback URL")
                .help("write a fixed path on this server, e.g. \"/tray\", or a loopback URL; links are never built from state"),
        );
    }
}

/// Text with no control characters, bounded length, and only `allowed` placeholders.
fn static_text(text: &Text, allowed: &[&str], what: &str, out: &mut Vec<Diagnostic>) {
    let s = text.get_ref();
    let at = loc(PolicyFile::Cockpit, text);
    if s.trim().is_empty() {
        out.push(
            Diagnostic::new(Law::M010, at.clone(), format!("{what} is empty")).help("write a short static phrase"),
        );
    }
    if s.chars().any(char::is_control) {
        out.push(
            Diagnostic::new(Law::M010, at.clone(), format!("{what} contains a control character"))
                .help("labels are one line of plain text: remove newlines, tabs and escapes"),
        );
    }
    if s.chars().count() > MAX_LABEL_CHARS {
        out.push(
            Diagnostic::new(
                Law::M010,
                at.clone(),
                format!("{what} is {} characters; the limit is {MAX_LABEL_CHARS}", s.chars().count()),
            )
            .help("a label is read at a glance: shorten it"),
        );
    }
    let mut rest = s.as_str();
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            out.push(unbalanced(&at, what));
            return;
        }
        let Some(close) = rest[open..].find('}') else {
            out.push(unbalanced(&at, what));
            return;
        };
        let name = &rest[open + 1..open + close];
        if !allowed.contains(&name) {
            let help = if allowed.is_empty() {
                "this text is static: it may not interpolate anything".to_owned()
            } else {
                let braced: Vec<String> = allowed.iter().map(|a| format!("{{{a}}}")).collect();
                let listed = braced.join(", ");
                did_you_mean(
                    suggest(&format!("{{{name}}}"), braced.iter().map(String::as_str)),
                    &format!("the placeholders here are {listed}, all numbers"),
                    || format!("the placeholders here are {listed}, all numbers; state strings never reach a label"),
                )
            };
            out.push(
                Diagnostic::new(
                    Law::M010,
                    at.clone(),
                    format!("{what} uses placeholder `{{{name}}}`, which it may not"),
                )
                .help(help),
            );
        }
        rest = &rest[open + close + 1..];
    }
}

fn unbalanced(at: &super::super::source::Loc, what: &str) -> Diagnostic {
    Diagnostic::new(Law::M010, at.clone(), format!("{what} has an unbalanced brace"))
        .help("placeholders are written `{name}`; braces are not allowed otherwise")
}
