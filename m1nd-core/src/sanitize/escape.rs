//! Escaping: untrusted text shown as it is, with every character a reader
//! would not see spelt out.
//!
//! [`super::display`] removes what cannot be seen, which suits a headline. A
//! reviewer of an upstream's definition, or a caller told why a value was
//! refused, needs the opposite: the text exactly as the model or the
//! upstream would get it, so `status\u{200B}` must not read as `status`.
//! Here every control character, every invisible character
//! ([`super::is_hidden`]) and the line and paragraph separators become
//! `\u{XXXX}`, which anyone can read and nothing can execute.
//!
//! TAB, LF and CR are the layout of diffs and file contents: [`Layout::Keep`]
//! keeps them, [`Layout::Escape`] (one line, such as a refusal) spells them
//! out too. A backslash is not escaped: `\u{…}` written by the sender stays
//! readable text, and a reviewer comparing with the raw bytes still can.

use std::borrow::Cow;
use std::fmt::Write as _;

use unicode_general_category::{GeneralCategory, get_general_category};

use super::is_hidden;

/// What becomes of TAB, LF and CR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Kept as they are: text whose lines matter (a file, a diff, a description).
    Keep,
    /// Escaped like any other control: text shown on one line.
    Escape,
}

/// True for a character a reader would not see as itself: a control
/// (C0, DEL, C1), an invisible character, or a line or paragraph separator.
/// TAB, LF and CR count unless `layout` keeps them.
pub fn is_unseen(c: char, layout: Layout) -> bool {
    if layout == Layout::Keep && matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    c.is_control()
        || is_hidden(c)
        || matches!(get_general_category(c), GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator)
}

/// True when `text` holds a character [`escape`] would spell out.
pub fn has_unseen(text: &str, layout: Layout) -> bool {
    text.chars().any(|c| is_unseen(c, layout))
}

/// `text` with every unseen character written as `\u{XXXX}` (upper-case hex,
/// at least four digits); borrowed when there is none.
///
/// ```
/// use m1nd_policy::sanitize::escape::{Layout, escape};
///
/// assert_eq!(escape("status\u{200B}", Layout::Escape), "status\\u{200B}");
/// assert_eq!(escape("a\tb\n", Layout::Keep), "a\tb\n");
/// assert_eq!(escape("a\tb\n", Layout::Escape), "a\\u{0009}b\\u{000A}");
/// // A hidden instruction in TAG characters is shown, not run.
/// assert_eq!(escape("ok\u{E0041}", Layout::Keep), "ok\\u{E0041}");
/// ```
pub fn escape(text: &str, layout: Layout) -> Cow<'_, str> {
    if !has_unseen(text, layout) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        push(&mut out, c, |c| is_unseen(c, layout));
    }
    Cow::Owned(out)
}

/// A value a refusal repeats: on one line, every unseen character and every
/// space other than U+0020 escaped (a no-break space or U+3000 is why
/// ` status` differs from `status`), cut to `cap` characters with an
/// ellipsis that never splits an escape.
///
/// ```
/// use m1nd_policy::sanitize::escape::value;
///
/// assert_eq!(value("\u{A0}status\n", 48), "\\u{00A0}status\\u{000A}");
/// assert_eq!(value(&"x".repeat(100), 5), "xxxx…");
/// ```
pub fn value(raw: &str, cap: usize) -> String {
    let unseen = |c: char| is_unseen(c, Layout::Escape) || (c.is_whitespace() && c != ' ');
    let mut out = String::new();
    let mut count = 0usize;
    let mut piece = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        piece.clear();
        push(&mut piece, c, unseen);
        let width = piece.chars().count();
        // The last piece may fill the cap exactly; any other leaves room for the mark.
        let room = if chars.peek().is_none() { cap } else { cap.saturating_sub(1) };
        if count + width > room {
            if cap > 0 {
                out.push('…');
            }
            return out;
        }
        out.push_str(&piece);
        count += width;
    }
    out
}

fn push(out: &mut String, c: char, unseen: impl Fn(char) -> bool) {
    if unseen(c) {
        // Writing to a String cannot fail.
        let _ = write!(out, "\\u{{{:04X}}}", c as u32);
    } else {
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_and_invisible_character_is_spelt_out() {
        let hostile = "\u{1b}[2J\u{7}x\u{202E}y\u{200B}\u{E0041}\u{2028}\u{85}\u{7F}";
        let shown = escape(hostile, Layout::Keep);
        assert_eq!(shown, "\\u{001B}[2J\\u{0007}x\\u{202E}y\\u{200B}\\u{E0041}\\u{2028}\\u{0085}\\u{007F}");
        assert!(!has_unseen(&shown, Layout::Escape), "{shown:?}");
    }

    #[test]
    fn layout_is_kept_only_when_asked() {
        let diff = "-a\r\n+b\tc\n";
        assert!(matches!(escape(diff, Layout::Keep), Cow::Borrowed(_)));
        assert_eq!(escape(diff, Layout::Escape), "-a\\u{000D}\\u{000A}+b\\u{0009}c\\u{000A}");
    }

    #[test]
    fn visible_text_is_untouched_and_borrowed() {
        for text in ["", "status", "naïve café 東京", "a\\u{200B}b", "emoji 😀"] {
            assert!(matches!(escape(text, Layout::Escape), Cow::Borrowed(t) if t == text), "{text:?}");
        }
    }

    #[test]
    fn a_refused_value_shows_why_it_differs() {
        for (sent, shown) in [
            ("STATUS", "STATUS"),
            (" status", " status"),
            ("status\n", "status\\u{000A}"),
            ("\u{A0}status", "\\u{00A0}status"),
            ("\u{3000}status", "\\u{3000}status"),
            ("status\t", "status\\u{0009}"),
            ("status\u{2028}", "status\\u{2028}"),
            ("status\u{85}", "status\\u{0085}"),
            ("status\u{200B}", "status\\u{200B}"),
        ] {
            assert_eq!(value(sent, 48), shown, "{sent:?}");
        }
    }

    #[test]
    fn a_cut_never_splits_an_escape_and_fits_the_cap() {
        let raw = "\u{200B}".repeat(100);
        for cap in 0..40 {
            let shown = value(&raw, cap);
            assert!(shown.chars().count() <= cap, "{cap}: {shown}");
            let body = shown.trim_end_matches('…');
            assert_eq!(body.len() % 8, 0, "{cap}: {shown}");
        }
        assert_eq!(value("abc", 3), "abc");
        assert_eq!(value("abcd", 3), "ab…");
    }
}
