//! Effects: what each verb can do, from upstream's own action catalog and
//! routes, and what each session mode allows (laws M019, M020, M021, M022).
//!
//! A name deny list only says which verbs someone remembered to list. The
//! catalog says, for every semantic action, every effect it can have and the
//! least authority that may run it; the routes say which actions each tool
//! reaches, by argument value where it routes by one. With both in the
//! policy, "may a read-only session call this?" and "may the menu offer
//! this?" are questions about effects, answered the same way every time.

pub mod catalog;
pub mod names;
pub mod raw;

use std::collections::HashMap;

use catalog::Entry;
use names::{Effect, Floor};
use raw::{EffectFiles, ModeDef, RouteDef};

use crate::policy::source::PolicyFile;
use crate::policy::spanned::Text;

/// The two modes every policy with effects declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// What a read-only session may reach.
    ReadOnly,
    /// What the human's menu may reach; never more than read-only.
    Menu,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::ReadOnly, Mode::Menu];

    /// Its key under `[mode]` in effects.toml.
    pub const fn key(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read_only",
            Mode::Menu => "menu",
        }
    }

    /// How messages name it.
    pub const fn shown(self) -> &'static str {
        match self {
            Mode::ReadOnly => "read-only mode",
            Mode::Menu => "the menu's mode",
        }
    }
}

/// A route, with where it was written.
pub struct Routed<'p> {
    pub file: PolicyFile,
    pub tool: &'p Text,
    pub def: &'p RouteDef,
}

/// The effect files, indexed once for every law.
pub struct Model<'p> {
    pub files: &'p EffectFiles,
    /// Action → its catalog entry.
    pub actions: HashMap<&'p str, &'p Entry>,
    /// Tool, exactly as written → its first route (M019 reports a second).
    pub routes: HashMap<&'p str, Routed<'p>>,
}

/// Which of a tool's actions a call reaches, and why those.
pub struct Reached<'p> {
    pub actions: Vec<&'p Text>,
    pub how: How<'p>,
}

/// Why a call reaches the actions it does, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How<'p> {
    /// The tool does not route by argument.
    Always,
    /// The routing argument is pinned to a value the routes name.
    Value { argument: &'p str, value: &'p str },
    /// The routing argument is left out and the routes say what that reaches.
    Absent { argument: &'p str },
    /// The worst case: the value is not pinned, is not one the routes name, or
    /// the tool routes by more than one argument.
    Worst,
}

/// What an action has beyond what a mode allows.
#[derive(Debug, PartialEq, Eq)]
pub struct Excess {
    pub effects: Vec<Effect>,
    pub floor: Option<Floor>,
}

impl Excess {
    /// "GRAPH_MUTATION and RUNTIME_STORE_WRITE, floor POSITIVE_SOVEREIGN".
    pub fn describe(&self) -> String {
        let effects: Vec<&str> = self.effects.iter().map(|e| e.name()).collect();
        let mut parts = Vec::new();
        if !effects.is_empty() {
            parts.push(effects.join(", "));
        }
        if let Some(floor) = self.floor {
            parts.push(format!("floor {}", floor.name()));
        }
        parts.join("; ")
    }
}

/// A call's pinned value for an argument.
pub enum Pinned<'a> {
    /// Fixed by the policy to this value.
    To(&'a str),
    /// Filled at run time (an item's bind, a caller's argument).
    Open,
    /// Not passed at all.
    Absent,
}

impl<'p> Model<'p> {
    pub fn new(files: &'p EffectFiles) -> Self {
        let mut actions = HashMap::new();
        for entry in &files.catalog.catalog.entries {
            actions.entry(entry.action.as_str()).or_insert(entry);
        }
        let mut routes = HashMap::new();
        let ours = files.effects.routes.iter().map(|(k, v)| (PolicyFile::Effects, k, v));
        for (file, tool, def) in files.routes.routes.iter().map(|(k, v)| (PolicyFile::Routes, k, v)).chain(ours) {
            routes.entry(tool.get_ref().as_str()).or_insert(Routed { file, tool, def: def.get_ref() });
        }
        Self { files, actions, routes }
    }

    pub fn mode(&self, mode: Mode) -> Option<&'p ModeDef> {
        self.files.effects.mode.iter().find(|(k, _)| k.get_ref() == mode.key()).map(|(_, v)| v.get_ref())
    }

    /// The actions a call of `tool` reaches, given what it pins.
    pub fn reach(&self, tool: &str, pinned: impl Fn(&str) -> Pinned<'p>) -> Option<Reached<'p>> {
        let route = self.routes.get(tool)?.def;
        let worst = || Reached { actions: route.actions.get_ref().iter().collect(), how: How::Worst };
        let mut by = route.by.iter();
        let Some((argument, values)) = by.next() else {
            return Some(Reached { actions: route.actions.get_ref().iter().collect(), how: How::Always });
        };
        if by.next().is_some() {
            return Some(worst());
        }
        let argument = argument.get_ref().as_str();
        Some(match pinned(argument) {
            Pinned::To(value) => match values.get_ref().iter().find(|(v, _)| v.get_ref() == value) {
                Some((v, actions)) => Reached {
                    actions: actions.get_ref().iter().collect(),
                    how: How::Value { argument, value: v.get_ref() },
                },
                None => worst(),
            },
            Pinned::Absent => match &route.absent {
                Some(actions) => Reached { actions: actions.get_ref().iter().collect(), how: How::Absent { argument } },
                None => worst(),
            },
            Pinned::Open => worst(),
        })
    }

    /// What `action` has beyond `mode`, or `None` when the mode allows it
    /// (or the action is unknown: M019 reports that).
    pub fn excess(&self, mode: &ModeDef, action: &str) -> Option<Excess> {
        let entry = self.actions.get(action)?;
        if mode.also.keys().any(|k| k.get_ref() == action) {
            return None;
        }
        let allowed = |name: &str| mode.effects.get_ref().iter().any(|e| e.get_ref() == name);
        let effects: Vec<Effect> = entry.complete_effects.iter().copied().filter(|e| !allowed(e.name())).collect();
        let floor = Some(entry.authority_floor)
            .filter(|f| !mode.floors.get_ref().iter().any(|allowed| allowed.get_ref() == f.name()));
        (!effects.is_empty() || floor.is_some()).then_some(Excess { effects, floor })
    }

    /// The first action of `reached` that `mode` does not allow, with what it has beyond.
    pub fn first_excess(&self, mode: &ModeDef, reached: &Reached<'p>) -> Option<(&'p Text, Excess)> {
        reached.actions.iter().find_map(|a| self.excess(mode, a.get_ref()).map(|x| (*a, x)))
    }
}

/// "`persist` with `action = "save"`", "`audit`", for messages.
pub fn describe_call(tool: &str, how: How<'_>) -> String {
    match how {
        How::Value { argument, value } => format!("`{tool}` with `{argument} = {value:?}`"),
        How::Absent { argument } => format!("`{tool}` without `{argument}`"),
        How::Always | How::Worst => format!("`{tool}`"),
    }
}
