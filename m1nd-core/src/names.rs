//! How a written name becomes a verb.
//!
//! One rule, used by the policy compiler and by the server's guard alike:
//!
//! 1. trim surrounding whitespace;
//! 2. strip ONE leading `m1nd.` or `m1nd_`, compared ASCII case-insensitively
//!    (`M1ND.Learn` and `m1nd_learn` are both `learn`);
//! 3. fold ASCII case.
//!
//! Names are otherwise taken literally. A name with any non-ASCII character
//! never resolves to a verb: if its UTS #39 confusable skeleton (the one
//! rustc's `confusable_idents` lint uses) matches a verb's, it is reported as a
//! look-alike of that verb, and it is refused either way. Failing closed here
//! is what stops a Cyrillic `аpply` slipping past a deny list that says `apply`.
//!
//! That is m1nd's own rule ([`Folding::Canonical`]). A gateway policy declares
//! another server's tools under their exact names and folds them with
//! [`spec::fold`] ([`Folding::Spec`]), which also folds `-`, `_` and `.`.

mod near;
pub mod spec;

pub use near::suggest;

use std::collections::HashMap;

use unicode_security::skeleton;

/// The canonical form of a written verb name.
pub fn canonical(name: &str) -> String {
    let trimmed = name.trim();
    let bare =
        ["m1nd.", "m1nd_"].iter().find_map(|prefix| strip_prefix_ignore_ascii_case(trimmed, prefix)).unwrap_or(trimmed);
    bare.to_ascii_lowercase()
}

fn strip_prefix_ignore_ascii_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &s[prefix.len()..])
}

/// Whether `name` is already written the way tools.toml must write verbs:
/// lower-case ASCII snake_case starting with a letter.
pub fn is_canonical_spelling(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && canonical(name) == name
}

/// The confusable skeleton of a name, for look-alike detection.
pub fn skeleton_of(name: &str) -> String {
    skeleton(name).collect()
}

/// What a written name refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution<'a> {
    /// A known verb (canonical name).
    Known(&'a str),
    /// Not a verb, but it looks like one: never accepted.
    LookAlike { verb: &'a str, first_foreign: char },
    /// Not a verb; perhaps a typo of one.
    Unknown { suggestion: Option<&'a str> },
}

/// Which rule makes a written name the key it is looked up by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Folding {
    /// m1nd's own verbs: declared in canonical snake_case, a written name is
    /// [`canonical`]ised (prefix, case).
    #[default]
    Canonical,
    /// A gateway's tools: declared under the upstream's exact names, both the
    /// declared and the written name are [`spec::fold`]ed (prefix, case, `-_.`).
    Spec,
}

impl Folding {
    /// The key a written name is looked up by.
    pub fn written(self, name: &str) -> String {
        match self {
            Folding::Canonical => canonical(name),
            Folding::Spec => spec::fold(name),
        }
    }

    /// The key a declared name is found by: itself, for a canonical verb.
    fn declared(self, name: &str) -> String {
        match self {
            Folding::Canonical => name.to_owned(),
            Folding::Spec => spec::fold(name),
        }
    }
}

/// Lookup over a set of declared names: exact, look-alike, then "did you mean".
#[derive(Debug, Default)]
pub struct NameIndex<'a> {
    names: Vec<&'a str>,
    folding: Folding,
    exact: HashMap<String, usize>,
    skeletons: HashMap<String, usize>,
}

impl<'a> NameIndex<'a> {
    /// An index of canonical verb names ([`Folding::Canonical`]).
    pub fn new(names: impl IntoIterator<Item = &'a str>) -> Self {
        Self::with_folding(names, Folding::Canonical)
    }

    /// An index whose names are found by `folding`'s rule.
    pub fn with_folding(names: impl IntoIterator<Item = &'a str>, folding: Folding) -> Self {
        let mut index = Self { folding, ..Self::default() };
        for name in names {
            let i = index.names.len();
            index.names.push(name);
            let key = folding.declared(name);
            index.skeletons.entry(skeleton_of(&key)).or_insert(i);
            index.exact.entry(key).or_insert(i);
        }
        index
    }

    /// The rule this index finds names by.
    pub fn folding(&self) -> Folding {
        self.folding
    }

    pub fn contains(&self, canonical: &str) -> bool {
        self.exact.contains_key(canonical)
    }

