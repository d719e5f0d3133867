//! The MCP App: the cockpit widget served as a `ui://` resource, and the
//! pointers a host follows to it.
//!
//! A host that supports the `io.modelcontextprotocol/ui` extension reads the
//! `cockpit` tool's `_meta.ui.resourceUri`, fetches that URI with
//! `resources/read` and draws the template with each result's
//! `structuredContent`. A host without the extension ignores all of this and
//! shows the text card in `content`. The one resource is the template built
//! into this binary ([`crate::widget`]); its URI changes whenever its bytes do.

use crate::widget;
use rmcp::ErrorData as McpError;
use rmcp::model::{ExtensionCapabilities, JsonObject, MetaObject, ReadResourceResult, Resource, ResourceContents};
use serde_json::{Value, json};

/// The MCP Apps extension id.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// What the server declares under `capabilities.extensions`.
pub fn extensions() -> ExtensionCapabilities {
    ExtensionCapabilities::from([(EXTENSION.to_owned(), object(json!({ "mimeTypes": [widget::MIME_TYPE] })))])
}

/// The `cockpit` tool's `_meta`: the view's URI under `ui.resourceUri`, and
/// under the older flat key `ui/resourceUri` that earlier hosts read.
pub fn tool_meta() -> MetaObject {
    MetaObject::from(object(json!({
        "ui": { "resourceUri": widget::uri() },
        "ui/resourceUri": widget::uri(),
    })))
}

/// The resource's `_meta.ui`: the template reaches no network, so it
/// declares no domain of any kind and the host's default policy applies.
fn resource_meta() -> MetaObject {
    MetaObject::from(object(json!({
        "ui": { "csp": { "connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": [] } }
    })))
}

/// `resources/list`: the template, and nothing else.
pub fn resources() -> Vec<Resource> {
    vec![
        Resource::new(widget::uri(), "cockpit")
            .with_title("m1nd cockpit")
            .with_description(format!(
                "{}: the cockpit's numbered menu drawn from its structuredContent",
                widget::VERSION
            ))
            .with_mime_type(widget::MIME_TYPE)
            .with_size(widget::TEMPLATE.len() as u64)
            .with_meta(resource_meta()),
    ]
}

/// `resources/read` of `uri`.
pub fn read(uri: &str) -> Result<ReadResourceResult, McpError> {
    if uri != widget::uri() {
        let asked: String = uri.chars().take(200).collect();
        return Err(McpError::resource_not_found(
            format!("no resource `{asked}`; this server serves one: `{}`", widget::uri()),
            None,
        ));
    }
    let contents = ResourceContents::TextResourceContents {
        uri: widget::uri().to_owned(),
        mime_type: Some(widget::MIME_TYPE.to_owned()),
        text: widget::TEMPLATE.to_owned(),
        meta: Some(resource_meta()),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(object) => object,
        _ => JsonObject::new(),
    }
}
