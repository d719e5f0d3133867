//! The properties the fuzz targets check, one module per parser a stranger
//! can reach. Each target in `fuzz_targets/` is a few lines that hand the
//! fuzzer's bytes to one `check` here; everything a target asserts lives in
//! this library, next to the decoding of its input.
//!
//! A property is an `assert!`: libFuzzer reports a panic as a crash and keeps
//! the input that caused it. Every check runs on library entry points of
//! `m1nd-policy`, or of `m1nd` through its hidden `m1nd::fuzzing` module (the
//! server's own functions, not copies), never on a spawned binary.
//!
//! | target      | input                                     | module          |
//! |-------------|-------------------------------------------|-----------------|
//! | `reference` | what a human types as `select`            | [`reference`]   |
//! | `sanitize`  | any untrusted text, and a cap             | [`sanitize`]    |
//! | `policy`    | a policy directory ([`policy_dir`])       | [`policy`]      |
//! | `gateway`   | an upstream's tool list, and calls to it  | [`gateway`]     |
//! | `store`     | store contents from a hostile writer      | [`store`]       |
//! | `request`   | a JSON-RPC line from any MCP client       | [`request`]     |
//! | `tray`      | the tray's cookies, CSRF, forms, `select` | [`tray`]        |
//! | `fleet`     | a fleet directory: `fleet.toml`, policies | [`fleet`]       |
//! | `uri_template` | a declared URI template, and URIs      | [`uri_template`] |
//! | `sse`       | rmcp's event stream, cut anyhow           | [`sse`]         |
//! | `tap`       | an upstream's stdout; a POST body         | [`tap`]         |
//! | `upstream`  | an upstream's answers, errors, progress   | [`upstream`]    |
//! | `store_sqlite` | a `state.json` imported into SQLite    | [`store_sqlite`] |

pub mod fleet;
pub mod gateway;
pub mod policy;
pub mod policy_dir;
pub mod reference;
#[cfg(feature = "server")]
pub mod request;
pub mod sanitize;
#[cfg(feature = "server")]
pub mod sse;
pub mod store;
#[cfg(feature = "server")]
pub mod store_sqlite;
pub mod tables;
#[cfg(feature = "server")]
pub mod tap;
#[cfg(feature = "server")]
pub mod tray;
#[cfg(feature = "server")]
pub mod upstream;
pub mod uri_template;
mod view;

/// What "invisible" means to every check of sanitised text: the predicate
/// the sanitiser's own Unicode tests use (ICU4X's data, not the sanitiser's).
#[path = "../../m1nd-core/tests/support/unicode.rs"]
pub mod unicode;

/// Whether `text` is what the sanitiser lets through: nothing invisible, no
/// control or separator other than the plain space.
pub fn is_display_safe(text: &str) -> bool {
    !text.chars().any(|c| unicode::is_invisible(c) || unicode::breaks_text(c))
}
