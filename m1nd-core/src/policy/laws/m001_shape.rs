//! M001 (after parsing): values whose type is right but whose form is not.
//!
//! Names are held to the rule of the policy's kind: in m1nd's own (cockpit)
//! policy a verb is canonical snake_case; in a gateway policy it is the
//! upstream's exact name, anything the MCP specification allows.

use super::super::arg_types::{Site, resolve};
use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::raw::{Text, VerbDef, in_source_order};
use super::super::source::PolicyFile;
use crate::names::{canonical, is_canonical_spelling, spec};

use crate::table::SCHEMA;

use super::super::profile::Profile;

/// An argument name as an upstream schema may spell it: ASCII letters,
/// digits, `_` and `-`, starting with a letter or `_`.
fn is_plain_argument(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    super::m001_mode::check(cx, out);
    super::m001_client::check(cx, out);
    super::m001_surfaces::check(cx, out);
    let schema = &cx.raw.cockpit.schema;
    if schema.get_ref() != SCHEMA {
        out.push(
            Diagnostic::new(
                Law::M001,
                loc(PolicyFile::Cockpit, schema),
                format!("unknown schema `{}`", schema.get_ref()),
            )
            .label("this compiler reads one schema")
            .help(format!("write `schema = \"{SCHEMA}\"`")),
        );
    }
    for (name, verb) in cx.verbs_in_order() {
        if cx.raw.profile == Profile::Gateway {
            spec_name(name, out);
        } else if !is_canonical_spelling(name.get_ref()) {
            let fixed = canonical(name.get_ref());
            let help = if is_canonical_spelling(&fixed) {
                format!("declare it as `[verbs.{fixed}]`; aliases such as `m1nd_` and `m1nd.` are added by the server")
            } else {
                "verb names are lower-case ASCII snake_case, starting with a letter".to_owned()
            };
            out.push(
                Diagnostic::new(
                    Law::M001,
                    loc(PolicyFile::Tools, name),
                    format!("verb name `{}` is not in canonical form", name.get_ref()),
                )
                .label("written here")
                .help(help),
            );
        }
        let def = verb.get_ref();
        if def.summary.get_ref().trim().is_empty() {
            out.push(
                Diagnostic::new(
                    Law::M001,
                    loc(PolicyFile::Tools, &def.summary),
                    format!("verb `{}` has an empty summary", name.get_ref()),
                )
                .help("say in one line what the verb does; tools/list shows it to every client"),
            );
        }
        for arg in def.requires.iter().chain(&def.accepts) {
            argument_name(cx, arg, out);
        }
    }
    argument_types(cx, out);
    for card in &cx.raw.cards.card {
        let card = card.get_ref();
        for (field, value) in [("id", &card.id), ("title", &card.title), ("why", &card.why)] {
            if value.get_ref().trim().is_empty() {
                out.push(
                    Diagnostic::new(
                        Law::M001,
                        loc(PolicyFile::Cards, value),
                        format!("card `{}` has an empty `{field}`", card.id.get_ref()),
                    )
                    .help(format!("give the card a non-empty `{field}`")),
                );
            }
        }
        if card.reject_tool.is_some() != card.reject_reason.is_some() {
            let at = card.reject_tool.as_ref().or(card.reject_reason.as_ref()).unwrap_or(&card.id);
            out.push(
                Diagnostic::new(
                    Law::M001,
                    loc(PolicyFile::Cards, at),
                    format!("card `{}` has only one of `reject_tool` and `reject_reason`", card.id.get_ref()),
                )
                .help("a rejected tool needs its reason, and a reason needs its tool: give both or neither"),
            );
        }
    }
}