    /// Resolve a name as written (it is canonicalised first).
    pub fn resolve(&self, written: &str) -> Resolution<'a> {
        match self.locate(written) {
            Ok(i) => Resolution::Known(self.names[i]),
            Err(other) => other,
        }
    }

    /// Resolve a name as written to its position in the order the index was
    /// built, or say why it names nothing (never [`Resolution::Known`]).
    pub fn locate(&self, written: &str) -> Result<usize, Resolution<'a>> {
        let name = self.folding.written(written);
        if let Some(&i) = self.exact.get(name.as_str()) {
            return Ok(i);
        }
        if let Some(first_foreign) = name.chars().find(|c| !c.is_ascii())
            && let Some(&i) = self.skeletons.get(&skeleton_of(&name))
        {
            return Err(Resolution::LookAlike { verb: self.names[i], first_foreign });
        }
        let near = if self.folding == Folding::Spec { written.trim() } else { name.as_str() };
        Err(Resolution::Unknown { suggestion: self.suggest(near) })
    }

    /// The closest name within a small edit distance, for "did you mean".
    pub fn suggest(&self, name: &str) -> Option<&'a str> {
        suggest(name, self.names.iter().copied())
    }
}

/// The one wording of "did you mean" for every help line: `did you mean
/// `best`? then` when there is a near miss (from [`suggest`] or a
/// [`Resolution::Unknown`]), else `otherwise` on its own.
pub fn did_you_mean(near_miss: Option<&str>, then: &str, otherwise: impl FnOnce() -> String) -> String {
    match near_miss {
        Some(best) if then.is_empty() => format!("did you mean `{best}`?"),
        Some(best) => format!("did you mean `{best}`? {then}"),
        None => otherwise(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_case_fold_to_the_bare_verb() {
        for written in ["learn", "m1nd_learn", "m1nd.learn", "M1ND.Learn", "  M1nd_LEARN \n"] {
            assert_eq!(canonical(written), "learn", "{written:?}");
        }
    }

    #[test]
    fn only_one_prefix_is_stripped() {
        assert_eq!(canonical("m1nd.m1nd_learn"), "m1nd_learn");
    }

    #[test]
    fn cyrillic_look_alike_never_resolves() {
        let index = NameIndex::new(["apply", "learn"]);
        let written = "\u{0430}pply";
        assert_eq!(index.resolve(written), Resolution::LookAlike { verb: "apply", first_foreign: '\u{0430}' });
    }

    #[test]
    fn typos_get_a_suggestion_and_strangers_do_not() {
        let index = NameIndex::new(["doctor", "drift", "impact"]);
        assert_eq!(index.resolve("docter"), Resolution::Unknown { suggestion: Some("doctor") });
        assert_eq!(index.resolve("zzzzzzzz"), Resolution::Unknown { suggestion: None });
    }

    #[test]
    fn did_you_mean_leads_only_when_a_candidate_is_near() {
        let near = |name| suggest(name, ["doctor", "drift"]);
        assert_eq!(
            did_you_mean(near("docter"), "they are listed", String::new),
            "did you mean `doctor`? they are listed"
        );
        assert_eq!(did_you_mean(near("docter"), "", String::new), "did you mean `doctor`?");
        assert_eq!(did_you_mean(near("zzzzzzzz"), "they are listed", || "none".to_owned()), "none");
    }

    #[test]
    fn a_spec_index_finds_every_spelling_and_never_a_look_alike() {
        let index = NameIndex::with_folding(["get-sum", "files.read", "deleteItem"], Folding::Spec);
        for (written, declared) in [
            ("getSum", "get-sum"),
            ("GET_SUM", "get-sum"),
            ("m1nd.get-sum", "get-sum"),
            ("files_read", "files.read"),
            ("delete-item", "deleteItem"),
            ("M1ND_DELETE.ITEM", "deleteItem"),
        ] {
            assert_eq!(index.resolve(written), Resolution::Known(declared), "{written:?}");
        }
        assert!(matches!(index.resolve("d\u{0435}lete-item"), Resolution::LookAlike { verb: "deleteItem", .. }));
        assert_eq!(index.resolve("get-sun"), Resolution::Unknown { suggestion: Some("get-sum") });
        // m1nd's own index does not fold separators: its verbs are snake_case.
        assert_eq!(NameIndex::new(["get_sum"]).resolve("get-sum"), Resolution::Unknown { suggestion: Some("get_sum") });
    }

    #[test]
    fn canonical_spelling_rejects_prefixes_and_case() {
        assert!(is_canonical_spelling("system_blocks_snapshot"));
        for bad in ["Doctor", "m1nd_doctor", "", "9lives", "dr-ift", " drift"] {
            assert!(!is_canonical_spelling(bad), "{bad:?}");
        }
    }
}
