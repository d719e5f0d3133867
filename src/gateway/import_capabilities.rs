//! Which upstream tools need a client capability the policy does not offer.
//!
//! An upstream may list a tool only to a client that offers sampling,
//! elicitation or roots (server-everything registers
//! `trigger-sampling-request` only for a client that offers sampling). The
//! gateway offers only what `client_capabilities` names, so such a tool would
//! vanish with no word why. `policy import` and `--update` therefore list
//! once more, offering the rest; when more tools appear, once per capability,
//! to say which each needs. The report says they are left out, and how to
//! review them. These listings are only compared: nothing from them is
//! declared or stored.

use std::fmt::Write as _;

use m1nd_policy::ClientCapability;
use serde_json::Value;

use super::error::GatewayError;
use super::import_listing::{ImportOptions, listing};
use super::readable::visible;

/// An upstream tool listed only to a client that offers more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Needs {
    /// Its name, as shown (escaped).
    pub tool: String,
    /// What makes the upstream list it: one capability, or, when no single
    /// one does, every one not offered.
    pub capabilities: Vec<ClientCapability>,
}

/// The tools the upstream lists only when offered what `offered` leaves
/// out, compared with `base`, the tools it lists under `offered`.
pub async fn needing(
    options: &ImportOptions,
    offered: &[ClientCapability],
    base: &[Value],
) -> Result<Vec<Needs>, GatewayError> {
    let others: Vec<ClientCapability> = ClientCapability::ALL.into_iter().filter(|c| !offered.contains(c)).collect();
    if others.is_empty() {
        return Ok(Vec::new());
    }
    let with = |extra: &[ClientCapability]| [offered, extra].concat();
    let extra = new_names(base, &listing(options, &with(&others)).await?.tools);
    if extra.is_empty() {
        return Ok(Vec::new());
    }
    let mut single: Vec<(ClientCapability, Vec<String>)> = Vec::new();
    if others.len() > 1 {
        for capability in &others {
            single.push((*capability, new_names(base, &listing(options, &with(&[*capability])).await?.tools)));
        }
    }
    Ok(extra
        .into_iter()
        .map(|tool| {
            let alone: Vec<ClientCapability> =
                single.iter().filter(|(_, names)| names.contains(&tool)).map(|(c, _)| *c).collect();
            Needs { capabilities: if alone.is_empty() { others.clone() } else { alone }, tool }
        })
        .collect())
}

/// The names in `wider` that `base` does not list, escaped, in `wider`'s order.
fn new_names(base: &[Value], wider: &[Value]) -> Vec<String> {
    let name = |d: &Value| d.get("name").and_then(Value::as_str).map(str::to_owned);
    let known: Vec<String> = base.iter().filter_map(name).collect();
    wider.iter().filter_map(name).filter(|n| !known.contains(n)).map(|n| visible(&n)).collect()
}

/// What the report says of `needs`: each tool and what it needs, that it is
/// left out because of `offered`, and how to review it (`tools` names the
/// policy's tools.toml as the user wrote it).
pub fn report(needs: &[Needs], offered: &[ClientCapability], tools: &str, update: &str) -> String {
    if needs.is_empty() {
        return String::new();
    }
    let named = |list: &[ClientCapability]| list.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(" and ");
    let now = if offered.is_empty() { "none".to_owned() } else { named(offered) };
    let mut out = format!(
        "left out: the upstream lists {} more tool{} to a client that offers what this policy does not \
         (`client_capabilities` in {tools} offers {now}), so the gateway never sees {}:\n",
        needs.len(),
        if needs.len() == 1 { "" } else { "s" },
        if needs.len() == 1 { "it" } else { "them" },
    );
    for need in needs {
        let _ = writeln!(out, "  - `{}` needs {}", need.tool, named(&need.capabilities));
    }
    let _ = writeln!(
        out,
        "To review one, add what it needs to `client_capabilities` in {tools} (the upstream may then send that \
         request, and the gateway relays it to the client of the session whose call the upstream is serving), \
         then run `{update}` with the same upstream: it proposes the tool."
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_report_names_each_tool_what_it_needs_and_what_to_do() {
        let needs = [
            Needs { tool: "trigger-sampling-request".into(), capabilities: vec![ClientCapability::Sampling] },
            Needs {
                tool: "both".into(),
                capabilities: vec![ClientCapability::Sampling, ClientCapability::Elicitation],
            },
        ];
        let text = report(&needs, &[], "p/tools.toml", "m1nd policy import --update --policy p");
        assert!(text.starts_with("left out: the upstream lists 2 more tools to a client that offers what this policy"));
        assert!(text.contains("(`client_capabilities` in p/tools.toml offers none)"), "{text}");
        assert!(text.contains("  - `trigger-sampling-request` needs `sampling`\n"), "{text}");
        assert!(text.contains("  - `both` needs `sampling` and `elicitation`\n"), "{text}");
        assert!(text.contains("then run `m1nd policy import --update --policy p` with the same upstream"), "{text}");
        let some = report(&needs[..1], &[ClientCapability::Roots], "t", "u");
        assert!(some.contains("1 more tool to") && some.contains("offers `roots`), so the gateway never sees it"));
        assert_eq!(report(&[], &[], "t", "u"), "", "nothing left out, nothing said");
    }

    #[test]
    fn only_names_the_base_listing_lacks_are_new_and_shown_escaped() {
        let base = [json!({"name": "echo"})];
        let wider = [json!({"name": "echo"}), json!({"name": "ask\u{202e}"}), json!({"title": "no name"})];
        assert_eq!(new_names(&base, &wider), ["ask\\u{202e}"]);
    }
}