/// A gateway policy declares a tool under its upstream's exact name, which
/// the MCP specification bounds; m1nd's own verbs are canonical snake_case.
fn spec_name(name: &Text, out: &mut Vec<Diagnostic>) {
    let Some(problem) = spec::spec_problem(name.get_ref()) else { return };
    out.push(
        Diagnostic::new(
            Law::M001,
            loc(PolicyFile::Tools, name),
            format!("tool name `{}` is not one the MCP specification allows: {problem}", name.get_ref()),
        )
        .label("declared here")
        .help(format!(
            "declare the tool under the exact name its upstream lists; {}; the gateway hides and refuses an upstream tool named otherwise",
            spec::SPEC_RULE
        )),
    );
}

fn argument_name(cx: &Context<'_>, arg: &Text, out: &mut Vec<Diagnostic>) {
    // A gateway's argument names are the upstream's (`dryRun`); they are
    // matched exactly, so they need only be plain names.
    let (well_formed, problem, help) = match cx.raw.profile {
        Profile::Cockpit => (
            is_canonical_spelling(arg.get_ref()),
            "is not snake_case",
            "argument names are lower-case ASCII snake_case, starting with a letter",
        ),
        Profile::Gateway => (
            is_plain_argument(arg.get_ref()),
            "is not a plain name",
            "write the argument as the upstream's schema names it: ASCII letters, digits, `_` and `-`",
        ),
    };
    if !well_formed {
        out.push(
            Diagnostic::new(
                Law::M001,
                loc(PolicyFile::Tools, arg),
                format!("argument name `{}` {problem}", arg.get_ref()),
            )
            .help(help),
        );
    }
}

/// `[common]` and `[arguments]` name arguments in snake_case, and every
/// declared type is one the server can check.
fn argument_types(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for arg in cx.common_arguments() {
        argument_name(cx, arg, out);
    }
    for (name, raw) in in_source_order(&cx.raw.tools.arguments) {
        argument_name(cx, name, out);
        let what = format!("argument `{}`", name.get_ref());
        resolve(&Site { file: PolicyFile::Tools, what: &what }, raw, out);
    }
    for (verb, def) in cx.verbs_in_order() {
        for (name, raw) in in_source_order(&def.get_ref().arguments) {
            argument_name(cx, name, out);
            let what = format!("argument `{}` of `{}`", name.get_ref(), verb.get_ref());
            resolve(&Site { file: PolicyFile::Tools, what: &what }, raw, out);
        }
        argument_sets(cx, verb, def.get_ref(), out);
    }
}

/// A verb's `one_of`: at least two argument sets, each typing its arguments,
/// and the verb's own lists left empty (its arguments are the sets').
fn argument_sets(cx: &Context<'_>, verb: &Text, def: &VerbDef, out: &mut Vec<Diagnostic>) {
    let Some(sets) = &def.one_of else { return };
    if sets.get_ref().len() < 2 {
        out.push(
            Diagnostic::new(
                Law::M001,
                loc(PolicyFile::Tools, sets),
                format!("verb `{}` has a `one_of` of fewer than two argument sets", verb.get_ref()),
            )
            .label("not a choice")
            .help("write a single set's arguments as the verb's own `requires` and `arguments`"),
        );
    }
    let own = [
        (!def.requires.is_empty(), "requires"),
        (!def.accepts.is_empty(), "accepts"),
        (!def.arguments.is_empty(), "arguments"),
    ];
    for (_, key) in own.iter().filter(|(present, _)| *present) {
        out.push(
            Diagnostic::new(
                Law::M001,
                loc(PolicyFile::Tools, sets),
                format!("verb `{}` has `one_of` and also its own `{key}`", verb.get_ref()),
            )
            .label("arguments in two places")
            .help(format!("move `{key}` into each argument set of `one_of`")),
        );
    }
    for (k, set) in sets.get_ref().iter().enumerate() {
        for (name, raw) in in_source_order(&set.get_ref().arguments) {
            argument_name(cx, name, out);
            let what = format!("argument `{}` of `{}` (argument set {})", name.get_ref(), verb.get_ref(), k + 1);
            resolve(&Site { file: PolicyFile::Tools, what: &what }, raw, out);
        }
    }
}
