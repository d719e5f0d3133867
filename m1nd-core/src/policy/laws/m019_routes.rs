//! M019: the effect catalog and routes are sound.
//!
//! Every later effect law trusts these files, so nothing in them is taken on
//! faith: the catalog is the schema this compiler reads and the one people
//! decided against (`catalog_digest`), each route names a declared verb and
//! MCP actions the catalog has, each live verb is routed exactly once, and
//! every MCP action of the catalog is reached by some route or listed as
//! unrouted with the reason. Unknown effects and floors in the catalog are
//! refused while it is read (see `effects::catalog`).

use std::collections::{HashMap, HashSet};

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::effects::catalog::SCHEMA;
use super::super::effects::raw::RouteDef;
use super::super::effects::{Model, Routed};
use super::super::raw::{Table, Text, in_source_order};
use super::super::source::PolicyFile;
use crate::names::{Resolution, did_you_mean, suggest};

const REGENERATE: &str = "routes.toml and catalog.json are produced from upstream's crates by \
                          m1nd-upstream/regenerate.sh; a verb of this server's own is routed in effects.toml's [routes]";

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(model) = &cx.effects else { return };
    catalog(model, out);
    let mut reached: HashMap<&str, &Text> = HashMap::new();
    for (file, routes) in
        [(PolicyFile::Routes, &model.files.routes.routes), (PolicyFile::Effects, &model.files.effects.routes)]
    {
        for (tool, def) in in_source_order(routes) {
            route(cx, model, file, tool, def.get_ref(), out);
            for action in def.get_ref().actions.get_ref() {
                reached.entry(action.get_ref().as_str()).or_insert(tool);
            }
        }
    }
    unrouted_verbs(cx, model, out);
    unrouted_actions(model, &reached, out);
}

