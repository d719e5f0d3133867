//! The `help` verb: the overview cards this session may call here.
//!
//! Two lists of overview cards exist, both derived, neither written by hand:
//!
//! - **The cockpit's help slot** is derived from the policy at compile time
//!   (`m1nd_policy::policy`, when the table is lowered): the `overview = true`
//!   cards a *read-only* session may call in the *full* m1nd surface. It knows
//!   nothing of this server, so it may name tools this server does not serve.
//! - **The `help` tool** (here) is derived at run time, per session: the
//!   overview cards that *this* session may call on *this* server. A card is
//!   listed only if the guard ([`Guard::check`], the very decision `tools/call`
//!   makes) lets this session call its tool with the card's pinned arguments,
//!   and the tool is in this server's registry ([`served`]). So a
//!   read-only session never sees a card that leads to a refusal (`persist`
//!   stays, pinned to `action = "status"`), and no session sees a card for a
//!   verb the table knows but this server does not implement.
//!
//! In a read-only session the `help` tool's cards are therefore exactly the
//! help slot's cards whose tool this server serves (a test holds them to it).

use m1nd_policy::Card;
use m1nd_policy::guard::Guard;
use rmcp::model::JsonObject;
use serde_json::{Value, json};

use super::answer::Answer;
use super::dispatch::served;
use crate::COCKPIT;

/// The overview cards this session may call, in policy order.
pub fn cards(guard: &Guard<'_>) -> Vec<&'static Card> {
    callable(&COCKPIT.cards, guard, served)
}

/// The overview cards among `cards` that `guard` lets this session call, with
/// the card's pinned arguments, and whose tool (canonical, as the guard
/// resolves it) is `served`. The permission is the guard's alone; this adds
/// only the served-verb filter.
fn callable<'c>(cards: &'c [Card], guard: &Guard<'_>, served: impl Fn(&str) -> bool) -> Vec<&'c Card> {
    cards
        .iter()
        .filter(|c| c.overview && guard.check(&c.tool, Some(&arguments(c))).is_ok_and(|r| served(&r.verb.name)))
        .collect()
}

fn arguments(card: &Card) -> JsonObject {
    card.arguments.iter().map(|a| (a.name.to_string(), crate::COCKPIT.fixed_value(&card.tool, a))).collect()
}

/// The schema of the `help` answer's structured content (what [`answer`] writes).
pub fn output_schema() -> Value {
    let text = json!({ "type": "string" });
    let maybe_text = json!({ "type": ["string", "null"] });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "read_only": { "type": "boolean" },
            "cards": { "type": "array", "items": {
                "type": "object",
                "properties": {
                    "id": text, "title": text, "why": text, "tool": text,
                    "arguments": { "type": "object", "additionalProperties": { "type": "string" } },
                    "reject_tool": maybe_text, "reject_reason": maybe_text,
                },
                "required": ["id", "title", "why", "tool", "arguments", "reject_tool", "reject_reason"],
                "additionalProperties": false,
            }},
        },
        "required": ["read_only", "cards"],
        "additionalProperties": false,
    })
}

