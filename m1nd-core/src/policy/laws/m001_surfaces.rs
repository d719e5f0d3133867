//! M001 (after parsing): the prompts, resources and resource templates a
//! gateway policy declares are ones a gateway can serve, and only a gateway
//! policy declares them.
//!
//! A prompt is declared under its exact upstream name, held to the tool-name
//! rule of the MCP specification (the gateway folds its spellings as it does
//! a tool's). A resource is declared by its exact URI, and a template by its
//! exact URI template, which must be one the gateway can confine (see
//! [`crate::uri_template`]): a template whose values could carry
//! `/` is refused here rather than served as if it were narrow.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::profile::Profile;
use super::super::raw::{SurfaceDef, Table, in_source_order};
use super::super::source::PolicyFile;
use crate::names::spec;
use crate::uri_template::{Template, uri_problem};

/// The three kinds, as tools.toml names their tables.
const KINDS: [&str; 3] = ["prompts", "resources", "templates"];

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let tools = &cx.raw.tools;
    let tables: [&Table<SurfaceDef>; 3] = [&tools.prompts, &tools.resources, &tools.templates];
    if cx.raw.profile == Profile::Cockpit {
        for (kind, table) in KINDS.into_iter().zip(tables) {
            if let Some((key, _)) = in_source_order(table).first() {
                out.push(
                    Diagnostic::new(Law::M001, loc(PolicyFile::Tools, *key), format!("a cockpit policy declares no `{kind}`"))
                        .label("m1nd's own server does not read this")
                        .help(format!("remove `[{kind}]`: it is for gateway policies, which decide what of another server's {kind} a session sees")),
                );
            }
        }
        return;
    }
    for (prompt, _) in in_source_order(&tools.prompts) {
        if let Some(problem) = spec::spec_problem(prompt.get_ref()) {
            out.push(
                Diagnostic::new(
                    Law::M001,
                    loc(PolicyFile::Tools, prompt),
                    format!("prompt name `{}` is not one the gateway can serve: {problem}", prompt.get_ref()),
                )
                .label("declared here")
                .help(format!(
                    "declare the prompt under the exact name its upstream lists; the gateway holds prompt names to the tool-name rule ({}), and hides and refuses a prompt named otherwise",
                    spec::SPEC_RULE
                )),
            );
        }
    }
    for (uri, _) in in_source_order(&tools.resources) {
        if let Some(problem) = uri_problem(uri.get_ref()) {
            out.push(
                Diagnostic::new(
                    Law::M001,
                    loc(PolicyFile::Tools, uri),
                    format!("resource URI `{}` cannot be served: {problem}", uri.get_ref()),
                )
                .label("declared here")
                .help("declare the resource by the exact URI its upstream lists in `resources/list`"),
            );
        }
    }
    for (template, _) in in_source_order(&tools.templates) {
        if let Err(problem) = Template::parse(template.get_ref()) {
            out.push(
                Diagnostic::new(
                    Law::M001,
                    loc(PolicyFile::Tools, template),
                    format!("resource template `{}` cannot be confined: {problem}", template.get_ref()),
                )
                .label("declared here")
                .help("the gateway matches only simple `{name}` variables separated by literals, each filled by letters, digits, `-`, `.`, `_` or `~`; declare the resources this template reads one by one under `[resources]` instead"),
            );
        }
    }
}
