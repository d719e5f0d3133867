//! The cockpit widget: `widget/cockpit.html`, compiled into the binary.
//!
//! The template is the cockpit's third skin. The server serves it as an MCP
//! App resource; `m1nd cockpit --html` pastes a view into it for hosts
//! without MCP Apps. A host may cache a template by its URI, so the URI
//! carries both the version and a digest of the bytes: any edit to the file
//! is a new URI.

use std::sync::OnceLock;

use serde_json::Value;

/// The template's version, written in the file and in its URI.
pub const VERSION: &str = "m1nd-cockpit-widget-v1";

/// The template, as built into this binary.
pub const TEMPLATE: &str = include_str!("../widget/cockpit.html");

/// The MIME type of an MCP App view.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Where `--html` writes the view: the content of the template's JSON data block.
pub const MARKER: &str = "/*m1nd-view*/";

/// The largest template allowed (32 KiB); a test keeps the file under it.
pub const MAX_TEMPLATE_BYTES: usize = 32 * 1024;

/// 64 hex digits of blake3 over the template's bytes: what the server
/// attests, so a client can pin the template it reviewed.
pub fn full_digest() -> &'static str {
    static DIGEST: OnceLock<String> = OnceLock::new();
    DIGEST.get_or_init(|| blake3::hash(TEMPLATE.as_bytes()).to_hex().to_string())
}

/// The first 8 hex digits of [`full_digest`], enough to give an edited
/// template a new URI.
pub fn digest() -> &'static str {
    &full_digest()[..8]
}

/// The template's resource URI: `ui://m1nd/m1nd-cockpit-widget-v1-<digest>.html`.
pub fn uri() -> &'static str {
    static URI: OnceLock<String> = OnceLock::new();
    URI.get_or_init(|| format!("ui://m1nd/{VERSION}-{}.html", digest()))
}

/// The template with `view` (a `m1nd-cockpit-v1` JSON value) embedded at
/// [`MARKER`], for pasting into a host without MCP Apps.
pub fn pasted(view: &Value) -> String {
    TEMPLATE.replacen(MARKER, &embeddable_json(view), 1)
}

/// `value` as JSON that can sit inside a `<script>` element of an HTML
/// document: `<`, `>` and `&` become JSON escapes, so no string can close the
/// script or open a comment, and U+2028/U+2029 are escaped for JavaScript
/// parsers that treat them as line ends. These characters only occur inside
/// JSON strings, where the escapes mean the same characters.
pub fn embeddable_json(value: &Value) -> String {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_template_is_versioned_bounded_and_has_one_marker() {
        assert!(TEMPLATE.len() <= MAX_TEMPLATE_BYTES, "the template is {} bytes", TEMPLATE.len());
        assert!(TEMPLATE.contains(VERSION));
        assert_eq!(TEMPLATE.matches(MARKER).count(), 1);
        assert!(uri().starts_with("ui://") && uri().contains(VERSION) && uri().contains(digest()));
        assert_eq!(digest().len(), 8);
        assert!(digest().bytes().all(|b| b.is_ascii_hexdigit()));
    }

    /// The template names the schema it reads and its own version in its
    /// script; both must be the ones this build serves.
    #[test]
    fn the_template_reads_the_schema_the_composer_writes() {
        let schema = format!("SCHEMA = \"{}\"", m1nd_policy::runtime::json::SCHEMA);
        assert!(TEMPLATE.contains(&schema), "the template does not read {schema}");
        assert!(TEMPLATE.contains(&format!("VERSION = \"{VERSION}\"")));
    }

    #[test]
    fn embedded_json_cannot_end_the_script_and_reads_back_the_same() {
        let hostile = json!({
            "title": "</script><script>alert(1)</script><!-- & -->",
            "item": "a\u{2028}b\u{2029}c",
        });
        let embedded = embeddable_json(&hostile);
        for c in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
            assert!(!embedded.contains(c), "{c:?} left in {embedded}");
        }
        assert_eq!(serde_json::from_str::<Value>(&embedded).expect("JSON"), hostile);
        let page = pasted(&hostile);
        assert_eq!(page.matches("</script>").count(), TEMPLATE.matches("</script>").count());
        assert!(!page.contains(MARKER));
    }
}
