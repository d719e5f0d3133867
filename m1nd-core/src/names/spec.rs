//! Tool names as MCP servers spell them, and how a gateway folds them.
//!
//! Invariant 1: a gateway policy declares each tool under the exact name its
//! upstream lists, and the gateway forwards that exact name; every spelling a
//! client may write is *folded* only to find which declared tool it means.
//!
//! - [`is_spec_name`] is the MCP specification's rule for a tool name
//!   ([`SPEC_RULE`]): 1–128 characters of `A–Z a–z 0–9 _ - .`.
//! - [`fold`] is what two spellings of one tool have in common: surrounding
//!   whitespace trimmed, one leading `m1nd` plus `.`, `_` or `-` stripped
//!   (ASCII case-insensitive), ASCII case folded, and every `-`, `_` and `.`
//!   dropped. `get-sum`, `getSum`, `GET_SUM` and `m1nd.get.sum` all fold to
//!   `getsum`. Non-ASCII characters are kept, so a look-alike never folds
//!   onto an ASCII name (see [`super::NameIndex`]).
//! - [`collisions`] finds declared names that fold together: law M016 at
//!   `policy check --gateway` and `gateway!`, and `policy import`'s refusal,
//!   both read it, since a client could not tell such tools apart.

use std::collections::HashMap;

/// The most characters the MCP specification allows in a tool name.
pub const MAX_CHARS: usize = 128;

/// The specification's rule, quoted by every refusal of a name outside it.
pub const SPEC_RULE: &str =
    "the MCP specification allows a tool name of 1 to 128 characters, each one of A-Z, a-z, 0-9, `_`, `-` and `.`";

/// Whether `name` is a tool name the MCP specification allows.
pub fn is_spec_name(name: &str) -> bool {
    (1..=MAX_CHARS).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// Why `name` is outside the specification, in words, or `None` if it is not.
pub fn spec_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".to_owned());
    }
    let chars = name.chars().count();
    if chars > MAX_CHARS {
        return Some(format!("it is {chars} characters long"));
    }
    let bad = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))?;
    Some(format!("it holds {}", describe(bad)))
}

fn describe(c: char) -> String {
    if c.is_ascii_graphic() { format!("`{c}`") } else { format!("U+{:04X}", c as u32) }
}

/// What every spelling of one tool name has in common (see the module docs).
pub fn fold(name: &str) -> String {
    let trimmed = name.trim();
    let bare = ["m1nd.", "m1nd_", "m1nd-"]
        .iter()
        .find_map(|prefix| {
            let head = trimmed.get(..prefix.len())?;
            head.eq_ignore_ascii_case(prefix).then(|| &trimmed[prefix.len()..])
        })
        .unwrap_or(trimmed);
    bare.chars().filter(|c| !matches!(c, '-' | '_' | '.')).map(|c| c.to_ascii_lowercase()).collect()
}

/// `name` as a TOML key: bare when TOML allows it (`get-sum`, `getSum`),
/// quoted otherwise (`"files.read"`, where a bare dot would nest a table).
pub fn toml_key(name: &str) -> String {
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')) {
        name.to_owned()
    } else {
        serde_json::to_string(name).unwrap_or_else(|_| "\"\"".to_owned())
    }
}

/// Two declared names that fold to the same name: positions in the order
/// given, the later one first met second.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collision {
    pub first: usize,
    pub second: usize,
    /// What both fold to.
    pub folded: String,
}

/// Every name that folds to the same name as an earlier one, paired with the
/// first name it collides with.
pub fn collisions<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Collision> {
    let mut first: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    for (i, name) in names.into_iter().enumerate() {
        let folded = fold(name);
        match first.get(&folded) {
            Some(&earlier) => out.push(Collision { first: earlier, second: i, folded }),
            None => {
                first.insert(folded, i);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_of_one_name_folds_together() {
        for written in
            ["get-sum", "getSum", "get_sum", "GET-SUM", "get.sum", "m1nd.get-sum", "M1ND_getSum", " getsum\t"]
        {
            assert_eq!(fold(written), "getsum", "{written:?}");
        }
        assert_eq!(fold("m1nd.m1nd_x"), "m1ndx", "one prefix only");
        assert_ne!(fold("g\u{0435}t-sum"), "getsum", "a Cyrillic `е` is kept, never folded onto `e`");
    }

    #[test]
    fn the_spec_rule_is_length_and_alphabet() {
        for good in ["get-sum", "getSum", "files.read", "a", "A_9", &"x".repeat(128)] {
            assert!(is_spec_name(good) && spec_problem(good).is_none(), "{good:?}");
        }
        let long = "x".repeat(129);
        for (bad, why) in [
            ("", "it is empty"),
            (long.as_str(), "it is 129 characters long"),
            ("get sum", "it holds U+0020"),
            ("files/read", "it holds `/`"),
            ("g\u{0435}t", "it holds U+0435"),
        ] {
            assert!(!is_spec_name(bad), "{bad:?}");
            assert_eq!(spec_problem(bad).as_deref(), Some(why), "{bad:?}");
        }
    }

    #[test]
    fn toml_keys_are_quoted_only_when_they_must_be() {
        assert_eq!(toml_key("get-sum"), "get-sum");
        assert_eq!(toml_key("getSum"), "getSum");
        assert_eq!(toml_key("files.read"), "\"files.read\"");
    }

    #[test]
    fn collisions_pair_each_later_name_with_the_first() {
        let found = collisions(["get-sum", "echo", "getSum", "GET_SUM", "files.read"]);
        assert_eq!(
            found,
            [
                Collision { first: 0, second: 2, folded: "getsum".into() },
                Collision { first: 0, second: 3, folded: "getsum".into() }
            ]
        );
        assert!(collisions(["get-sum", "get-sums", "files.read", "filesread2"]).is_empty());
    }
}
