//! References: what a human types to move through the cockpit.
//!
//! `?` or nothing is the root; `N`, `N.M` and `N.M.K` are a collection, an
//! item and an item action; `0` goes back to the root. An optional
//! `@mc_xxxxxxxx` carries the menu_sig of the level the number was read from.
//! A reference never holds more than three numbers, and parsing never panics:
//! anything else is an error that lists the valid forms.

use std::fmt;

/// Where a reference points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Path {
    Root,
    Collection { slot: u8 },
    Item { slot: u8, item: u16 },
    Action { slot: u8, item: u16, action: u16 },
}

impl Path {
    /// The level a human was looking at when they typed this path.
    pub fn parent(self) -> Path {
        match self {
            Path::Root | Path::Collection { .. } => Path::Root,
            Path::Item { slot, .. } => Path::Collection { slot },
            Path::Action { slot, item, .. } => Path::Item { slot, item },
        }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root => f.write_str("0"),
            Path::Collection { slot } => write!(f, "{slot}"),
            Path::Item { slot, item } => write!(f, "{slot}.{item}"),
            Path::Action { slot, item, action } => write!(f, "{slot}.{item}.{action}"),
        }
    }
}

/// A parsed reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    pub path: Path,
    /// The menu_sig the human saw, e.g. `mc_1a2b3c4d`.
    pub seen_sig: Option<String>,
}

/// The form a human would type: the path, then `@` and the seen menu_sig if
/// there is one. It parses back to the same reference.
impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.path.fmt(f)?;
        match &self.seen_sig {
            Some(sig) => write!(f, "@{sig}"),
            None => Ok(()),
        }
    }
}

/// A reference that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceError {
    pub reason: String,
}

pub const VALID_FORMS: &str = "valid forms: `?` or nothing (root), `0` (back to root), `N` (a slot), \
                               `N.M` (item M of slot N), `N.M.K` (action K on that item), \
                               each optionally followed by `@mc_` and 8 hex digits";

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}; {VALID_FORMS}", self.reason)
    }
}

impl std::error::Error for ReferenceError {}

/// The longest reference accepted, once surrounding whitespace is trimmed.
pub const MAX_REFERENCE_CHARS: usize = 64;

/// The most input looked at, whitespace included; more is rejected unread.
pub const MAX_INPUT_BYTES: usize = 4096;

fn fail(reason: impl Into<String>) -> ReferenceError {
    ReferenceError { reason: reason.into() }
}

/// Parse what a human typed.
///
/// ```
/// use m1nd_policy::runtime::{Path, parse_reference};
///
/// let item = parse_reference(" 2.1@mc_1a2b3c4d ").unwrap();
/// assert_eq!(item.path, Path::Item { slot: 2, item: 1 });
/// assert_eq!(item.seen_sig.as_deref(), Some("mc_1a2b3c4d"));
/// assert_eq!(parse_reference("?").unwrap().path, Path::Root);
/// assert_eq!(parse_reference("3.2.1").unwrap().path, Path::Action { slot: 3, item: 2, action: 1 });
///
/// // Never more than three numbers; the error lists the valid forms.
/// let wrong = parse_reference("1.2.3.4").unwrap_err();
/// assert!(wrong.to_string().contains("valid forms: `?` or nothing (root)"));
/// ```
pub fn parse(input: &str) -> Result<Reference, ReferenceError> {
    // Surrounding whitespace is tolerated, but not without bound.
    if input.len() > MAX_INPUT_BYTES {
        return Err(fail(format!("the reference is longer than {MAX_REFERENCE_CHARS} characters")));
    }
    let input = input.trim();
    if input.chars().count() > MAX_REFERENCE_CHARS {
        return Err(fail(format!("the reference is longer than {MAX_REFERENCE_CHARS} characters")));
    }
    let (body, sig) = match input.split_once('@') {
        Some((body, sig)) => (body.trim(), Some(parse_sig(sig.trim())?)),
        None => (input, None),
    };
    let path = match body {
        "" | "?" => Path::Root,
        _ => parse_path(body)?,
    };
    Ok(Reference { path, seen_sig: sig })
}

