//! An alert's words as FTS5 counts them, for PostgreSQL's copy of the word
//! index (`alert_terms`, `alert_vocab`, `alerts.words`).
//!
//! PostgreSQL has no FTS5, and a second tokenizer written here would drift
//! from `unicode61` on some script or case fold. So the words are counted by
//! SQLite's own tokenizer, with the alerts' own settings
//! (`sql::alert_tokenizer!`), in a scratch index in memory: whatever
//! FTS5 calls a word in SQLite is the word PostgreSQL stores.

use std::collections::BTreeMap;

use rusqlite::Connection;

use super::super::sql;

/// What the word index knows of one alert.
#[derive(Debug, Default, PartialEq, Eq)]
pub(in crate::store) struct AlertWords {
    /// Its tokens, counting repeats: bm25's document length.
    pub words: i64,
    /// Each distinct word and how often it occurs.
    pub terms: Vec<(String, i64)>,
}

/// The words of each `(seq, text)`, keyed by `seq`; an alert without a word
/// is there with none.
pub(in crate::store) fn count_words<'a>(
    alerts: impl IntoIterator<Item = (i64, &'a str)>,
) -> rusqlite::Result<BTreeMap<i64, AlertWords>> {
    let scratch = Connection::open_in_memory()?;
    scratch.execute_batch(sql::SCRATCH_WORD_INDEX)?;
    let mut out = BTreeMap::new();
    {
        let mut insert = scratch.prepare(sql::SCRATCH_WORD)?;
        for (seq, text) in alerts {
            insert.execute(rusqlite::params![seq, text])?;
            out.insert(seq, AlertWords::default());
        }
    }
    let mut terms = scratch.prepare(sql::SCRATCH_TERMS)?;
    let rows = terms.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?)))?;
    for row in rows {
        let (seq, term, count) = row?;
        let alert = out.entry(seq).or_default();
        alert.words += count;
        alert.terms.push((term, count));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_fts5_s_own() {
        let counted = count_words([
            (1, "Walk cache: the_walk CACHE miss, cache."),
            (2, "École Ωmega straße İstanbul"),
            (3, " -- ... "),
        ])
        .expect("count");
        let terms = |seq: i64| counted[&seq].terms.iter().map(|(t, n)| format!("{t}:{n}")).collect::<Vec<_>>();
        assert_eq!(counted[&1].words, 6);
        assert_eq!(terms(1), ["cache:3", "miss:1", "the_walk:1", "walk:1"]);
        // unicode61 folds case one letter at a time and keeps diacritics;
        // it leaves the dotted capital I as it is, unlike Rust's lowercase.
        assert_eq!(terms(2), ["straße:1", "école:1", "İstanbul:1", "ωmega:1"]);
        assert_eq!(counted[&3], AlertWords::default());
    }
}
