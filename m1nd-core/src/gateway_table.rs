//! The compiled gateway policy: the verb table and deny list every guard
//! uses, plus what only a gateway enforces — argument pins and the digests
//! of the tool definitions a person reviewed.
//!
//! Like [`Cockpit`], every field is a `Cow<'static, _>`, so the same type can
//! be built at run time by [`crate::policy::compile_gateway`] or written as a
//! `static`.
//!
//! It sits one floor below both the policy compiler, which lowers into it, and
//! the gateway's run-time checks, which read it, so neither imports the other.

use crate::client_capability::ClientCapability;
use crate::mode::SessionMode;
use crate::table::{Cockpit, List, Str, VerbId};

/// A gateway policy, after every law holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gateway {
    /// Verbs, deny list and status-only rules: what [`crate::guard::Guard`] checks.
    pub policy: Cockpit,
    /// One entry per verb, in tools.toml order.
    pub tools: List<GatewayTool>,
    /// The mode the policy declares (`mode` in tools.toml; read-only when it
    /// declares none). A command line can make a session stricter, never looser.
    pub mode: SessionMode,
    /// The prompts, resources and resource templates a session may see.
    pub surfaces: Surfaces,
    /// The client capabilities offered to the upstream
    /// (`client_capabilities` in tools.toml; none when it names none), in
    /// [`ClientCapability::ALL`]'s order.
    pub client: List<ClientCapability>,
}

/// What a gateway policy lets a session see besides tools. Each kind is
/// hidden and refused unless the policy declares it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Surfaces {
    /// Prompts, by their exact upstream names, in tools.toml order.
    pub prompts: List<Surface>,
    /// Resources, by their exact URIs.
    pub resources: List<Surface>,
    /// Resource templates, by their exact URI templates.
    pub templates: List<Surface>,
}

/// One declared prompt, resource or resource template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Surface {
    /// The prompt's name, the resource's URI or the template's URI template,
    /// exactly as the upstream lists it.
    pub key: Str,
    /// `blake3:` digest of the reviewed definition, as for a tool.
    pub definition: Option<Str>,
}

impl Gateway {
    /// Whether the policy offers `capability` to the upstream.
    pub fn offers(&self, capability: ClientCapability) -> bool {
        self.client.contains(&capability)
    }
}

impl Surfaces {
    /// Whether the policy declares nothing besides tools.
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty() && self.resources.is_empty() && self.templates.is_empty()
    }
}

/// What the gateway checks for one verb beyond the guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatewayTool {
    /// The canonical verb name.
    pub verb: Str,
    /// `blake3:` digest of the upstream definition that was reviewed; a live
    /// definition with another digest is hidden and refused.
    pub definition: Option<Str>,
    pub pins: List<Pin>,
}

/// One argument scoped to allowed values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pin {
    pub argument: Str,
    pub rule: PinRule,
}

/// What a pinned argument may hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PinRule {
    /// Exactly one of these strings, byte for byte.
    Allowed(List<Str>),
    /// A path (or every path of an array) that, canonicalised, lies in one of
    /// these absolute directories (see [`crate::gateway::paths`]).
    Under {
        dirs: List<Str>,
        /// Whether a regular file with more than one hard link may pass
        /// (`hard_links = true`): off unless the policy says so, since a hard
        /// link inside the directory can be the same file as one outside.
        hard_links: bool,
    },
}

impl Gateway {
    /// The gateway entry of a canonical verb.
    pub fn tool(&self, verb: &str) -> Option<&GatewayTool> {
        self.tools.iter().find(|t| t.verb == verb)
    }

    /// The gateway entry of a verb the guard resolved: `tools` has one entry
    /// per verb in the table's order, and the entry must name the same verb.
    pub fn tool_at(&self, id: VerbId) -> Option<&GatewayTool> {
        let verb = self.policy.verb_at(id)?;
        self.tools.get(id.index()).filter(|t| t.verb == verb.name)
    }
}

/// The three kinds of surface, each with its table in tools.toml.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceKind {
    Prompt,
    Resource,
    Template,
}

impl SurfaceKind {
    /// Every kind, in the order tools.toml declares and a report lists them.
    pub const ALL: [SurfaceKind; 3] = [SurfaceKind::Prompt, SurfaceKind::Resource, SurfaceKind::Template];

    /// The key a definition is named by in the upstream's listing.
    pub fn key(self) -> &'static str {
        match self {
            SurfaceKind::Prompt => "name",
            SurfaceKind::Resource => "uri",
            SurfaceKind::Template => "uriTemplate",
        }
    }

    /// The table of tools.toml that declares this kind.
    pub fn table(self) -> &'static str {
        match self {
            SurfaceKind::Prompt => "prompts",
            SurfaceKind::Resource => "resources",
            SurfaceKind::Template => "templates",
        }
    }

    /// One of them, in words.
    pub fn noun(self) -> &'static str {
        match self {
            SurfaceKind::Prompt => "prompt",
            SurfaceKind::Resource => "resource",
            SurfaceKind::Template => "resource template",
        }
    }

    /// The keys served whatever the pin: what a client needs to use it.
    pub(crate) fn structural(self) -> &'static [&'static str] {
        match self {
            SurfaceKind::Prompt => &["name", "arguments"],
            SurfaceKind::Resource => &["uri", "name", "mimeType"],
            SurfaceKind::Template => &["uriTemplate", "name", "mimeType"],
        }
    }

    /// The surfaces of this kind `gateway` declares, in tools.toml order.
    pub fn declared(self, gateway: &Gateway) -> &[Surface] {
        let s = &gateway.surfaces;
        match self {
            SurfaceKind::Prompt => &s.prompts,
            SurfaceKind::Resource => &s.resources,
            SurfaceKind::Template => &s.templates,
        }
    }
}
