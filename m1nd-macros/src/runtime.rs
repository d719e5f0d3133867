//! Where the expansion finds its runtime crate, `m1nd-policy`.
//!
//! Nothing is hard-coded: the caller's own `Cargo.toml` says under which
//! name it depends on `m1nd-policy` (renamed or not), or on a facade that
//! re-exports it, and `crate = path` in the macro call overrides both. So a
//! workspace that also holds an unrelated crate called `m1nd_core` (upstream
//! m1nd's graph engine) or even `m1nd_policy` under another package name
//! gets code that names only the crate it asked for.

use m1nd_policy::codegen::Runtime;
use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The runtime package, under its published name.
const RUNTIME: &str = "m1nd-policy";

/// Facades that re-export the runtime, and the module they re-export it as.
const FACADES: [(&str, &str); 1] = [("m1nd-guard", "policy")];

/// The help for a caller that depends on none of them.
pub const MISSING_HELP: &str = "add `m1nd-policy` (or `m1nd-guard`, which re-exports it) to [dependencies] in \
                                Cargo.toml, or name a path that re-exports it: `cockpit!(\"policy\", crate = my::path)`";

/// The runtime as the calling crate can reach it, or `None` when its
/// manifest depends on neither the runtime nor a facade.
pub fn resolve() -> Option<Runtime> {
    let direct = reach(RUNTIME).map(Runtime);
    direct.or_else(|| {
        FACADES.iter().find_map(|(facade, module)| {
            let (krate, module) = (reach(facade)?, format_ident!("{module}"));
            Some(Runtime(quote! { #krate::#module }))
        })
    })
}

/// A package as the calling crate names it: `::renamed` for a dependency,
/// `crate` inside the package's library itself, and its own name from the
/// package's tests and examples (which see the library as an extern crate).
fn reach(package: &str) -> Option<TokenStream> {
    let own = package.replace('-', "_");
    Some(match crate_name(package).ok()? {
        FoundCrate::Itself if std::env::var("CARGO_CRATE_NAME").is_ok_and(|name| name == own) => quote! { crate },
        FoundCrate::Itself => {
            let own = format_ident!("{own}");
            quote! { ::#own }
        }
        FoundCrate::Name(name) => {
            let name = format_ident!("{name}");
            quote! { ::#name }
        }
    })
}
