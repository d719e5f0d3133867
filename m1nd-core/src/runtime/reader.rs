//! The composer's only window on state: read verbs, through [`ReadVerb`]s.
//!
//! A [`Reader`] is asked to run a [`ReadVerb`] — a value the policy compiler
//! produces for each read the laws passed — and the composer re-checks each
//! one against the table's deny list first, so it never asks for a write.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::table::ReadVerb;

/// What a read verb returns, as far as the cockpit cares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// Named numbers: the facet's placeholders (`count`, `blocks`, …).
    pub numbers: Vec<(String, u64)>,
    /// Items, newest or most urgent first. Values are untrusted data.
    pub items: Vec<Item>,
}

impl Reading {
    /// A reading of items alone; numbers follow with [`Reading::with`].
    pub fn listing(items: impl IntoIterator<Item = Item>) -> Self {
        Self { numbers: Vec::new(), items: items.into_iter().collect() }
    }

    pub fn number(&self, name: &str) -> u64 {
        self.numbers.iter().find(|(n, _)| n == name).map_or(0, |(_, v)| *v)
    }

    pub fn with(mut self, name: &str, value: u64) -> Self {
        self.numbers.push((name.to_owned(), value));
        self
    }
}

/// One item: named fields of untrusted text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Item {
    pub fields: Vec<(String, String)>,
}

impl Item {
    pub fn new<K: Into<String>, V: Into<String>>(fields: impl IntoIterator<Item = (K, V)>) -> Self {
        Self { fields: fields.into_iter().map(|(k, v)| (k.into(), v.into())).collect() }
    }

    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// A read that failed. The composer shows the fact as unavailable; it never
/// shows this text to the human (it may carry state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError(pub String);

/// Serves read verbs to the composer.
pub trait Reader {
    /// Run `read` with its fixed arguments plus `bound` (from a selected item).
    ///
    /// A reader that already holds the answer lends it (`Cow::Borrowed`); one
    /// that computes it returns it owned. The composer only looks.
    fn read(&self, read: &ReadVerb, bound: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError>;

    /// The same reading's numbers, for labels and conditions; its items may
    /// be left out. The root shows only numbers, so a reader whose items cost
    /// more than its counts (a store listing rows) answers this without them;
    /// the composer asks [`Reader::read`] for a slot's items only when a level
    /// shows them. By default, the whole reading.
    fn count(&self, read: &ReadVerb, bound: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError> {
        self.read(read, bound)
    }

    /// The store's optimistic-concurrency counter.
    fn store_version(&self) -> u64;
}

/// State held in memory, keyed by the card a read comes from: the loud state
/// M011 measures, and the states tests and benches compose over.
#[derive(Clone, Debug, Default)]
pub struct MemoryReader {
    /// Each card's answer; a card with no entry reads as empty.
    pub by_card: HashMap<String, Result<Reading, ReadError>>,
    /// What every item action returns.
    pub action: Reading,
    pub version: u64,
}

impl Reader for MemoryReader {
    fn read(&self, read: &ReadVerb, bound: &[(&str, &str)]) -> Result<Cow<'_, Reading>, ReadError> {
        if !bound.is_empty() {
            return Ok(Cow::Borrowed(&self.action));
        }
        match self.by_card.get(read.card()) {
            Some(Ok(reading)) => Ok(Cow::Borrowed(reading)),
            Some(Err(e)) => Err(e.clone()),
            None => Ok(Cow::Owned(Reading::default())),
        }
    }

    fn store_version(&self) -> u64 {
        self.version
    }
}
