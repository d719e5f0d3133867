//! `cockpit!("policy")`: compile the m1nd policy into a checked, static table.
//!
//! This crate is a thin shim. It finds the policy directory, hands the files
//! to [`m1nd_policy::compile`], and turns the outcome into tokens: the table on
//! success, or one spanned `compile_error!` per violation plus a correctly
//! typed stub, so the policy's violations are the only errors rustc shows.
//!
//! ```text
//! pub static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("policy");
//! ```
//!
//! The path is a directory relative to the crate root (`CARGO_MANIFEST_DIR`).
//! When that directory does not exist there — as under trybuild, which builds
//! test cases from a copy of the manifest inside the target directory — it is
//! looked up relative to the package that contains the calling file instead.

mod locate;
mod runtime;

use proc_macro::TokenStream;

const COMPILER_BUG: &str = "the m1nd policy compiler failed unexpectedly; this is a bug in m1nd-policy, \
                            please report it with the policy that caused it";

/// Expand to a `const` expression of type `m1nd_policy::Cockpit`.
#[proc_macro]
pub fn cockpit(input: TokenStream) -> TokenStream {
    expand(input, locate::Kind::Cockpit)
}

/// `gateway!("policy")`: a gateway policy (tools.toml and read_only_denied.toml;
/// the menu files optional), checked by the laws at compile time and embedded
/// as a `const` `m1nd_policy::gateway::Embedded`. Hand it to `m1nd::gateway::serve`.
///
/// ```text
/// static POLICY: m1nd_policy::gateway::Embedded = m1nd_macros::gateway!("policy");
/// ```
#[proc_macro]
pub fn gateway(input: TokenStream) -> TokenStream {
    expand(input, locate::Kind::Gateway)
}

/// `fleet!("fleet")`: a fleet (`fleet.toml`, naming several upstreams, each
/// with its own gateway policy directory and name prefix), checked at compile
/// time by every law of each policy and by M017 across them, and embedded as
/// a `const` `m1nd_policy::gateway::fleet::EmbeddedFleet`.
///
/// ```text
/// static FLEET: m1nd_policy::gateway::fleet::EmbeddedFleet = m1nd_macros::fleet!("fleet");
/// ```
#[proc_macro]
pub fn fleet(input: TokenStream) -> TokenStream {
    expand(input, locate::Kind::Fleet)
}

/// `calls!("policy")`, in item position: each verb's arguments as a Rust
/// type (a struct per verb, an enum per text enum, a struct per object with
/// declared members) and `Call`, the enum of them all, with `Call::parse`.
/// The server parses a checked call into its `Call` once, at its edge, and
/// handlers take that value. serde and serde_json are reached through the
/// runtime crate, so the caller needs neither.
///
/// ```text
/// pub mod calls { m1nd_macros::calls!("policy"); }
/// ```
#[proc_macro]
pub fn calls(input: TokenStream) -> TokenStream {
    expand(input, locate::Kind::Calls)
}

/// Every macro's expansion: the compiler is written not to panic; this is a
/// last guard so that a bug becomes a readable error instead of "proc macro
/// panicked", next to a stub of the macro's type.
fn expand(input: TokenStream, kind: locate::Kind) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    let call_file = proc_macro::Span::call_site().local_file();
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from);
    let expanded = std::panic::catch_unwind(|| locate::expand(input, manifest, call_file, kind)).unwrap_or_else(|_| {
        let bug = m1nd_policy::codegen::compile_error(COMPILER_BUG, proc_macro2::Span::call_site());
        kind.stub(&m1nd_policy::codegen::Includes(Vec::new()), bug, runtime::resolve().as_ref())
    });
    expanded.into()
}
