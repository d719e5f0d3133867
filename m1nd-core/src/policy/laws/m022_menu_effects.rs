//! M022: the menu reaches nothing beyond the menu's mode.
//!
//! M004 keeps denied verbs out of the menu by name; this law asks what each
//! entry would actually do. Every slot card, door source, item action and
//! help card the overview shows is judged by the actions its call reaches,
//! with its pinned arguments: `persist` pinned to `action = "status"` is
//! judged by the status route, a value the routes do not name (or one an
//! item fills in) by the tool's worst case. An action beyond the effects or
//! floors of `[mode.menu]` would turn the human's digit into a write.

use super::super::context::{Context, Role, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::effects::{Excess, Mode, Model, Pinned, Reached, describe_call};
use super::super::raw::{CardDef, Text};
use super::super::source::{Loc, PolicyFile};

const HELP: &str = "offer a card whose tool reaches only what [mode.menu] allows (a door can point to where the \
                    human acts instead); or, if the menu should reach it, allow the action under [mode.menu.also] \
                    in effects.toml with the reason";

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(model) = &cx.effects else { return };
    let Some(mode) = model.mode(Mode::Menu) else { return };
    for read in cx.menu_reads() {
        let Some(card) = read.card else { continue };
        let bound: Vec<&str> = match read.role {
            Role::Action(k) => read
                .slot
                .actions
                .as_ref()
                .and_then(|a| a.get_ref().get(k - 1))
                .map(|a| a.get_ref().bind.keys().map(|b| b.get_ref().as_str()).collect())
                .unwrap_or_default(),
            Role::SlotCard | Role::DoorSource => Vec::new(),
        };
        if let Some((tool, reached, action, excess)) = judge(cx, model, mode, card.get_ref(), &bound) {
            out.push(
                diagnostic(
                    model,
                    loc(PolicyFile::Cockpit, read.card_ref),
                    &read.describe(),
                    tool,
                    &reached,
                    action,
                    &excess,
                )
                .related(
                    loc(PolicyFile::Cards, &card.get_ref().tool),
                    format!("card `{}` calls it here", card.get_ref().id.get_ref()),
                ),
            );
        }
    }
    for card in cx.raw.cards.card.iter().map(|c| c.get_ref()) {
        if !cx.overview_shows(card) || cx.menu_uses_card(card.id.get_ref()) {
            continue;
        }
        if let Some((tool, reached, action, excess)) = judge(cx, model, mode, card, &[]) {
            let what = format!("help card `{}`", card.id.get_ref());
            out.push(diagnostic(model, loc(PolicyFile::Cards, &card.tool), &what, tool, &reached, action, &excess));
        }
    }
}

type Judged<'p> = (&'p str, Reached<'p>, &'p Text, Excess);

fn judge<'p>(
    cx: &Context<'p>,
    model: &Model<'p>,
    mode: &super::super::effects::raw::ModeDef,
    card: &'p CardDef,
    bound: &[&str],
) -> Option<Judged<'p>> {
    let tool = cx.verb(card.tool.get_ref())?;
    let pinned = |argument: &str| match card.arguments.iter().find(|(k, _)| k.get_ref() == argument) {
        // A route's values are strings; any other value is judged at its worst.
        Some((_, value)) => value.get_ref().as_str().map_or(Pinned::Open, Pinned::To),
        None if bound.contains(&argument) => Pinned::Open,
        None => Pinned::Absent,
    };
    let reached = model.reach(tool, pinned)?;
    let (action, excess) = model.first_excess(mode, &reached)?;
    Some((tool, reached, action, excess))
}

fn diagnostic(
    model: &Model<'_>,
    at: Loc,
    what: &str,
    tool: &str,
    reached: &Reached<'_>,
    action: &Text,
    excess: &Excess,
) -> Diagnostic {
    let route = &model.routes[tool];
    Diagnostic::new(
        Law::M022,
        at,
        format!(
            "{what} calls {}, which reaches `{}` ({}) beyond the menu's mode",
            describe_call(tool, reached.how),
            action.get_ref(),
            excess.describe()
        ),
    )
    .label("the human's digit would run this")
    .related(loc(route.file, action), "routed here")
    .help(HELP)
}