fn parse_sig(sig: &str) -> Result<String, ReferenceError> {
    let hex = sig.strip_prefix("mc_").ok_or_else(|| fail(format!("`@{}` is not a menu_sig", printable(sig))))?;
    if hex.len() == 8 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(format!("mc_{}", hex.to_ascii_lowercase()))
    } else {
        Err(fail(format!("`@{}` is not a menu_sig (`mc_` and 8 hex digits)", printable(sig))))
    }
}

/// The most numbers a reference holds.
#[cfg(not(feature = "planted-bug"))]
const MOST_NUMBERS: usize = 3;

/// An off-by-one planted on purpose, compiled only by `fuzz/planted.sh` (with
/// the `planted-bug` feature) to prove the fuzz harness finds such a bug: a
/// fourth number is let through, unread.
#[cfg(feature = "planted-bug")]
const MOST_NUMBERS: usize = 4;

fn parse_path(body: &str) -> Result<Path, ReferenceError> {
    let parts: Vec<&str> = body.split('.').collect();
    if parts.len() > MOST_NUMBERS {
        return Err(fail(format!(
            "`{}` has {} numbers; a reference holds at most three",
            printable(body),
            parts.len()
        )));
    }
    let mut numbers = [0u64; 3];
    for (slot, part) in numbers.iter_mut().zip(&parts) {
        *slot = number(part)?;
    }
    let slot = u8::try_from(numbers[0]).map_err(|_| fail(format!("there is no slot {}", numbers[0])))?;
    let item = || u16::try_from(numbers[1]).map_err(|_| fail(format!("there is no item {}", numbers[1])));
    let action = || u16::try_from(numbers[2]).map_err(|_| fail(format!("there is no action {}", numbers[2])));
    match (parts.len(), slot) {
        (1, 0) => Ok(Path::Root),
        (_, 0) => Err(fail("`0` means back to the root and takes nothing after it")),
        (1, _) => Ok(Path::Collection { slot }),
        (2, _) => Ok(Path::Item { slot, item: positive(item()?, "item")? }),
        _ => Ok(Path::Action { slot, item: positive(item()?, "item")?, action: positive(action()?, "action")? }),
    }
}

fn number(part: &str) -> Result<u64, ReferenceError> {
    if part.is_empty() {
        return Err(fail("a number is missing between the dots"));
    }
    if !part.bytes().all(|b| b.is_ascii_digit()) {
        return Err(fail(format!("`{}` is not a number", printable(part))));
    }
    part.parse::<u64>().map_err(|_| fail(format!("`{}` is too large", printable(part))))
}

fn positive(n: u16, what: &str) -> Result<u16, ReferenceError> {
    if n == 0 { Err(fail(format!("{what}s are numbered from 1"))) } else { Ok(n) }
}

/// The most characters of the input an error echoes.
const ECHO_CHARS: usize = 24;

/// Echo input in an error through the one sanitiser, so it carries no
/// control, escape or invisible character (a bidi override or a TAG
/// character would otherwise reach the person or model reading the refusal).
fn printable(s: &str) -> String {
    crate::sanitize::display(s, ECHO_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> Path {
        parse(s).unwrap().path
    }

    #[test]
    fn the_forms() {
        assert_eq!(path(""), Path::Root);
        assert_eq!(path(" ? "), Path::Root);
        assert_eq!(path("0"), Path::Root);
        assert_eq!(path("3"), Path::Collection { slot: 3 });
        assert_eq!(path("3.2"), Path::Item { slot: 3, item: 2 });
        assert_eq!(path(" 3.2.1 "), Path::Action { slot: 3, item: 2, action: 1 });
        let r = parse("3.2@mc_0A1b2C3d").unwrap();
        assert_eq!(r.seen_sig.as_deref(), Some("mc_0a1b2c3d"));
        assert_eq!(parse("?@mc_00000000").unwrap().path, Path::Root);
    }

    #[test]
    fn rejections_name_the_valid_forms() {
        for bad in [
            "1.2.3.4",
            "-1",
            "3.",
            ".3",
            "3..1",
            "x",
            "3.0",
            "0.1",
            "1@",
            "1@mc_123",
            "1@xx_12345678",
            "99999999999999999999",
            "256",
            "1.70000",
            "١",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.to_string().contains("valid forms"), "{bad}: {e}");
        }
    }
}
