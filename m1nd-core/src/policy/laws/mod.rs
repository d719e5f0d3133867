//! The laws M001–M022 as pure functions over the parsed policy: the whole
//! registry, with which policies each law governs.
//!
//! Each law reports every violation it finds; none stops at the first. M001's
//! parse errors are reported by [`super::load`] and are terminal (the other
//! laws need a parsed policy); M011's worst-case measurement runs on the
//! lowered table (see [`super::compile`]).

mod m001_client;
mod m001_mode;
mod m001_shape;
mod m001_surfaces;
mod m002_known;
mod m003_unique;
mod m004_denied;
mod m005_status_only;
mod m006_doors;
mod m007_arguments;
mod m008_depth;
mod m009_slots;
mod m010_labels;
pub mod m011_budget;
mod m012_negative_default;
mod m013_human_only;
pub mod m014_pins;
mod m015_counted_lists;
mod m016_folded_names;
mod m017_prefixed_names;
mod m018_visible_text;
mod m019_routes;
mod m020_modes;
mod m021_deny_follows_effects;
mod m022_menu_effects;

use super::context::Context;
use super::diagnostic::{Diagnostic, Law};
use super::help::{list, near_name};
use super::profile::Profile;

/// Which policies a law governs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every policy: the verbs, the deny list, the cards, the pins.
    Every,
    /// Only a policy with a menu (`cockpit.toml`): every cockpit policy, and
    /// a gateway policy that has one.
    Menu,
    /// Only a gateway policy, whose names are its upstream's (see [`Profile`]).
    Gateway,
    /// Only a fleet: several gateway policies behind one gateway, checked
    /// together (`fleet.toml`); no single policy.
    Fleet,
}

impl Scope {
    pub fn governs(self, cx: &Context<'_>) -> bool {
        match self {
            Scope::Every => true,
            Scope::Menu => cx.raw.menu,
            Scope::Gateway => cx.raw.profile == Profile::Gateway,
            Scope::Fleet => false,
        }
    }
}

type Check = fn(&Context<'_>, &mut Vec<Diagnostic>);

/// Every law that works on the parsed policy, in code order.
pub const REGISTRY: &[(Law, Scope, Check)] = &[
    (Law::M001, Scope::Every, m001_shape::check),
    (Law::M002, Scope::Every, m002_known::check),
    (Law::M003, Scope::Every, m003_unique::check),
    (Law::M004, Scope::Every, m004_denied::check),
    (Law::M005, Scope::Every, m005_status_only::check),
    (Law::M006, Scope::Menu, m006_doors::check),
    (Law::M007, Scope::Every, m007_arguments::check),
    (Law::M008, Scope::Menu, m008_depth::check),
    (Law::M009, Scope::Menu, m009_slots::check),
    (Law::M010, Scope::Menu, m010_labels::check),
    (Law::M011, Scope::Menu, m011_budget::check_declared),
    (Law::M012, Scope::Menu, m012_negative_default::check),
    (Law::M013, Scope::Every, m013_human_only::check),
    (Law::M014, Scope::Every, m014_pins::check),
    (Law::M015, Scope::Menu, m015_counted_lists::check),
    (Law::M016, Scope::Gateway, m016_folded_names::check),
    (Law::M017, Scope::Fleet, m017_prefixed_names::check),
    (Law::M018, Scope::Gateway, m018_visible_text::check),
    (Law::M019, Scope::Every, m019_routes::check),
    (Law::M020, Scope::Every, m020_modes::check),
    (Law::M021, Scope::Every, m021_deny_follows_effects::check),
    (Law::M022, Scope::Menu, m022_menu_effects::check),
];

impl Law {
    /// Every law, in code order: read off the registry (`laws/mod.rs`), so it stays
    /// the one list of laws (SARIF's rules, `Law::scope` and the guide's drift
    /// tests all go through this).
    pub const ALL: [Law; REGISTRY.len()] = {
        let mut all = [Law::M001; REGISTRY.len()];
        let mut i = 0;
        while i < REGISTRY.len() {
            all[i] = REGISTRY[i].0;
            i += 1;
        }
        all
    };

    /// Which policies this law governs, as the registry says.
    pub fn scope(self) -> Scope {
        match REGISTRY.iter().find(|(law, _, _)| *law == self) {
            Some((_, scope, _)) => *scope,
            None => unreachable!("every law is registered (tested: `every_law_is_registered_once_in_code_order`)"),
        }
    }
}

/// Whether `law` governs this policy.
pub fn governs(law: Law, cx: &Context<'_>) -> bool {
    REGISTRY.iter().any(|(l, scope, _)| *l == law && scope.governs(cx))
}

/// Run every law that governs the parsed policy.
pub fn check(cx: &Context<'_>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (_, scope, law) in REGISTRY {
        if scope.governs(cx) {
            law(cx, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry holds each law once, in code order, with no gap: `M001`,
    /// `M002`, … (A law added to [`Law`] but left out of the registry never
    /// runs, so its ui `compile_fail` case compiles and fails that suite.)
    #[test]
    fn every_law_is_registered_once_in_code_order() {
        for (i, law) in Law::ALL.iter().enumerate() {
            assert_eq!(law.code(), format!("M{:03}", i + 1), "registry entry {i} is out of order or a law is missing");
        }
    }
}
