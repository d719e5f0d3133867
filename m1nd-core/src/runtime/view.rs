//! The skin-neutral view of one cockpit level.
//!
//! The composer builds a [`View`]; the JSON and text skins only render it.
//! That is what makes "two skins, one geometry" true by construction: both
//! read the same entries, labels, facts and sigs from the same value.

use std::borrow::Cow;

use super::reference::Path;

/// One level of the cockpit, ready to render.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub level: Path,
    /// Static text: the cockpit title, a slot label, or an action card's title.
    pub title: String,
    /// For item views: the item's headline (untrusted data, sanitised).
    pub subject: Option<String>,
    pub menu_sig: String,
    pub state_sig: String,
    pub store_version: u64,
    /// The level's state moved since the human saw it.
    pub state_moved: bool,
    /// Static explanation, shown first when state moved or a read failed.
    pub note: Option<String>,
    /// Door text (static, from the policy).
    pub door: Option<String>,
    /// The door's static link (from the policy), where the human acts.
    pub door_link: Option<String>,
    /// For collections: how many items the list shows, of how many, in what order.
    pub listing: Option<Listing>,
    /// Numbered choices of this level.
    pub entries: Vec<Entry>,
    /// Facts of an item or an action result: (field, sanitised value).
    pub facts: Vec<(String, String)>,
    /// Where `0`-style "back" leads from here, as a reference.
    pub back: Option<String>,
}

impl View {
    /// A level with nothing on it yet; the composer fills it and signs it.
    pub fn new(level: Path, title: String, state_sig: String, store_version: u64) -> Self {
        View {
            level,
            title,
            subject: None,
            menu_sig: String::new(),
            state_sig,
            store_version,
            state_moved: false,
            note: None,
            door: None,
            door_link: None,
            listing: None,
            entries: Vec::new(),
            facts: Vec::new(),
            back: None,
        }
    }
}

/// What a collection shows of what its label counts: a list is a fixed-N
/// projection, and it says so. Numbers and static registry text only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listing {
    /// How many items the list shows.
    pub shown: u64,
    /// How many items the slot's label counts (never fewer than are shown).
    pub total: u64,
    /// The order they are shown in, from the facet registry ("newest first").
    pub order: &'static str,
}

impl Listing {
    /// The one sentence both skins and the widget show: `showing 5 of 7, newest first`.
    pub fn sentence(&self) -> String {
        format!("showing {} of {}, {}", self.shown, self.total, self.order)
    }
}

/// A numbered choice. Its payload is only ever the reference a human types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// `3.2@mc_1a2b3c4d`
    pub select: String,
    pub text: EntryText,
    /// Static text from the facet registry that tells an item's kind apart
    /// in a listing (`candidate`), beside its data, never inside it.
    pub mark: Option<&'static str>,
    /// What the number denotes (slot key, item id, action card), for the sig.
    pub(crate) identity: Cow<'static, str>,
}

/// Static policy text or untrusted state text — never mixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryText {
    /// From the policy, with numbers filled in.
    Label(String),
    /// From state, sanitised and capped.
    Data(String),
}

impl EntryText {
    pub fn as_str(&self) -> &str {
        match self {
            EntryText::Label(s) | EntryText::Data(s) => s,
        }
    }
}