fn catalog(model: &Model<'_>, out: &mut Vec<Diagnostic>) {
    let parsed = &model.files.catalog;
    let catalog = &parsed.catalog;
    if catalog.schema != SCHEMA {
        out.push(
            Diagnostic::new(
                Law::M019,
                parsed.key_loc("schema"),
                format!("catalog.json is of schema {:?}", catalog.schema),
            )
            .label("a catalog this compiler does not read")
            .help(format!("the compiler reads `{SCHEMA}`; regenerate catalog.json with m1nd-upstream/regenerate.sh")),
        );
    }
    let pinned = &model.files.effects.catalog_digest;
    if pinned.get_ref() != &catalog.catalog_digest {
        out.push(
            Diagnostic::new(
                Law::M019,
                loc(PolicyFile::Effects, pinned),
                "effects.toml was decided against another catalog than catalog.json",
            )
            .label("the digest of the catalog the modes were decided against")
            .related(parsed.key_loc("catalog_digest"), format!("catalog.json carries {:?}", catalog.catalog_digest))
            .help(
                "read what changed in the catalog (`m1nd policy diff` reports each effect and floor), then \
                 set `catalog_digest` to the catalog's own",
            ),
        );
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for entry in &catalog.entries {
        let name = entry.action.as_str();
        let nth = seen.entry(name).or_insert(0);
        let here = parsed.action_loc(name, *nth);
        *nth += 1;
        if *nth == 2 {
            out.push(
                Diagnostic::new(Law::M019, here.clone(), format!("catalog.json lists the action `{name}` twice"))
                    .related(parsed.action_loc(name, 0), "first listed here")
                    .help("an action has one entry: regenerate catalog.json from upstream"),
            );
        }
        let empty = match (entry.complete_effects.is_empty(), entry.ingresses.is_empty()) {
            (true, _) => Some("no effects"),
            (_, true) => Some("no ingress"),
            _ => None,
        };
        if let Some(what) = empty {
            out.push(
                Diagnostic::new(Law::M019, here, format!("the action `{name}` has {what}"))
                    .label("nothing to judge it by")
                    .help("every action lists its complete effects and how it is reached; regenerate catalog.json"),
            );
        }
    }
}

fn route(
    cx: &Context<'_>,
    model: &Model<'_>,
    file: PolicyFile,
    tool: &Text,
    def: &RouteDef,
    out: &mut Vec<Diagnostic>,
) {
    let written = tool.get_ref();
    match cx.resolve(written) {
        Resolution::Known(verb) if verb == written.as_str() => {}
        Resolution::Known(verb) | Resolution::LookAlike { verb, .. } => out.push(
            Diagnostic::new(
                Law::M019,
                loc(file, tool),
                format!("a route names `{written}`, which tools.toml spells `{verb}`"),
            )
            .help(format!("name the verb exactly as tools.toml declares it: `{verb}`")),
        ),
        Resolution::Unknown { suggestion } => out.push(
            Diagnostic::new(
                Law::M019,
                loc(file, tool),
                format!("a route names `{written}`, which tools.toml does not declare"),
            )
            .label("no such verb")
            .help(did_you_mean(suggestion, "", || format!("declare `{written}` in tools.toml, or remove its route"))),
        ),
    }
    if let Some(Routed { file: first_file, tool: first, .. }) = model.routes.get(written.as_str())
        && first.span() != tool.span()
    {
        out.push(
            Diagnostic::new(Law::M019, loc(file, tool), format!("`{written}` is routed twice"))
                .label("second route")
                .related(loc(*first_file, first), "first route")
                .help("a verb has one route, so its effects have one answer: keep one"),
        );
    }
    let all: HashSet<&str> = def.actions.get_ref().iter().map(|a| a.get_ref().as_str()).collect();
    for action in def.actions.get_ref() {
        known_action(model, file, action, out);
    }
    let branches = def.by.values().flat_map(|values| values.get_ref().values());
    for actions in branches.chain(def.absent.iter()) {
        for action in actions.get_ref().iter().filter(|a| !all.contains(a.get_ref().as_str())) {
            out.push(
                Diagnostic::new(
                    Law::M019,
                    loc(file, action),
                    format!("`{written}` routes a value to `{}`, which its `actions` do not list", action.get_ref()),
                )
                .label("outside the tool's worst case")
                .related(loc(file, &def.actions), "the actions the tool can reach")
                .help("`actions` lists every action the tool can reach, so its worst case is never understated"),
            );
        }
    }
}

/// An action a route names exists in the catalog and is reachable over MCP.
fn known_action(model: &Model<'_>, file: PolicyFile, action: &Text, out: &mut Vec<Diagnostic>) {
    let name = action.get_ref().as_str();
    match model.actions.get(name) {
        None => out.push(
            Diagnostic::new(
                Law::M019,
                loc(file, action),
                format!("a route reaches `{name}`, which catalog.json lacks"),
            )
            .label("no such action")
            .help(did_you_mean(suggest(name, model.actions.keys().copied()), "", || REGENERATE.to_owned())),
        ),
        Some(entry) if !entry.mcp() => out.push(
            Diagnostic::new(
                Law::M019,
                loc(file, action),
                format!("a route reaches `{name}`, which the catalog says MCP never reaches"),
            )
            .label("not an MCP action")
            .help(REGENERATE),
        ),
        Some(_) => {}
    }
}

/// Every live verb has a route: a verb nobody routed would otherwise be judged by nothing.
fn unrouted_verbs(cx: &Context<'_>, model: &Model<'_>, out: &mut Vec<Diagnostic>) {
    for (verb, def) in cx.verbs_in_order() {
        let retired = def.get_ref().retired.as_ref().is_some_and(|r| *r.get_ref());
        if retired || model.routes.contains_key(verb.get_ref().as_str()) {
            continue;
        }
        out.push(
            Diagnostic::new(
                Law::M019,
                loc(PolicyFile::Tools, verb),
                format!("`{}` has no route to the catalog", verb.get_ref()),
            )
            .label("its effects are unknown")
            .help(format!(
                "route it: add `[routes.{}]` to effects.toml with the catalog actions it reaches \
                     (a verb of upstream's is routed by routes.toml: regenerate it)",
                verb.get_ref()
            )),
        );
    }
}

fn unrouted_actions(model: &Model<'_>, reached: &HashMap<&str, &Text>, out: &mut Vec<Diagnostic>) {
    let said: &Table<String> = &model.files.effects.unrouted;
    for entry in model.files.catalog.catalog.entries.iter().filter(|e| e.mcp()) {
        let name = entry.action.as_str();
        if reached.contains_key(name) || said.keys().any(|k| k.get_ref() == name) {
            continue;
        }
        out.push(
            Diagnostic::new(
                Law::M019,
                model.files.catalog.action_loc(name, 0),
                format!("the MCP action `{name}` is reached by no route"),
            )
            .label("the catalog says MCP reaches it")
            .help(format!(
                "route the verb that reaches it, or say why none does: `\"{name}\" = \"...\"` under [unrouted] in effects.toml"
            )),
        );
    }
    for (action, reason) in in_source_order(said) {
        let name = action.get_ref().as_str();
        let problem = if !model.actions.contains_key(name) {
            Some((
                format!("[unrouted] names `{name}`, which catalog.json lacks"),
                did_you_mean(suggest(name, model.actions.keys().copied()), "", || "remove it".to_owned()),
            ))
        } else if let Some(tool) = reached.get(name) {
            Some((
                format!("[unrouted] names `{name}`, which `{}` reaches", tool.get_ref()),
                "remove it from [unrouted]: a routed action is judged by its route".to_owned(),
            ))
        } else if reason.get_ref().trim().is_empty() {
            Some((format!("[unrouted] gives no reason for `{name}`"), "say why no verb reaches it".to_owned()))
        } else {
            None
        };
        if let Some((title, help)) = problem {
            out.push(Diagnostic::new(Law::M019, loc(PolicyFile::Effects, action), title).help(help));
        }
    }
}
