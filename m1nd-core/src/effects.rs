//! The effect files as the compiled table keeps them: the modes people
//! decided, each routed verb's actions, and each reached action's effects and
//! floor. The laws (M019, M020, M021 and M022) judge the policy files; this is what they
//! judged, so that `policy diff` can say what a change of effect, floor or
//! route does, and so that the digest covers it.
//!
//! A policy without effect files lowers to [`Effects::NONE`].

use std::borrow::Cow;

use crate::primitives::{List, Str};

/// Everything the effect files said that the laws judged by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Effects {
    /// The catalog's digest, as effects.toml pins it (empty without effect files).
    pub catalog_digest: Str,
    /// `read_only`, then `menu`.
    pub modes: List<EffectMode>,
    /// Each catalog action some route reaches, in name order.
    pub actions: List<CatalogAction>,
    /// Each routed verb, in tools.toml's order.
    pub routes: List<Route>,
}

/// One session mode: what its actions may have, and what it allows beyond, each with its reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EffectMode {
    /// `read_only` or `menu`.
    pub name: Str,
    /// Effects allowed, each with its reason (empty for `READ`).
    pub effects: List<Reasoned>,
    pub floors: List<Str>,
    /// Actions allowed beyond the effects and floors, each with its reason.
    pub also: List<Reasoned>,
}

/// A name and the reason a person gave for allowing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reasoned {
    pub name: Str,
    pub reason: Str,
}

/// What the catalog says of one action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogAction {
    pub name: Str,
    /// Upstream's `complete_effects`, in its order.
    pub effects: List<Str>,
    /// Upstream's `authority_floor`.
    pub floor: Str,
}

/// How one verb reaches the catalog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub verb: Str,
    /// Every action it can reach: its worst case.
    pub actions: List<Str>,
    /// Actions chosen by an argument's value.
    pub by: List<RouteValue>,
    /// The actions reached without the routing argument, when the routes say.
    pub absent: Option<List<Str>>,
}

/// One argument value and the actions it reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteValue {
    pub argument: Str,
    pub value: Str,
    pub actions: List<Str>,
}

impl Effects {
    /// A policy that does not judge by effects.
    pub const NONE: Effects = Effects {
        catalog_digest: Cow::Borrowed(""),
        modes: Cow::Borrowed(&[]),
        actions: Cow::Borrowed(&[]),
        routes: Cow::Borrowed(&[]),
    };

    pub fn mode(&self, name: &str) -> Option<&EffectMode> {
        self.modes.iter().find(|m| m.name == name)
    }

    pub fn action(&self, name: &str) -> Option<&CatalogAction> {
        self.actions.iter().find(|a| a.name == name)
    }

    pub fn route(&self, verb: &str) -> Option<&Route> {
        self.routes.iter().find(|r| r.verb == verb)
    }

    /// What `verb`'s worst case has beyond `mode`: each `(action, effect or
    /// floor)` the mode does not allow, sorted. Empty when the mode allows all.
    pub fn excess(&self, mode: &EffectMode, verb: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for action in self.route(verb).map(|r| &r.actions[..]).unwrap_or_default() {
            if mode.also.iter().any(|a| a.name == *action) {
                continue;
            }
            let Some(facts) = self.action(action) else { continue };
            for effect in facts.effects.iter().filter(|e| !mode.effects.iter().any(|m| m.name == **e)) {
                out.push((action.to_string(), effect.to_string()));
            }
            if !mode.floors.contains(&facts.floor) {
                out.push((action.to_string(), format!("floor {}", facts.floor)));
            }
        }
        out.sort();
        out.dedup();
        out
    }
}
