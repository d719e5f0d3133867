//! Code generation for `gateway!`: an embedded, law-checked gateway policy.

use proc_macro2::TokenStream;
use quote::quote;

use crate::codegen::{Includes, Runtime};
use crate::gateway::fleet::FleetSources;
use crate::policy::{PolicyFile, PolicySources};

/// The policy as a `const` expression of type `m1nd_policy::gateway::Embedded`.
/// Call only after `compile_gateway` accepted `sources`.
pub fn embedded(sources: &PolicySources, display: &str, includes: &Includes, runtime: &Runtime) -> TokenStream {
    let (alias, tracked) = (runtime.alias(), tracked(includes));
    let files = PolicyFile::EVERY.map(|f| match &sources.file(f).text {
        Ok(text) => quote! { ::core::option::Option::Some(#text) },
        Err(_) => quote! { ::core::option::Option::None },
    });
    quote! {
        {
            #alias
            #(#tracked)*
            __m1nd_policy::gateway::Embedded::__from_checked_policy(#display, [#(#files),*])
        }
    }
}

/// The expression emitted next to compile errors: correctly typed.
pub fn stub(includes: &Includes, errors: TokenStream, runtime: &Runtime) -> TokenStream {
    let (alias, tracked) = (runtime.alias(), tracked(includes));
    quote! {
        {
            #alias
            #(#tracked)*
            #errors
            __m1nd_policy::gateway::Embedded::__stub()
        }
    }
}

fn tracked(includes: &Includes) -> impl Iterator<Item = TokenStream> + '_ {
    includes.0.iter().map(|path| quote! { const _: &[u8] = ::core::include_bytes!(#path); })
}

/// The fleet as a `const` expression of type
/// `m1nd_policy::gateway::fleet::EmbeddedFleet`. Call only after
/// `compile_fleet` accepted `sources`.
pub fn embedded_fleet(sources: &FleetSources, includes: &Includes, runtime: &Runtime) -> TokenStream {
    let (alias, tracked) = (runtime.alias(), tracked(includes));
    let display = &sources.display;
    let config = sources.config().unwrap_or_default();
    let members = sources.members().iter().map(|member| {
        let dir = member.file(PolicyFile::Tools).display.trim_end_matches(PolicyFile::Tools.file_name());
        let dir = dir.trim_end_matches('/');
        let files = PolicyFile::EVERY.map(|f| match &member.file(f).text {
            Ok(text) => quote! { ::core::option::Option::Some(#text) },
            Err(_) => quote! { ::core::option::Option::None },
        });
        quote! { (#dir, [#(#files),*]) }
    });
    quote! {
        {
            #alias
            #(#tracked)*
            __m1nd_policy::gateway::fleet::EmbeddedFleet::__from_checked_fleet(#display, #config, &[#(#members),*])
        }
    }
}

/// The fleet expression emitted next to compile errors: correctly typed.
pub fn fleet_stub(includes: &Includes, errors: TokenStream, runtime: &Runtime) -> TokenStream {
    let (alias, tracked) = (runtime.alias(), tracked(includes));
    quote! {
        {
            #alias
            #(#tracked)*
            #errors
            __m1nd_policy::gateway::fleet::EmbeddedFleet::__stub()
        }
    }
}
