//! The listing queries, with their row limits written into the SQL.
//!
//! A bound `LIMIT ?1` looks harmless, but the bundled SQLite is built with
//! STAT4, and a statement whose plan a bound value could change (a LIMIT's
//! can) is prepared again on every run. `prepare_cached` then keeps a
//! statement that costs a fresh prepare each time, which was most of a
//! freshly composed cockpit. With the limit in the text, each statement is
//! prepared once per connection and only reset after that; a test counts
//! SQLite's re-prepares to hold it so.

/// The most items a reading lists, as SQL text: the largest collection law
/// M008 admits, so every collection the policy can declare is filled.
macro_rules! listed {
    () => {
        "20"
    };
}
pub(super) use listed;

/// `listed!` as a number, read from the same text.
pub const LISTED: usize = decimal(listed!());

pub const BLOCKS: &str =
    concat!("SELECT id, title, status, receipt, hash, node FROM blocks ORDER BY urgency, seq LIMIT ", listed!());
pub const MISSIONS: &str = concat!(
    "SELECT id, title, phase, agent FROM missions WHERE board IS NOT NULL ORDER BY board, seq LIMIT ",
    listed!()
);
pub const ALERTS: &str = concat!("SELECT id, level, text, node FROM alerts ORDER BY severity, seq LIMIT ", listed!());
pub const MODULES: &str = concat!("SELECT id, score, defects FROM modules ORDER BY score_value, seq LIMIT ", listed!());
pub const MEMORIES: &str = concat!("SELECT id, claim, source, at FROM memories ORDER BY seq DESC LIMIT ", listed!());
pub const DRIFT: &str = concat!("SELECT id, evidence, cause FROM drift ORDER BY seq LIMIT ", listed!());
pub const PRESENCES: &str =
    concat!("SELECT id, doing, since FROM presences ORDER BY last_seen DESC, seq LIMIT ", listed!());

/// Every listing, for the test that counts re-prepares.
#[cfg(test)]
pub const ALL: [&str; 7] = [BLOCKS, MISSIONS, ALERTS, MODULES, MEMORIES, DRIFT, PRESENCES];

/// A decimal literal's value, at compile time.
pub const fn decimal(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut value = 0;
    let mut i = 0;
    while i < bytes.len() {
        assert!(bytes[i].is_ascii_digit(), "a limit is written in decimal digits");
        value = value * 10 + (bytes[i] - b'0') as usize;
        i += 1;
    }
    value
}
