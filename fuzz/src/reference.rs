//! `select`: the reference a human types, parsed by
//! `m1nd_policy::runtime::reference`.
//!
//! For any text:
//! 1. parsing never panics, and a refusal lists the valid forms and echoes
//!    nothing a person would not see (the sanitiser's rule for echoed text);
//! 2. an accepted reference holds at most three numbers, and they are the
//!    numbers written before any `@`, in order (leading zeros aside);
//! 3. it is at most `MAX_REFERENCE_CHARS` characters once trimmed;
//! 4. a seen menu_sig is `mc_` and 8 lower-case hex digits, the ones written;
//! 5. it round-trips: displayed and parsed again it is the same reference,
//!    and the display is already canonical.

use m1nd_policy::runtime::reference::{MAX_REFERENCE_CHARS, VALID_FORMS};
use m1nd_policy::runtime::{Path, parse_reference};

pub fn check(data: &[u8]) {
    let input = String::from_utf8_lossy(data);
    let reference = match parse_reference(&input) {
        Ok(reference) => reference,
        Err(e) => {
            assert!(e.to_string().ends_with(VALID_FORMS), "a refusal without the valid forms: {e}");
            assert!(crate::is_display_safe(&e.reason), "a refusal echoes unsanitised input: {:?}", e.reason);
            return;
        }
    };
    let text = input.trim();
    assert!(text.chars().count() <= MAX_REFERENCE_CHARS, "accepted {} characters", text.chars().count());

    let (body, sig) = match text.split_once('@') {
        Some((body, sig)) => (body, Some(sig.trim())),
        None => (text, None),
    };
    let written: Vec<u64> = body
        .split(|c: char| !c.is_ascii_digit())
        .filter(|run| !run.is_empty())
        .map(|run| run.trim_start_matches('0').parse().unwrap_or(0))
        .collect();
    assert!(written.len() <= 3, "accepted {} numbers in {text:?}", written.len());
    let held: Vec<u64> = match reference.path {
        Path::Root => written.iter().take(1).filter(|n| **n == 0).copied().collect(),
        Path::Collection { slot } => vec![u64::from(slot)],
        Path::Item { slot, item } => vec![u64::from(slot), u64::from(item)],
        Path::Action { slot, item, action } => vec![u64::from(slot), u64::from(item), u64::from(action)],
    };
    assert_eq!(held, written, "{text:?} parsed to {:?}", reference.path);

    match (&reference.seen_sig, sig) {
        (Some(seen), Some(sig)) => {
            let hex = seen.strip_prefix("mc_").expect("a seen sig starts with mc_");
            assert!(hex.len() == 8 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')), "sig {seen:?}");
            assert_eq!(sig.to_ascii_lowercase(), *seen, "the sig kept is not the one written");
        }
        (None, None) => {}
        (seen, written) => panic!("sig {seen:?} from {written:?} in {text:?}"),
    }

    let shown = reference.to_string();
    let again = parse_reference(&shown).unwrap_or_else(|e| panic!("{text:?} shown as {shown:?} does not parse: {e}"));
    assert_eq!(again, reference, "{text:?} shown as {shown:?}");
    assert_eq!(again.to_string(), shown, "the display of {text:?} is not canonical");
}
