//! `m1nd_policy::sanitize::display`: the one sanitiser for every string shown
//! back that came from state or a caller.
//!
//! The first byte chooses the cap (0–129, which covers every cap in
//! `sanitize::cap` that a field of the cockpit uses); the rest is the text.
//! For any text and cap, the result:
//! 1. holds nothing invisible and no control or separator but the plain space
//!    (the predicate of the sanitiser's Unicode tests);
//! 2. has at most `cap` characters, no leading, trailing or doubled space;
//! 3. adds nothing: apart from a closing `…` that marks a cut, it is a
//!    subsequence of the input, with folded characters read as a space;
//! 4. is a fixed point: sanitised again with the same cap it is unchanged.

use m1nd_policy::sanitize::display;

pub fn check(data: &[u8]) {
    let Some((&cap, text)) = data.split_first() else { return };
    let cap = usize::from(cap % 130);
    let raw = String::from_utf8_lossy(text);
    let out = display(&raw, cap);

    assert!(crate::is_display_safe(&out), "{out:?} from {raw:?}");
    assert!(out.chars().count() <= cap, "{} characters over a cap of {cap}", out.chars().count());
    assert!(!out.starts_with(' ') && !out.ends_with(' ') && !out.contains("  "), "spacing of {out:?}");
    assert!(adds_nothing(&raw, &out), "{out:?} holds what {raw:?} does not");
    assert_eq!(display(&out, cap), out, "sanitising {out:?} again changes it");
}

/// Whether `out`, less a closing `…`, is a subsequence of `raw`, where a space
/// in `out` may stand for any character the sanitiser folds to one.
fn adds_nothing(raw: &str, out: &str) -> bool {
    let subsequence = |wanted: &str| {
        let mut source = raw.chars();
        wanted.chars().all(|w| source.by_ref().any(|c| c == w || (w == ' ' && folds(c))))
    };
    subsequence(out) || out.strip_suffix('…').is_some_and(subsequence)
}

fn folds(c: char) -> bool {
    c == ' ' || c.is_whitespace() || crate::unicode::breaks_text(c)
}
