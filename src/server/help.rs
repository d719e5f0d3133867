//! The `help` verb: the overview cards this session may call.
//!
//! A card is listed only if the guard would let this session call its tool
//! with the card's pinned arguments, so a read-only session never sees a card
//! that leads to a refusal (`persist` stays, pinned to `action = "status"`).

use m1nd::COCKPIT;
use m1nd_core::Card;
use m1nd_core::guard::Guard;
use rmcp::model::{CallToolResult, JsonObject};
use serde_json::{Value, json};

use super::catalog::served;
use super::reply;

/// The overview cards `guard` permits, in policy order.
pub fn cards(guard: &Guard<'_>) -> Vec<&'static Card> {
    COCKPIT.cards.iter().filter(|c| c.overview && guard.check(&c.tool, Some(&arguments(c))).is_ok()).collect()
}

fn arguments(card: &Card) -> JsonObject {
    card.arguments.iter().map(|a| (a.name.to_string(), Value::from(a.value.to_string()))).collect()
}

/// The `help` answer: a readable list plus the same cards as JSON.
pub fn answer(guard: &Guard<'_>) -> CallToolResult {
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
        let here = if served(&card.tool) { "" } else { " (not served by this server)" };
        text.push_str(&format!("\n- {}: {call}{here}\n  {}\n", card.title, card.why));
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
            "served": served(&c.tool),
        })).collect::<Vec<_>>(),
    });
    reply::text_and_value(text, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_drops_cards_that_write_and_keeps_pinned_status() {
        let ids = |read_only| -> Vec<String> {
            cards(&Guard::new(&COCKPIT, read_only)).iter().map(|c| c.id.to_string()).collect()
        };
        let all = ids(false);
        let ro = ids(true);
        assert!(all.contains(&"load_repository".to_owned()));
        assert!(!ro.contains(&"load_repository".to_owned()));
        assert!(ro.contains(&"store_status".to_owned()));
        for card in cards(&Guard::new(&COCKPIT, true)) {
            assert!(!COCKPIT.deny.lists(&card.tool), "{}", card.id);
        }
    }
}
