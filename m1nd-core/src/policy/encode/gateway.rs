//! The digest of a whole gateway policy: the guard's table, and what only a
//! gateway enforces (pins and pinned definition digests).
//!
//! Invariant 1: no change to a gateway policy's meaning leaves its digest
//! unchanged. [`Cockpit`](crate::table::Cockpit)'s digest covers the verbs and
//! the deny list; this one adds every [`GatewayTool`], taken apart with
//! exhaustive patterns like the rest of the encoding, so a field added to the
//! gateway table does not compile until it is encoded here.

use super::{Encoder, encode};
use crate::client_capability::ClientCapability;
use crate::gateway_table::{Gateway, GatewayTool, Pin, PinRule, Surface, Surfaces};
use crate::mode::SessionMode;

/// 64 lowercase hex digits of blake3 over the gateway encoding: what
/// `m1nd policy digest` prints for a gateway policy.
pub fn gateway_digest(gateway: &Gateway) -> String {
    let Gateway { policy, tools, mode, surfaces, client } = gateway;
    let mut e = Encoder(Vec::with_capacity(16 * 1024));
    e.str("m1nd-gateway-encoding-v1");
    e.tag(match mode {
        SessionMode::ReadOnly => 0,
        SessionMode::ReadWrite => 1,
    });
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
    // Prompts, resources and templates follow as a trailer, present only when
    // declared: a policy of tools alone keeps the digest it had before they
    // could be declared, and since everything before is length-prefixed, a
    // trailer can never be read as part of the tools.
    if !surfaces.is_empty() {
        let Surfaces { prompts, resources, templates } = surfaces;
        e.str("surfaces");
        for kind in [prompts, resources, templates] {
            e.each(kind, |e, surface| {
                let Surface { key, definition } = surface;
                e.str(key);
                e.opt(definition.as_deref());
            });
        }
    }
    // The client capabilities offered upstream: a trailer of its own, for
    // the same reason, named so that it is never read as the surfaces'.
    if !client.is_empty() {
        e.str("client");
        e.each(client, |e, capability| {
            e.tag(match capability {
                ClientCapability::Sampling => 0,
                ClientCapability::Elicitation => 1,
                ClientCapability::Roots => 2,
            });
        });
    }
    blake3::hash(&e.0).to_hex().to_string()
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::{PolicyFile, PolicySources, compile_gateway};

    fn base() -> Gateway {
        let tools = "[verbs.git_status]\nsummary = \"s\"\nrequires = [\"repo_path\"]\n\
                     definition = \"blake3:0000000000000000000000000000000000000000000000000000000000000000\"\n\
                     pins.repo_path = { under = [\"/srv/a\"] }\n\n\
                     [verbs.git_branch]\nsummary = \"b\"\naccepts = [\"branch_type\"]\n\
                     pins.branch_type = { allowed = [\"local\"] }\n";
        let sources = PolicySources::from_bytes("gw", |f| match f {
            PolicyFile::Tools => Some(tools.as_bytes()),
            PolicyFile::Deny => Some(b"tools = []\n".as_slice()),
            _ => None,
        });
        compile_gateway(&sources).unwrap_or_else(|p| panic!("{}", p[0].render(&sources)))
    }

    /// One named edit of a compiled gateway table.
    type Edit = (&'static str, fn(&mut Gateway));

    fn surface(key: &'static str, definition: Option<&'static str>) -> Surface {
        Surface { key: Cow::Borrowed(key), definition: definition.map(Cow::Borrowed) }
    }

    /// A prompt moved into the resources is another policy, and so is a
    /// surface whose definition is pinned.
    #[test]
    fn each_surface_kind_and_pin_is_told_apart() {
        let with = |edit: fn(&mut Surfaces)| {
            let mut g = base();
            edit(&mut g.surfaces);
            gateway_digest(&g)
        };
        let prompt = with(|s| s.prompts.to_mut().push(surface("x:a", None)));
        let resource = with(|s| s.resources.to_mut().push(surface("x:a", None)));
        let pinned = with(|s| s.prompts.to_mut().push(surface("x:a", Some("blake3:1"))));
        assert_ne!(prompt, resource);
        assert_ne!(prompt, pinned);
    }

    /// Each capability offered is another policy.
    #[test]
    fn each_client_capability_is_told_apart() {
        let digests: Vec<String> = ClientCapability::ALL
            .into_iter()
            .map(|c| {
                let mut g = base();
                g.client = Cow::Owned(vec![c]);
                gateway_digest(&g)
            })
            .collect();
        assert_ne!(digests[0], digests[1]);
        assert_ne!(digests[1], digests[2]);
        assert_ne!(digests[0], digests[2]);
    }

    fn tool(g: &mut Gateway, i: usize) -> &mut GatewayTool {
        &mut g.tools.to_mut()[i]
    }

    /// Every part of the gateway-only table moves the digest.
    #[test]
    fn each_gateway_field_changes_the_digest() {
        let original = gateway_digest(&base());
        assert_eq!(original, gateway_digest(&base()), "the digest is deterministic");
        assert_eq!(original.len(), 64);
        let edits: [Edit; 15] = [
            ("the guard's table", |g| g.policy.title = Cow::Borrowed("other")),
            ("the session mode", |g| g.mode = SessionMode::ReadWrite),
            ("a verb", |g| tool(g, 0).verb = Cow::Borrowed("git_other")),
            ("a definition dropped", |g| tool(g, 0).definition = None),
            ("a definition changed", |g| tool(g, 0).definition = Some(Cow::Borrowed("blake3:1"))),
            ("a pin's argument", |g| tool(g, 0).pins.to_mut()[0].argument = Cow::Borrowed("path")),
            ("an under dir", |g| {
                tool(g, 0).pins.to_mut()[0].rule =
                    PinRule::Under { dirs: Cow::Owned(vec![Cow::Borrowed("/srv/b")]), hard_links: false }
            }),
            ("hard links", |g| {
                tool(g, 0).pins.to_mut()[0].rule =
                    PinRule::Under { dirs: Cow::Owned(vec![Cow::Borrowed("/srv/a")]), hard_links: true }
            }),
            ("an allowed value", |g| {
                tool(g, 1).pins.to_mut()[0].rule = PinRule::Allowed(Cow::Owned(vec![Cow::Borrowed("remote")]))
            }),
            ("a prompt", |g| g.surfaces.prompts.to_mut().push(surface("greet", None))),
            ("a resource", |g| g.surfaces.resources.to_mut().push(surface("file:///a", None))),
            ("a template", |g| g.surfaces.templates.to_mut().push(surface("file:///{a}", None))),
            ("sampling offered", |g| g.client.to_mut().push(ClientCapability::Sampling)),
            ("elicitation offered", |g| g.client.to_mut().push(ClientCapability::Elicitation)),
            ("roots offered", |g| g.client.to_mut().push(ClientCapability::Roots)),
        ];
        for (what, edit) in edits {
            let mut g = base();
            edit(&mut g);
            assert_ne!(gateway_digest(&g), original, "{what} left the gateway digest unchanged");
        }
    }
}
