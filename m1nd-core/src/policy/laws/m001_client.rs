//! M001 (after parsing): a gateway policy's `client_capabilities` names
//! only client capabilities, each once, and only a gateway policy has it.
//!
//! `client_capabilities = ["roots"]` in tools.toml is what the gateway offers
//! its upstream on its clients' behalf (see [`crate::client_capability`]).
//! Any other value is refused with the nearest one, rather than offered or
//! dropped unread: a typo must not silently hide the tools that need it, nor
//! offer what was not reviewed. m1nd's own server has no upstream, so a
//! cockpit policy that declares the key is refused.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::profile::Profile;
use super::super::source::PolicyFile;
use super::near_name;
use crate::client_capability::ClientCapability;

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(offered) = &cx.raw.tools.client_capabilities else { return };
    if cx.raw.profile == Profile::Cockpit {
        out.push(
            Diagnostic::new(
                Law::M001,
                loc(PolicyFile::Tools, offered),
                "a cockpit policy declares no `client_capabilities`",
            )
            .label("m1nd's own server has no upstream to offer them to")
            .help("remove it: `client_capabilities` is for gateway policies"),
        );
        return;
    }
    let keys = ClientCapability::ALL.map(ClientCapability::key);
    let mut seen: Vec<&str> = Vec::new();
    for value in offered.get_ref() {
        let written = value.get_ref();
        if ClientCapability::from_key(written).is_none() {
            out.push(
                Diagnostic::new(
                    Law::M001,
                    loc(PolicyFile::Tools, value),
                    format!("`{written}` is not a client capability"),
                )
                .label("the gateway would not know what to offer the upstream")
                .help(near_name(&written.to_ascii_lowercase(), &keys, "client capabilities")),
            );
        } else if seen.contains(&written.as_str()) {
            out.push(
                Diagnostic::new(Law::M001, loc(PolicyFile::Tools, value), format!("`{written}` is named twice"))
                    .label("named again here")
                    .help("name each client capability once"),
            );
        } else {
            seen.push(written);
        }
    }
}
