//! The digest of a whole gateway policy: the guard's table, and what only a
//! gateway enforces (pins and pinned definition digests).
//!
//! Invariant 1: no change to a gateway policy's meaning leaves its digest
//! unchanged. [`Cockpit`](crate::table::Cockpit)'s digest covers the verbs and
//! the deny list; this one adds every [`GatewayTool`], taken apart with
//! exhaustive patterns like the rest of the encoding, so a field added to the
//! gateway table does not compile until it is encoded here.

use super::{Encoder, encode};
use crate::gateway_table::{Gateway, GatewayTool, Pin, PinRule};

/// 64 lowercase hex digits of blake3 over the gateway encoding: what
/// `m1nd policy digest` prints for a gateway policy.
pub fn gateway_digest(gateway: &Gateway) -> String {
    let Gateway { policy, tools } = gateway;
    let mut e = Encoder(Vec::with_capacity(16 * 1024));
    e.str("m1nd-gateway-encoding-v1");
    let table = encode(policy);
    e.len(table.len());
    e.0.extend_from_slice(&table);
    e.each(tools, |e, tool| {
        let GatewayTool { verb, definition, pins } = tool;
        e.str(verb);
        e.opt(definition.as_deref());
        e.each(pins, |e, pin| {
            let Pin { argument, rule } = pin;
            e.str(argument);
            match rule {
                PinRule::Allowed(values) => {
                    e.tag(0);
                    e.strs(values);
                }
                PinRule::Under { dirs, hard_links } => {
                    e.tag(1);
                    e.strs(dirs);
                    e.bool(*hard_links);
                }
            }
        });
    });
    blake3::hash(&e.0).to_hex().to_string()
}
