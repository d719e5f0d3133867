//! What every composed cockpit level must be, whatever the store held.
//!
//! Judged from the compiled table alone (never from the composer's code):
//! 1. the pretty JSON fits the worst case M011 proved for the policy, and so
//!    the declared budget;
//! 2. static text is the policy's: the title and every label are one of the
//!    policy's texts with at most digits filled in, a door is the slot's door;
//! 3. a payload (`select`, `back`) is only a reference to a level below (or
//!    above), signed with this level's menu_sig;
//! 4. state text (items, facts, the subject) is sanitised and within its cap,
//!    an item's own view within the item budget;
//! 5. a list says how many of how many it shows in its facet's order, and a
//!    mark is one of the facet's kinds' static marks (M015);
//! 6. both skins render, the ASCII card is ASCII, and no entry names a verb.

use m1nd_policy::facets::UNAVAILABLE;
use m1nd_policy::runtime::json::{to_pretty, to_value, tokens};
use m1nd_policy::runtime::text::{Charset, render};
use m1nd_policy::runtime::{EntryText, Path, RESULT_LINES, View, WorstCase, parse_reference};
use m1nd_policy::sanitize::cap;
use m1nd_policy::{Cockpit, Slot};

pub fn judge(table: &Cockpit, worst: &WorstCase, view: &View) {
    let size = tokens(&to_pretty(view));
    let (bound, budget) = match view.level {
        Path::Root => (worst.root_tokens, table.budget.root_tokens),
        _ => (worst.drill_tokens, table.budget.drill_tokens),
    };
    assert!(size <= bound, "level {} is {size} tokens; M011's worst case is {bound}", view.level);
    assert!(size <= budget as usize, "level {} is {size} tokens over the budget {budget}", view.level);
    if let Path::Item { .. } = view.level {
        let item = table.budget.item_tokens as usize;
        assert!(size <= item, "item {} is {size} tokens over the item budget {item}", view.level);
    }

    assert_sig(&view.menu_sig);
    assert!(view.state_sig.bytes().all(|b| b.is_ascii_alphanumeric() || b":|_?".contains(&b)), "{}", view.state_sig);
    if let Some(note) = &view.note {
        assert!(note.is_ascii() && crate::is_display_safe(note), "note {note:?}");
    }
    let slot = match view.level {
        Path::Root => None,
        Path::Collection { slot } | Path::Item { slot, .. } | Path::Action { slot, .. } => {
            Some(table.slot(slot).expect("a composed level's slot exists"))
        }
    };
    match (view.level, slot) {
        (Path::Root, _) => assert_eq!(view.title, table.title, "the root's title"),
        (Path::Action { .. }, Some(slot)) => assert!(is_action_title(table, slot, &view.title), "{:?}", view.title),
        (_, Some(slot)) => {
            assert!(is_label(slot, &view.title), "title {:?} is no label of slot {}", view.title, slot.n)
        }
        (_, None) => unreachable!("every level below the root has a slot"),
    }
    let door = slot.and_then(|s| match &s.kind {
        m1nd_policy::SlotKind::Door { text, .. } if matches!(view.level, Path::Collection { .. }) => Some(&**text),
        _ => None,
    });
    assert_eq!(view.door.as_deref(), door, "door text");
    assert_eq!(view.door_link.as_deref(), door.and(slot.and_then(|s| s.link.as_deref())), "door link");

    for entry in &view.entries {
        let reference = parse_reference(&entry.select).unwrap_or_else(|e| panic!("payload {:?}: {e}", entry.select));
        assert_eq!(reference.seen_sig.as_deref(), Some(view.menu_sig.as_str()), "payload {:?}", entry.select);
        assert_eq!(entry.select, reference.to_string(), "payload {:?} is not a plain reference", entry.select);
        assert_eq!(reference.path.parent(), view.level, "payload {:?} below {}", entry.select, view.level);
        match (&entry.text, reference.path) {
            (EntryText::Label(label), Path::Collection { slot }) => {
                let slot = table.slot(slot).expect("a root entry names a slot");
                assert!(is_label(slot, label), "root label {label:?} is not slot {}'s", slot.n);
            }
            (EntryText::Label(label), Path::Action { .. }) => {
                assert!(is_action_title(table, slot.expect("an item has a slot"), label), "action {label:?}");
            }
            (EntryText::Data(data), Path::Item { .. }) => assert_state(data, cap::HEADLINE),
            (text, path) => panic!("entry {text:?} for {path}"),
        }
        // A mark is static registry text that tells a listed item's kind apart (M015).
        if let Some(mark) = entry.mark {
            let kinds = slot.and_then(|s| s.facet.items()).map_or(&[][..], |i| i.kinds);
            assert!(matches!(entry.text, EntryText::Data(_)), "mark {mark:?} on a label");
            assert!(kinds.iter().any(|k| k.mark == Some(mark)), "mark {mark:?} is no kind's of this facet");
        }
    }
    // A list says how many of how many it shows, in its facet's order; the
    // total is never less than what is shown.
    if let Some(listing) = &view.listing {
        let order = slot.and_then(|s| s.facet.items()).map(|i| i.order);
        assert!(matches!(view.level, Path::Collection { .. }), "a listing at {}", view.level);
        assert_eq!(Some(listing.order), order, "listing order");
        assert_eq!(listing.shown, view.entries.len() as u64, "listing shown");
        assert!(listing.total >= listing.shown, "listing {listing:?}");
    }
    if let Some(back) = &view.back {
        let to = parse_reference(back).unwrap_or_else(|e| panic!("back {back:?}: {e}")).path;
        assert!(to == view.level.parent() && back.bytes().all(|b| b.is_ascii_digit() || b == b'.'), "back {back:?}");
    }
    if let Some(subject) = &view.subject {
        // An item's own view shows its headline at length, up to its collection's text_cap.
        let text_cap = match (view.level, slot.and_then(|s| s.collection.as_ref())) {
            (Path::Item { .. }, Some(c)) => usize::from(c.text_cap),
            _ => cap::HEADLINE,
        };
        assert_state(subject, text_cap);
    }
    assert!(view.facts.len() <= facts_cap(slot), "{} facts", view.facts.len());
    for (key, value) in &view.facts {
        let field = slot.and_then(|s| s.facet.items()).and_then(|items| items.field(key));
        match (view.level, field) {
            (Path::Item { .. }, Some(field)) => assert_state(value, field.cap),
            (Path::Action { .. }, _) => {
                assert_state(key, cap::KEY);
                assert_state(value, cap::RESULT_LINE);
            }
            (level, _) => panic!("fact {key:?} at {level}"),
        }
    }

    let json = to_value(view);
    for entry in json.get("entries").and_then(|e| e.as_array()).into_iter().flatten() {
        let keys: Vec<&str> = entry.as_object().into_iter().flat_map(|o| o.keys()).map(String::as_str).collect();
        assert!(matches!(keys[..], ["select", "label" | "item"] | ["select", "item", "mark"]), "entry keys {keys:?}");
    }
    assert!(render(view, Charset::Ascii).is_ascii());
    let card = render(view, Charset::Unicode);
    assert!(!card.chars().any(crate::unicode::is_invisible), "an invisible character reached the card");
}