/// The `help` answer: a readable list plus the same cards as JSON.
pub fn answer(guard: &Guard<'_>) -> Answer {
    let cards = cards(guard);
    let mut text = format!("{} overview card(s) for this session", cards.len());
    if guard.read_only() {
        text.push_str(" (read-only: cards whose tool writes are left out)");
    }
    text.push('\n');
    for card in &cards {
        let pinned: Vec<String> = card.arguments.iter().map(|a| format!("{} = {:?}", a.name, &*a.value)).collect();
        let call = if pinned.is_empty() {
            card.tool.to_string()
        } else {
            format!("{} {{ {} }}", card.tool, pinned.join(", "))
        };
        text.push_str(&format!("\n- {}: {call}\n  {}\n", card.title, card.why));
        if let (Some(tool), Some(reason)) = (&card.reject_tool, &card.reject_reason) {
            text.push_str(&format!("  not {tool}: {reason}\n"));
        }
    }
    let value = json!({
        "read_only": guard.read_only(),
        "cards": cards.iter().map(|c| json!({
            "id": c.id,
            "title": c.title,
            "why": c.why,
            "tool": c.tool,
            "arguments": arguments(c),
            "reject_tool": c.reject_tool,
            "reject_reason": c.reject_reason,
        })).collect::<Vec<_>>(),
    });
    Answer::text_and_value(text, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(cards: &[&Card]) -> Vec<String> {
        cards.iter().map(|c| c.id.to_string()).collect()
    }

    /// The guard's part, as if this server served every verb.
    #[test]
    fn read_only_drops_cards_that_write_and_keeps_pinned_status() {
        let all = ids(&callable(&COCKPIT.cards, &Guard::new(&COCKPIT, false), |_| true));
        let ro = ids(&callable(&COCKPIT.cards, &Guard::new(&COCKPIT, true), |_| true));
        assert!(all.contains(&"load_repository".to_owned()));
        assert!(!ro.contains(&"load_repository".to_owned()));
        assert!(ro.contains(&"store_status".to_owned()));
        for card in callable(&COCKPIT.cards, &Guard::new(&COCKPIT, true), |_| true) {
            assert!(!COCKPIT.deny.denies(&card.tool), "{}", card.id);
        }
    }

    #[test]
    fn cards_whose_tool_is_not_served_are_left_out() {
        for read_only in [false, true] {
            let guard = Guard::new(&COCKPIT, read_only);
            let listed = cards(&guard);
            let ids = ids(&listed);
            for card in &listed {
                assert!(served(&card.tool), "{} leads to `{}`, which is not served", card.id, card.tool);
                assert!(guard.check(&card.tool, Some(&arguments(card))).is_ok(), "{}", card.id);
            }
            // Every overview card that passes both filters is listed.
            let expected = COCKPIT
                .cards
                .iter()
                .filter(|c| c.overview && served(&c.tool) && guard.check(&c.tool, Some(&arguments(c))).is_ok())
                .count();
            assert_eq!(listed.len(), expected, "{ids:?}");
            assert!(ids.contains(&"store_status".to_owned()) && ids.contains(&"trace_error".to_owned()), "{ids:?}");
            assert!(!ids.contains(&"load_repository".to_owned()), "{ids:?}");
        }
    }

    /// The compile-time help slot and the run-time `help` tool agree: for a
    /// read-only session, the tool lists the slot's cards whose tool is served.
    #[test]
    fn read_only_help_is_the_help_slot_narrowed_to_served_tools() {
        let slot = COCKPIT
            .slots
            .iter()
            .find_map(|s| match &s.kind {
                m1nd_policy::SlotKind::Help { cards } => Some(cards),
                _ => None,
            })
            .expect("the policy has a help slot");
        let from_slot: Vec<String> = slot.iter().filter(|e| served(&e.tool)).map(|e| e.card.to_string()).collect();
        assert_eq!(ids(&cards(&Guard::new(&COCKPIT, true))), from_slot);
        // Before the served filter, the guard and the compiler agree on every card.
        let permitted: Vec<String> = slot.iter().map(|e| e.card.to_string()).collect();
        assert_eq!(ids(&callable(&COCKPIT.cards, &Guard::new(&COCKPIT, true), |_| true)), permitted);
    }

    #[test]
    fn the_answer_lists_the_same_cards_as_text_and_json() {
        let guard = Guard::new(&COCKPIT, false);
        let answer = answer(&guard);
        let text = answer.result().content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).expect("text");
        let value = answer.result().structured_content.clone().expect("structured content");
        let listed: Vec<&str> =
            value["cards"].as_array().expect("cards").iter().filter_map(|c| c["id"].as_str()).collect();
        assert_eq!(listed, ids(&cards(&guard)));
        assert!(text.starts_with(&format!("{} overview card(s)", listed.len())), "{text}");
        for card in cards(&guard) {
            assert!(text.contains(&format!("- {}: {}", card.title, card.tool)), "{text}");
        }
        assert!(!text.contains("not served"), "{text}");
    }
}
