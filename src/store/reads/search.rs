//! The reads whose answer depends on an argument (`impact`, `why`,
//! `trace`). They search the small tables (blocks, modules, drift, alerts),
//! never the memories, so their cost does not grow with what agents store.

use std::collections::HashSet;

use m1nd_policy::runtime::{Item, Reading};

use super::super::db::{Db, DbError, args};
use super::super::sql;
use super::{LISTED, Snapshot, count};

impl Snapshot<'_> {
    /// `(id, text)` pairs of a small table, in insertion order.
    fn pairs(&self, sql: &'static str) -> Result<Vec<(String, String)>, DbError> {
        self.db().rows(sql, args![], |row| Ok((row.get(0)?, row.get(1)?)))
    }

    pub(super) fn impact(&self, node: &str) -> Result<Reading, DbError> {
        let mut hits: Vec<(String, &str)> = Vec::new();
        for (id, at) in self.pairs(sql::BLOCK_NODES)? {
            if mentions(&at, node) || id == node {
                hits.push((id, "block"));
            }
        }
        for (id, _) in self.pairs(sql::MODULE_IDS)? {
            if mentions(&id, node) {
                hits.push((id, "module"));
            }
        }
        for (id, cause) in self.pairs(sql::DRIFT_CAUSES)? {
            if mentions(&id, node) {
                hits.push((id, "drift"));
            } else if mentions(&cause, node) {
                hits.push((id, "drift cause"));
            }
        }
        let affected = count(hits.len());
        let items = hits.iter().take(LISTED).map(|(id, via)| Item::new([("id", id.as_str()), ("via", via)]));
        Ok(Reading::listing(items).with("affected", affected))
    }

    pub(super) fn why(&self, source: &str, target: &str) -> Result<Reading, DbError> {
        let found = self.db().row(sql::DRIFT_LINK, args![source, target], |row| Ok((row.get(0)?, row.get(1)?)))?;
        let link = match found {
            Some((id, evidence)) => {
                let (id, evidence): (String, String) = (id, evidence);
                let reason = if id == source {
                    format!("{target} moved it: {evidence}")
                } else {
                    format!("it moved {target}: {evidence}")
                };
                Some(Item::new([("from", source), ("to", target), ("reason", &reason)]))
            }
            None => None,
        };
        let links = count(usize::from(link.is_some()));
        Ok(Reading::listing(link).with("links", links))
    }

    /// The alerts that share words with `error_text`, best match first, from
    /// the alerts' word index. Of the error's first [`MAX_TRACE_WORDS`]
    /// distinct words, only the [`MATCHED_WORDS`] rarest among the alerts are
    /// matched (their frequencies are one index lookup each): the words that
    /// tell alerts apart, whose lists of alerts are the shortest. So the cost
    /// is a few short lists, never a scan of every alert, nor the long lists
    /// of the words every alert shares.
    pub(super) fn trace(&self, error_text: &str) -> Result<Reading, DbError> {
        let sought = sought_words(error_text);
        let mut found = Vec::with_capacity(sought.len());
        for word in sought {
            let alerts: Option<i64> = self.db().row(sql::WORD_ALERTS, args![word], |r| r.get(0))?;
            if let Some(alerts) = alerts.filter(|n| *n > 0) {
                found.push((alerts, word));
            }
        }
        // Stable: among equally rare words, the error's own order.
        found.sort_by_key(|(alerts, _)| *alerts);
        let rarest: Vec<String> = found.into_iter().take(MATCHED_WORDS).map(|(_, word)| word).collect();
        let Some(query) = match_query(&rarest) else {
            return Ok(Reading::listing(None).with("matches", 0));
        };
        let (matches, hits) = match self.db() {
            // FTS5 takes one query string; PostgreSQL's index, the words.
            Db::Sqlite(_) => (
                self.db().row(sql::MATCH_COUNT, args![query], |r| r.get::<i64>(0))?,
                self.db().rows(sql::TRACE, args![query], |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?)))?,
            ),
            Db::Postgres(conn) => (
                conn.query(sql::PG_MATCH_COUNT, &[&rarest])?.first().map(|r| r.get::<_, i64>(0)),
                conn.query(sql::PG_TRACE, &[&rarest])?
                    .iter()
                    .map(|r| (r.get::<_, String>(0), r.get::<_, String>(1)))
                    .collect(),
            ),
        };
        let matches = matches.unwrap_or(0);
        let items = hits.iter().map(|(id, node)| Item::new([("id", id.as_str()), ("node", node)]));
        Ok(Reading::listing(items).with("matches", u64::try_from(matches).unwrap_or(0)))
    }
}

/// The most words of an error text `trace` looks up: the first distinct ones.
pub const MAX_TRACE_WORDS: usize = 64;

/// The most of those words `trace` matches alerts on: the rarest ones.
pub const MATCHED_WORDS: usize = 8;

/// The first [`MAX_TRACE_WORDS`] distinct words of `text`.
fn sought_words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(text).filter(|w| seen.insert(w.clone())).take(MAX_TRACE_WORDS).collect()
}

/// An FTS5 query for any of `words`, each quoted as a string (so no word is
/// read as query syntax), or `None` when there is none.
fn match_query(words: &[String]) -> Option<String> {
    let terms: Vec<String> = words.iter().map(|w| format!("\"{}\"", w.replace('"', "\"\""))).collect();
    (!terms.is_empty()).then(|| terms.join(" OR "))
}

/// Whether `text` mentions `node`: contains it, or is a path that `node`
/// lies inside (a module `src/a` mentions node `src/a/b.rs`).
fn mentions(text: &str, node: &str) -> bool {
    if text.is_empty() || node.is_empty() {
        return false;
    }
    text.contains(node) || node.strip_prefix(text).is_some_and(|rest| rest.starts_with(['/', ':', '.', '#']))
}

/// The distinctive words of a text, in order: lowercased, three letters or
/// more, minus a few words every sentence shares.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    const COMMON: &[&str] = &[
        "the", "and", "for", "with", "from", "not", "was", "are", "but", "has", "had", "this", "that", "into", "its",
        "after", "before", "than", "then", "when",
    ];
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !COMMON.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_respects_path_boundaries() {
        assert!(mentions("crates/graph/src/walk.rs", "crates/graph"));
        assert!(mentions("crates/graph", "crates/graph/src/walk.rs"));
        assert!(!mentions("crates/gr", "crates/graph/src/walk.rs"));
        assert!(!mentions("", "x"));
        assert!(!mentions("x", ""));
    }

    #[test]
    fn an_error_text_becomes_quoted_words_never_query_syntax() {
        let words = sought_words(r#"panic: "x" OR NEAR(a b) * col:val -- the_thing at src/a.rs"#);
        let query = match_query(&words).expect("words");
        assert_eq!(query, r#""panic" OR "near" OR "col" OR "val" OR "the_thing" OR "src""#);
        assert_eq!(match_query(&sought_words("a \" * -- ()")), None, "nothing worth seeking");
    }

    #[test]
    fn a_long_error_text_seeks_at_most_its_first_distinct_words() {
        let text: String = (0..1000).map(|i| format!("word{i} word{i} ")).collect();
        let words = sought_words(&text);
        assert_eq!(words.len(), MAX_TRACE_WORDS);
        assert_eq!(&words[..2], ["word0", "word1"]);
    }
}
