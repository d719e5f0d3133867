//! The reference parser never panics and never accepts more than it should.

use m1nd_policy::runtime::{Path, parse_reference};
use proptest::prelude::*;

#[path = "support/unicode.rs"]
mod unicode;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC*") {
        if let Err(e) = parse_reference(&s) {
            prop_assert!(e.to_string().contains("valid forms"));
        }
    }

    #[test]
    fn number_shaped_text_never_panics(s in "[ @.\\-+0-9mc_a-f?]{0,40}") {
        let _ = parse_reference(&s);
    }

    /// Every in-range reference parses to the numbers it holds and prints
    /// back to itself; out-of-range ones are errors.
    #[test]
    fn references_round_trip(a in 0u64..300, b in 0u64..70_000, c in 0u64..70_000, depth in 1usize..=3) {
        let numbers = &[a, b, c][..depth];
        let text = numbers.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
        let in_range = a <= 255
            && numbers[1..].iter().all(|n| (1..=u64::from(u16::MAX)).contains(n))
            && (a != 0 || depth == 1);
        match parse_reference(&text) {
            Ok(r) => {
                prop_assert!(in_range, "{} parsed", text);
                let shown = if r.path == Path::Root { "0".to_owned() } else { r.path.to_string() };
                prop_assert_eq!(shown, text);
            }
            Err(_) => prop_assert!(!in_range, "{} was rejected", text),
        }
    }
}

#[test]
fn large_unicode_negative_and_overflowing_inputs_are_errors() {
    let huge = "1".repeat(1 << 20);
    let unicode_huge = "é".repeat(1 << 19);
    let cases = [
        huge.as_str(),
        unicode_huge.as_str(),
        "99999999999999999999",
        "1.99999999999999999999",
        "-1",
        "3.-2",
        "+3",
        "3.2.1.0",
        "1.1.1.1.1.1.1",
        "３",
        "3\u{0}",
        "3@mc_zzzzzzzz",
        "3@mc_1234567",
        "3@mc_123456789",
        "3 . 2",
    ];
    for input in cases {
        let shown: String = input.chars().take(24).collect();
        assert!(parse_reference(input).is_err(), "{shown:?} should not parse");
    }
}

#[test]
fn whitespace_and_sig_are_tolerated() {
    let r = parse_reference("\t 3.2 @ mc_ABCDEF01 \n").unwrap();
    assert_eq!(r.path, Path::Item { slot: 3, item: 2 });
    assert_eq!(r.seen_sig.as_deref(), Some("mc_abcdef01"));
}

/// Found by the `reference` fuzz target: a refusal echoed the part it could
/// not read with only control characters replaced, so an Arabic number sign
/// (U+0600, a format character), a bidi override or TAG characters reached
/// the person or model reading the error. Echoes go through the one sanitiser.
#[test]
fn fuzz_reference_refusals_echo_nothing_invisible() {
    let tagged: String =
        "3".chars().chain("ignore".chars().map(|c| char::from_u32(0xE0000 + c as u32).unwrap())).collect();
    for input in [
        "\u{600}\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}",
        "3.\u{202E}1",
        "\u{200B}3",
        &tagged,
        "3@mc_\u{2066}12345678",
        "3@\u{FEFF}",
        "1.2.3.\u{061C}4",
    ] {
        let message = parse_reference(input).unwrap_err().to_string();
        let hidden: Vec<String> = message
            .chars()
            .filter(|c| unicode::is_invisible(*c) || unicode::breaks_text(*c))
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        assert!(hidden.is_empty(), "{input:?}: the refusal echoes {hidden:?}: {message}");
    }
}
