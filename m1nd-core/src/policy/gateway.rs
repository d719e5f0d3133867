//! Lowering what only a gateway enforces: pins, definition digests, the
//! session mode and the client capabilities offered upstream.

use std::borrow::Cow;

use super::context::Context;
use super::raw::in_source_order;
use super::raw::{SurfaceDef, Table};
use crate::client_capability::ClientCapability;
use crate::gateway_table::{Gateway, GatewayTool, Pin, PinRule, Surface, Surfaces};
use crate::mode::SessionMode;
use crate::table::{Cockpit, Str};

/// Build the gateway table around the lowered cockpit. The laws hold.
pub fn lower(cx: &Context<'_>, policy: Cockpit) -> Gateway {
    let tools = cx
        .verbs_in_order()
        .into_iter()
        .map(|(name, def)| {
            let def = def.get_ref();
            let pins = in_source_order(&def.pins)
                .into_iter()
                .filter_map(|(argument, pin)| {
                    let pin = pin.get_ref();
                    let strings = |list: &toml::Spanned<Vec<super::raw::Text>>| -> Cow<'static, [Str]> {
                        Cow::Owned(list.get_ref().iter().map(|t| Cow::Owned(t.get_ref().clone())).collect())
                    };
                    let rule = match (&pin.allowed, &pin.under) {
                        (Some(allowed), None) => PinRule::Allowed(strings(allowed)),
                        (None, Some(under)) => PinRule::Under {
                            dirs: strings(under),
                            hard_links: pin.hard_links.as_ref().is_some_and(|h| *h.get_ref()),
                        },
                        _ => return None,
                    };
                    Some(Pin { argument: Cow::Owned(argument.get_ref().clone()), rule })
                })
                .collect();
            GatewayTool {
                verb: Cow::Owned(name.get_ref().clone()),
                definition: def.definition.as_ref().map(|d| Cow::Owned(d.get_ref().clone())),
                pins: Cow::Owned(pins),
            }
        })
        .collect();
    // M001 checked the value: anything else is not reached.
    let mode = cx.raw.tools.mode.as_ref().and_then(|m| SessionMode::from_key(m.get_ref())).unwrap_or_default();
    let raw = &cx.raw.tools;
    let surfaces = Surfaces {
        prompts: surfaces(&raw.prompts),
        resources: surfaces(&raw.resources),
        templates: surfaces(&raw.templates),
    };
    // M001 checked every value: each names a capability.
    let named = |c: &ClientCapability| {
        raw.client_capabilities.as_ref().is_some_and(|list| list.get_ref().iter().any(|v| v.get_ref() == c.key()))
    };
    let client = ClientCapability::ALL.into_iter().filter(named).collect();
    Gateway { policy, tools: Cow::Owned(tools), mode, surfaces, client }
}

/// One kind of declared surface, in source order.
fn surfaces(table: &Table<SurfaceDef>) -> Cow<'static, [Surface]> {
    in_source_order(table)
        .into_iter()
        .map(|(key, def)| Surface {
            key: Cow::Owned(key.get_ref().clone()),
            definition: def.get_ref().definition.as_ref().map(|d| Cow::Owned(d.get_ref().clone())),
        })
        .collect()
}
