//! Code generation for `gateway!`: an embedded, law-checked gateway policy.

use proc_macro2::TokenStream;
use quote::quote;

use crate::codegen::Includes;
use crate::policy::{PolicyFile, PolicySources};

/// The policy as a `const` expression of type `::m1nd_core::gateway::Embedded`.
/// Call only after `compile_gateway` accepted `sources`.
pub fn embedded(sources: &PolicySources, display: &str, includes: &Includes) -> TokenStream {
    let tracked = tracked(includes);
    let files = PolicyFile::EVERY.map(|f| match &sources.file(f).text {
        Ok(text) => quote! { ::core::option::Option::Some(#text) },
        Err(_) => quote! { ::core::option::Option::None },
    });
    quote! {
        {
            #(#tracked)*
            ::m1nd_core::gateway::Embedded::__from_checked_policy(#display, [#(#files),*])
        }
    }
}

/// The expression emitted next to compile errors: correctly typed.
pub fn stub(includes: &Includes, errors: TokenStream) -> TokenStream {
    let tracked = tracked(includes);
    quote! {
        {
            #(#tracked)*
            #errors
            ::m1nd_core::gateway::Embedded::__stub()
        }
    }
}

fn tracked(includes: &Includes) -> impl Iterator<Item = TokenStream> + '_ {
    includes.0.iter().map(|path| quote! { const _: &[u8] = ::core::include_bytes!(#path); })
}