fn assert_sig(sig: &str) {
    let hex = sig.strip_prefix("mc_").unwrap_or_else(|| panic!("menu_sig {sig:?}"));
    assert!(hex.len() == 8 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')), "menu_sig {sig:?}");
}

fn assert_state(text: &str, cap: usize) {
    assert!(crate::is_display_safe(text), "unsanitised state text {text:?}");
    assert!(text.chars().count() <= cap, "{} characters over a cap of {cap}: {text:?}", text.chars().count());
}

/// Most facts a level shows: an item's fields, or an action's result lines.
fn facts_cap(slot: Option<&Slot>) -> usize {
    let fields = slot.and_then(|s| s.facet.items()).map_or(0, |i| i.fields.len());
    fields.max(RESULT_LINES)
}

/// Whether `text` is one of `slot`'s labels with its placeholders filled by
/// digits, or the name of a condition the slot has no label for.
fn is_label(slot: &Slot, text: &str) -> bool {
    slot.labels.iter().any(|l| fills(&l.text, text))
        || slot.facet.conditions().iter().any(|c| c.name == text)
        || text == UNAVAILABLE
}

/// An action's title: its card's title, or the card id when the card is gone.
fn is_action_title(table: &Cockpit, slot: &Slot, text: &str) -> bool {
    slot.collection.iter().flat_map(|c| c.actions.iter()).any(|a| {
        let card = a.read.card();
        text == card || table.cards.iter().any(|c| c.id == card && c.title == text)
    })
}

/// Whether `text` is `template` with each `{name}` replaced by a decimal number.
fn fills(template: &str, text: &str) -> bool {
    match template.split_once('{') {
        None => template == text,
        Some((literal, after)) => {
            let Some(rest) = text.strip_prefix(literal) else { return false };
            let Some((_, template)) = after.split_once('}') else { return false };
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count().min(20);
            (1..=digits).any(|n| fills(template, &rest[n..]))
        }
    }
}
