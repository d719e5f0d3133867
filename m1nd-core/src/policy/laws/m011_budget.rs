//! M011: a budget is declared, and the worst-case root and drill responses —
//! measured at compile time by rendering the loudest admissible state through
//! the real composer (see [`crate::runtime::budget`]) — fit it.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::PolicyFile;
use crate::runtime::worst_case;
use crate::table::Cockpit;

/// A ceiling beyond which a "budget" no longer constrains anything.
pub const MAX_TOKENS: i64 = 100_000;

const DECLARE_HELP: &str = "add `[budget]` with `root_tokens` and `drill_tokens` \
                            (tokens = characters / 4 of the pretty JSON), e.g. 800 each";

const DRILL_HELP: &str = "lower that slot's collection `limit`, shorten its labels, \
                          or raise `drill_tokens` if the growth is deliberate";

pub fn check_declared(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(budget) = &cx.raw.cockpit.budget else {
        out.push(
            Diagnostic::new(
                Law::M011,
                loc(PolicyFile::Cockpit, &cx.raw.cockpit.schema),
                "cockpit.toml declares no [budget]",
            )
            .label("the cockpit needs its own pinned budget")
            .help(DECLARE_HELP),
        );
        return;
    };
    let b = budget.get_ref();
    let declared = [
        ("root_tokens", Some(&b.root_tokens)),
        ("drill_tokens", Some(&b.drill_tokens)),
        ("item_tokens", b.item_tokens.as_ref()),
    ];
    for (name, value) in declared.into_iter().filter_map(|(name, value)| Some((name, value?))) {
        let v = *value.get_ref();
        if !(1..=MAX_TOKENS).contains(&v) {
            out.push(
                Diagnostic::new(
                    Law::M011,
                    loc(PolicyFile::Cockpit, value),
                    format!("`{name} = {v}` is outside 1..={MAX_TOKENS}"),
                )
                .help("declare a real ceiling; upstream's is 800 tokens for root and for drill"),
            );
        }
    }
    if let Some(item) = &b.item_tokens
        && *item.get_ref() > *b.drill_tokens.get_ref()
    {
        out.push(
            Diagnostic::new(
                Law::M011,
                loc(PolicyFile::Cockpit, item),
                format!("`item_tokens = {}` is over `drill_tokens = {}`", item.get_ref(), b.drill_tokens.get_ref()),
            )
            .label("an item's view is a drill level")
            .help("keep `item_tokens` at or under `drill_tokens`, or leave it out to give item views the whole drill budget"),
        );
    }
}

pub fn check_worst_case(cx: &Context<'_>, cockpit: &Cockpit, out: &mut Vec<Diagnostic>) {
    let Some(budget) = &cx.raw.cockpit.budget else {
        return;
    };
    let worst = worst_case(cockpit);
    let b = budget.get_ref();
    if worst.root_tokens > cockpit.budget.root_tokens as usize {
        out.push(
            Diagnostic::new(
                Law::M011,
                loc(PolicyFile::Cockpit, &b.root_tokens),
                format!(
                    "the worst-case root response is {} tokens, over its budget of {}",
                    worst.root_tokens, cockpit.budget.root_tokens
                ),
            )
            .label("measured on the loudest state this policy admits")
            .help("shorten the longest labels or the title, or raise `root_tokens` if the growth is deliberate"),
        );
    }
    if worst.drill_tokens > cockpit.budget.drill_tokens as usize {
        out.push(
            Diagnostic::new(
                Law::M011,
                loc(PolicyFile::Cockpit, &b.drill_tokens),
                format!(
                    "the worst-case drill response ({}) is {} tokens, over its budget of {}",
                    worst.drill_level, worst.drill_tokens, cockpit.budget.drill_tokens
                ),
            )
            .label("measured on the loudest state this policy admits")
            .help(DRILL_HELP),
        );
    }
}
