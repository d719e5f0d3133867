//! State strings are data, never instructions.
//!
//! Memory claims, mission titles and agent names come from agents and repos.
//! Before display they lose ANSI escape sequences and control characters and
//! are cut to their field's cap, so they cannot redraw a terminal, break a
//! line of the text card, or grow a response past its budget. They are only
//! ever placed in data fields: labels and `select` payloads are built from
//! the policy and from numbers.

/// Display form of untrusted text: escapes removed, controls replaced by a
/// space, whitespace runs folded, at most `cap` characters (an ellipsis marks a cut).
pub fn display(raw: &str, cap: usize) -> String {
    let mut out = String::with_capacity(cap.min(raw.len()) + 3);
    let mut count = 0usize;
    let mut chars = raw.chars().peekable();
    let mut last_space = true;
    while let Some(c) = chars.next() {
        let c = match c {
            '\u{1b}' => {
                skip_escape(&mut chars);
                continue;
            }
            c if c.is_control() || is_invisible(c) => ' ',
            c if c.is_whitespace() => ' ',
            c => c,
        };
        if c == ' ' && last_space {
            continue;
        }
        last_space = c == ' ';
        if count == cap {
            // One more visible character exists: mark the cut.
            if cap > 0 {
                out.pop();
                out.push('…');
            }
            return out.trim_end().to_owned();
        }
        out.push(c);
        count += 1;
    }
    out.trim_end().to_owned()
}

/// Bidi overrides and zero-width characters can disguise text; drop them.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Consume an ANSI/VT escape sequence after ESC (CSI, OSC or a single char).
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
        }
        Some(']') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' || (c == '\u{1b}' && chars.peek() == Some(&'\\')) {
                    if c == '\u{1b}' {
                        chars.next();
                    }
                    break;
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::display;

    #[test]
    fn escapes_and_controls_are_neutralised() {
        assert_eq!(display("\u{1b}[31mred\u{1b}[0m text", 40), "red text");
        assert_eq!(display("a\nb\r\tc\u{0}d", 40), "a b c d");
        assert_eq!(display("\u{1b}]0;title\u{7}x", 40), "x");
        assert_eq!(display("x\u{202E}y", 40), "x y");
    }

    #[test]
    fn caps_count_characters_and_mark_the_cut() {
        assert_eq!(display("abcdef", 6), "abcdef");
        assert_eq!(display("abcdefg", 6), "abcde…");
        assert_eq!(display("ééééééé", 3), "éé…");
        assert_eq!(display(&"x".repeat(1 << 20), 5).chars().count(), 5);
    }
}
