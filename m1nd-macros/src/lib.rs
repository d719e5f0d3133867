//! `cockpit!("policy")`: compile the m1nd policy into a checked, static table.
//!
//! This crate is a thin shim. It finds the policy directory, hands the files
//! to [`m1nd_core::compile`], and turns the outcome into tokens: the table on
//! success, or one spanned `compile_error!` per violation plus a correctly
//! typed stub, so the policy's violations are the only errors rustc shows.
//!
//! ```text
//! pub static COCKPIT: m1nd_core::Cockpit = m1nd_macros::cockpit!("policy");
//! ```
//!
//! The path is a directory relative to the crate root (`CARGO_MANIFEST_DIR`).
//! When that directory does not exist there — as under trybuild, which builds
//! test cases from a copy of the manifest inside the target directory — it is
//! looked up relative to the package that contains the calling file instead.

mod locate;

use proc_macro::TokenStream;

const COMPILER_BUG: &str = "the m1nd policy compiler failed unexpectedly; this is a bug in m1nd-core, \
                            please report it with the policy that caused it";

/// Expand to a `const` expression of type `m1nd_core::Cockpit`.
#[proc_macro]
pub fn cockpit(input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    let call_file = proc_macro::Span::call_site().local_file();
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from);
    // The compiler is written not to panic; this is a last guard so that a bug
    // becomes a readable error instead of "proc macro panicked".
    let expanded = std::panic::catch_unwind(|| locate::expand(input, manifest, call_file)).unwrap_or_else(|_| {
        m1nd_core::codegen::stub(
            &m1nd_core::codegen::Includes(Vec::new()),
            m1nd_core::codegen::compile_error(COMPILER_BUG, proc_macro2::Span::call_site()),
        )
    });
    expanded.into()
}
