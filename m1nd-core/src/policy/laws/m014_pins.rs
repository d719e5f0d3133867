//! M014: pins are well-formed and name what their tool declares.
//!
//! An argument pin (`[verbs.NAME.pins]`) generalises the status-only rule: it
//! scopes one argument of one tool to exact values (`allowed`) or to
//! directories (`under`), in every session. A pin on an argument the tool
//! does not take would guard nothing, so it is an error, with "did you mean".
//! `under` holds absolute, normalised directories: the guard compares
//! canonical paths, and a pin that is itself relative or full of `..` would
//! be compared against nothing a person reviewed. An `under` pin refuses a
//! file with more than one hard link unless it says `hard_links = true`; the
//! option means nothing next to `allowed`, so it is an error there rather than
//! a switch that looks set and does nothing. A definition pin is
//! `blake3:` and 64 lower-case hex digits (what `m1nd policy import` writes).
//!
//! Pins are enforced by `m1nd gateway`; m1nd's own server does not read them,
//! so a cockpit policy that carries one is refused rather than left unenforced.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::profile::Profile;
use super::super::raw::{PinDef, Text, in_source_order};
use super::super::source::PolicyFile;
use crate::names::suggest;
use crate::primitives::{DIGEST_PREFIX, is_digest};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (name, verb) in cx.verbs_in_order() {
        let def = verb.get_ref();
        let verb = name.get_ref();
        if cx.raw.profile == Profile::Cockpit {
            let pinned = in_source_order(&def.pins).into_iter().map(|(k, _)| k).chain(def.definition.as_ref());
            for at in pinned {
                out.push(
                    Diagnostic::new(Law::M014, loc(PolicyFile::Tools, at), format!("`{verb}` carries a gateway pin in a cockpit policy"))
                        .label("m1nd's own server does not enforce this")
                        .help("pins are enforced by `m1nd gateway --policy DIR`; for m1nd's verbs, scope an argument with `status_only` in read_only_denied.toml"),
                );
            }
            continue;
        }
        let takes: Vec<&str> = def.requires.iter().chain(&def.accepts).map(|a| a.get_ref().as_str()).collect();
        for (argument, pin) in in_source_order(&def.pins) {
            let arg = argument.get_ref();
            if !takes.contains(&arg.as_str()) {
                let help = match suggest(arg, takes.iter().copied()) {
                    Some(best) => {
                        format!("did you mean `{best}`? a pin must name an argument in `{verb}`'s requires or accepts")
                    }
                    None if takes.is_empty() => format!("`{verb}` takes no arguments: remove the pin"),
                    None => format!("pin one of `{verb}`'s arguments: {}", quoted(&takes)),
                };
                out.push(
                    Diagnostic::new(
                        Law::M014,
                        loc(PolicyFile::Tools, argument),
                        format!("`{verb}` pins `{arg}`, an argument it does not take"),
                    )
                    .label("not in requires or accepts")
                    .help(help),
                );
            }
            rule(verb, argument, pin.get_ref(), out);
        }
        if let Some(digest) = &def.definition {
            definition_pin(verb, digest, out);
        }
    }
    // A cockpit policy's surfaces are refused whole by M001.
    if cx.raw.profile == Profile::Gateway {
        let tools = &cx.raw.tools;
        for table in [&tools.prompts, &tools.resources, &tools.templates] {
            for (key, def) in in_source_order(table) {
                if let Some(digest) = &def.get_ref().definition {
                    definition_pin(key.get_ref(), digest, out);
                }
            }
        }
    }
}

/// A definition pin is a blake3 digest, for a tool or any other surface.
fn definition_pin(what: &str, digest: &Text, out: &mut Vec<Diagnostic>) {
    if !is_digest(digest.get_ref()) {
        out.push(
            Diagnostic::new(Law::M014, loc(PolicyFile::Tools, digest), format!("`{what}`'s definition pin is not a blake3 digest"))
                .help(format!("write `{DIGEST_PREFIX}` and 64 lower-case hex digits, as `m1nd policy import` does; re-import to get the digest of the definition you reviewed")),
        );
    }
}

fn rule(verb: &str, argument: &Text, pin: &PinDef, out: &mut Vec<Diagnostic>) {
    let arg = argument.get_ref();
    match (&pin.allowed, &pin.under) {
        (Some(_), Some(_)) | (None, None) => out.push(
            Diagnostic::new(
                Law::M014,
                loc(PolicyFile::Tools, argument),
                format!("the pin on `{verb}`'s `{arg}` needs exactly one of `allowed` and `under`"),
            )
            .help(
                "use `allowed = [\"...\"]` for exact values, or `under = [\"/abs/dir\"]` for paths inside directories \
                 (add `hard_links = true` to an `under` pin only to let files with several hard links through)",
            ),
        ),
        (Some(list), None) | (None, Some(list)) if list.get_ref().is_empty() => out.push(
            Diagnostic::new(
                Law::M014,
                loc(PolicyFile::Tools, list),
                format!("the pin on `{verb}`'s `{arg}` allows nothing"),
            )
            .help("list at least one value, or deny the tool instead of pinning it shut"),
        ),
        (None, Some(dirs)) => {
            for dir in dirs.get_ref() {
                if let Some(problem) = directory_problem(dir.get_ref()) {
                    out.push(
                        Diagnostic::new(Law::M014, loc(PolicyFile::Tools, dir), format!("`{}` is not an absolute, normalised directory: {problem}", dir.get_ref()))
                            .help("write the directory as an absolute path without `.`, `..`, `//` or a trailing `/`; the guard compares canonical paths against it"),
                    );
                }
            }
        }
        (Some(_), None) => {}
    }
    if let (Some(_), Some(hard_links)) = (&pin.allowed, &pin.hard_links) {
        out.push(
            Diagnostic::new(
                Law::M014,
                loc(PolicyFile::Tools, hard_links),
                format!("the pin on `{verb}`'s `{arg}` sets `hard_links`, which only an `under` pin reads"),
            )
            .label("an `allowed` pin compares values, not files")
            .help("remove `hard_links`; it lets a path pin (`under`) pass files with more than one hard link"),
        );
    }
}

/// Why a pinned directory is not in the form the guard compares against.
pub fn directory_problem(dir: &str) -> Option<&'static str> {
    if !dir.starts_with('/') {
        return Some("it is relative");
    }
    if dir.contains('\0') {
        return Some("it holds a NUL byte");
    }
    if dir.len() > 1 && dir.ends_with('/') {
        return Some("it ends with `/`");
    }
    let mut parts = dir.split('/').skip(1);
    if dir != "/" && parts.any(|p| p.is_empty() || p == "." || p == "..") {
        return Some("it holds an empty, `.` or `..` component");
    }
    None
}

/// `blake3:` and 64 lower-case hex digits.
fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_must_be_absolute_and_normalised() {
        assert_eq!(directory_problem("/srv/repo"), None);
        assert_eq!(directory_problem("/"), None);
        for bad in ["srv/repo", "/srv/repo/", "/srv//repo", "/srv/./repo", "/srv/../etc", "", "/srv/\0"] {
            assert!(directory_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn digests_are_blake3_hex() {
        let hex = "0123456789abcdef".repeat(4);
        assert!(is_digest(&format!("blake3:{hex}")));
        assert!(!is_digest(&format!("blake3:{}", hex.to_uppercase())));
        assert!(!is_digest(&format!("sha256:{hex}")));
        assert!(!is_digest("blake3:00"));
    }
}
