//! Code generation: a compiled [`Cockpit`] as a `const` Rust expression.
//!
//! `cockpit!` and `m1nd policy expand` both call [`expand`], so the golden
//! expansion checked into the repository is exactly what the macro emits.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use crate::arguments::{ArgType, Parameter, Property};
use crate::deny::{DenyList, StatusOnly};
use crate::effects::{CatalogAction, EffectMode, Effects, Reasoned, Route, RouteValue};
use crate::table::{
    Action, ArgSet, Argument, Binding, Card, Cockpit, Collection, HelpEntry, Label, ReadVerb, Slot, SlotKind, Str, Verb,
};

/// Paths for `include_bytes!`, so editing a policy file recompiles the caller.
/// They are written as given: relative paths resolve against the calling file.
pub struct Includes(pub Vec<String>);

/// Where the generated code finds this crate: `::m1nd_policy` when the caller
/// depends on it by that name, or whatever path re-exports it (a renamed
/// dependency, a facade crate). The expansion reaches every runtime item
/// through this one alias, so no other crate's `m1nd_policy` is ever named.
pub struct Runtime(pub TokenStream);

impl Runtime {
    /// The crate under its own name, as a direct dependency sees it.
    pub fn direct() -> Runtime {
        Runtime(quote! { ::m1nd_policy })
    }

    /// The block-scoped import the rest of the expansion refers to.
    pub(crate) fn alias(&self) -> TokenStream {
        let path = &self.0;
        quote! { use #path as __m1nd_policy; }
    }
}

/// The table as a block expression of type `m1nd_policy::Cockpit`.
///
/// The table is built inside a `const` item and the block yields that
/// constant: its borrowed slices (`&[...]` of `Cow`s, which are not
/// promotable) then live for `'static`, so the expression works in a `let`
/// or as an argument as well as in a `static` or `const`. A bare struct
/// literal would make rustc's first error E0716 in those positions.
pub fn expand(cockpit: &Cockpit, includes: &Includes, runtime: &Runtime) -> TokenStream {
    let alias = runtime.alias();
    let tracked = includes.0.iter().map(|path| quote! { const _: &[u8] = ::core::include_bytes!(#path); });
    let body = cockpit_tokens(cockpit);
    quote! {
        {
            #alias
            #(#tracked)*
            const TABLE: __m1nd_policy::Cockpit = #body;
            TABLE
        }
    }
}

/// The expression emitted next to compile errors: correctly typed, so the
/// errors the policy caused are the only ones the developer sees.
pub fn stub(includes: &Includes, errors: TokenStream, runtime: &Runtime) -> TokenStream {
    let alias = runtime.alias();
    let tracked = includes.0.iter().map(|path| quote! { const _: &[u8] = ::core::include_bytes!(#path); });
    quote! {
        {
            #alias
            #(#tracked)*
            #errors
            __m1nd_policy::Cockpit::STUB
        }
    }
}

fn s(v: &str) -> TokenStream {
    quote! { ::std::borrow::Cow::Borrowed(#v) }
}

fn opt(v: Option<&Str>) -> TokenStream {
    match v {
        Some(v) => {
            let v = s(v);
            quote! { ::core::option::Option::Some(#v) }
        }
        None => quote! { ::core::option::Option::None },
    }
}

fn list<T>(items: &[T], each: impl Fn(&T) -> TokenStream) -> TokenStream {
    let items = items.iter().map(each);
    quote! { ::std::borrow::Cow::Borrowed(&[#(#items),*]) }
}

fn strs(items: &[Str]) -> TokenStream {
    list(items, |v| s(v))
}

fn cockpit_tokens(c: &Cockpit) -> TokenStream {
    let (schema, title, negative_default, digest) = (s(&c.schema), s(&c.title), s(&c.negative_default), s(&c.digest));
    let (root, drill, item) = (c.budget.root_tokens, c.budget.drill_tokens, c.budget.item_tokens);
    let verbs = list(&c.verbs, verb);
    let arguments = list(&c.arguments, parameter);
    let common = strs(&c.common);
    let common_required = strs(&c.common_required);
    let deny = deny(&c.deny);
    let cards = list(&c.cards, card);
    let slots = list(&c.slots, slot);
    let (human_only, acts_at) = (strs(&c.human_only.verbs), s(&c.human_only.acts_at));
    let effects = effects(&c.effects);
    quote! {
        __m1nd_policy::Cockpit {
            schema: #schema,
            title: #title,
            negative_default: #negative_default,
            digest: #digest,
            budget: __m1nd_policy::Budget { root_tokens: #root, drill_tokens: #drill, item_tokens: #item },
            verbs: #verbs,
            arguments: #arguments,
            common: #common,
            common_required: #common_required,
            deny: #deny,
            cards: #cards,
            slots: #slots,
            human_only: __m1nd_policy::HumanOnly { verbs: #human_only, acts_at: #acts_at },
            effects: #effects,
        }
    }
}

fn effects(x: &Effects) -> TokenStream {
    let catalog_digest = s(&x.catalog_digest);
    let reasoned = |r: &Reasoned| {
        let (name, reason) = (s(&r.name), s(&r.reason));
        quote! { __m1nd_policy::Reasoned { name: #name, reason: #reason } }
    };
    let modes = list(&x.modes, |m: &EffectMode| {
        let (name, effects, floors, also) =
            (s(&m.name), list(&m.effects, reasoned), strs(&m.floors), list(&m.also, reasoned));
        quote! { __m1nd_policy::EffectMode { name: #name, effects: #effects, floors: #floors, also: #also } }
    });
    let actions = list(&x.actions, |a: &CatalogAction| {
        let (name, effects, floor) = (s(&a.name), strs(&a.effects), s(&a.floor));
        quote! { __m1nd_policy::CatalogAction { name: #name, effects: #effects, floor: #floor } }
    });
    let routes = list(&x.routes, |r: &Route| {
        let (verb, actions) = (s(&r.verb), strs(&r.actions));
        let by = list(&r.by, |v: &RouteValue| {
            let (argument, value, actions) = (s(&v.argument), s(&v.value), strs(&v.actions));
            quote! { __m1nd_policy::RouteValue { argument: #argument, value: #value, actions: #actions } }
        });
        let absent = match &r.absent {
            Some(actions) => {
                let actions = strs(actions);
                quote! { ::core::option::Option::Some(#actions) }
            }
            None => quote! { ::core::option::Option::None },
        };
        quote! { __m1nd_policy::Route { verb: #verb, actions: #actions, by: #by, absent: #absent } }
    });
    quote! {
        __m1nd_policy::Effects { catalog_digest: #catalog_digest, modes: #modes, actions: #actions, routes: #routes }
    }
}

fn verb(v: &Verb) -> TokenStream {
    let (name, summary, requires, accepts, retired) =
        (s(&v.name), s(&v.summary), strs(&v.requires), strs(&v.accepts), v.retired);
    let (arguments, common) = (list(&v.arguments, parameter), v.common);
    let one_of = list(&v.one_of, |set: &ArgSet| {
        let (requires, arguments) = (strs(&set.requires), list(&set.arguments, parameter));
        quote! { __m1nd_policy::ArgSet { requires: #requires, arguments: #arguments } }
    });
    quote! {
        __m1nd_policy::Verb {
            name: #name, summary: #summary, requires: #requires, accepts: #accepts, arguments: #arguments,
            common: #common, one_of: #one_of, retired: #retired
        }
    }
}

fn parameter(p: &Parameter) -> TokenStream {
    let (name, ty) = (s(&p.name), arg_type(&p.ty));
    quote! { __m1nd_policy::Parameter { name: #name, ty: #ty } }
}

/// A plain type as `ArgType::of(kind)`; any other with every field written
/// out (struct update syntax would drop the base's fields, which a `const`
/// cannot do).
fn arg_type(t: &ArgType) -> TokenStream {
    let kind = proc_macro2::Ident::new(t.kind.variant(), proc_macro2::Span::call_site());
    if t.is_plain() {
        return quote! { __m1nd_policy::ArgType::of(__m1nd_policy::ArgKind::#kind) };
    }
    let number = |n: Option<i64>| match n {
        Some(n) => quote! { ::core::option::Option::Some(#n) },
        None => quote! { ::core::option::Option::None },
    };
    let count = |n: Option<u64>| match n {
        Some(n) => quote! { ::core::option::Option::Some(#n) },
        None => quote! { ::core::option::Option::None },
    };
    let (nullable, choices, constant, default) =
        (t.nullable, strs(&t.choices), opt(t.constant.as_ref()), opt(t.default.as_ref()));
    let (minimum, maximum, min_length) = (number(t.minimum), number(t.maximum), count(t.min_length));
    let (pattern, items, min_items, max_items) =
        (opt(t.pattern.as_ref()), list(&t.items, arg_type), count(t.min_items), count(t.max_items));
    let (unique_items, closed, one_of) = (t.unique_items, t.closed, list(&t.one_of, arg_type));
    let properties = list(&t.properties, |p: &Property| {
        let (name, ty, required) = (s(&p.name), arg_type(&p.ty), p.required);
        quote! { __m1nd_policy::arguments::Property { name: #name, ty: #ty, required: #required } }
    });
    quote! {
        __m1nd_policy::ArgType {
            kind: __m1nd_policy::ArgKind::#kind, nullable: #nullable, choices: #choices, constant: #constant,
            default: #default, minimum: #minimum, maximum: #maximum, min_length: #min_length, pattern: #pattern,
            items: #items, min_items: #min_items, max_items: #max_items, unique_items: #unique_items,
            properties: #properties, closed: #closed, one_of: #one_of,
        }
    }
}

fn deny(d: &DenyList) -> TokenStream {
    let tools = strs(&d.tools);
    let status_only = list(&d.status_only, |r: &StatusOnly| {
        let (verb, argument, allowed) = (s(&r.verb), s(&r.argument), strs(&r.allowed));
        quote! { __m1nd_policy::StatusOnly { verb: #verb, argument: #argument, allowed: #allowed } }
    });
    quote! { __m1nd_policy::DenyList { tools: #tools, status_only: #status_only } }
}

fn argument(a: &Argument) -> TokenStream {
    let (name, value) = (s(&a.name), s(&a.value));
    quote! { __m1nd_policy::Argument { name: #name, value: #value } }
}

fn card(c: &Card) -> TokenStream {
    let (id, title, why, tool) = (s(&c.id), s(&c.title), s(&c.why), s(&c.tool));
    let arguments = list(&c.arguments, argument);
    let (reject_tool, reject_reason) = (opt(c.reject_tool.as_ref()), opt(c.reject_reason.as_ref()));
    let overview = c.overview;
    quote! {
        __m1nd_policy::Card {
            id: #id, title: #title, why: #why, tool: #tool, arguments: #arguments,
            reject_tool: #reject_tool, reject_reason: #reject_reason, overview: #overview,
        }
    }
}

fn read(r: &ReadVerb) -> TokenStream {
    let (card, verb) = (s(r.card()), s(r.verb()));
    let verb_id = r.verb_id().index() as u32;
    let arguments = list(r.arguments(), argument);
    quote! { __m1nd_policy::ReadVerb::__from_checked_policy(#card, #verb, __m1nd_policy::VerbId::__at(#verb_id), #arguments) }
}

fn slot(slot: &Slot) -> TokenStream {
    let n = slot.n;
    let facet = proc_macro2::Ident::new(slot.facet.variant(), proc_macro2::Span::call_site());
    let pinned = slot.pinned;
    let kind = match &slot.kind {
        SlotKind::Door { text, source } => {
            let text = s(text);
            let source = match source {
                Some(r) => {
                    let r = read(r);
                    quote! { ::core::option::Option::Some(#r) }
                }
                None => quote! { ::core::option::Option::None },
            };
            quote! { __m1nd_policy::SlotKind::Door { text: #text, source: #source } }
        }
        SlotKind::Read { read: r } => {
            let r = read(r);
            quote! { __m1nd_policy::SlotKind::Read { read: #r } }
        }
        SlotKind::Help { cards } => {
            let cards = list(cards, |h: &HelpEntry| {
                let (card, title, why, tool) = (s(&h.card), s(&h.title), s(&h.why), s(&h.tool));
                quote! { __m1nd_policy::HelpEntry { card: #card, title: #title, why: #why, tool: #tool } }
            });
            quote! { __m1nd_policy::SlotKind::Help { cards: #cards } }
        }
    };
    let labels = list(&slot.labels, |l: &Label| {
        let (condition, text) = (s(&l.condition), s(&l.text));
        quote! { __m1nd_policy::Label { condition: #condition, text: #text } }
    });
    let collection = match &slot.collection {
        None => quote! { ::core::option::Option::None },
        Some(c) => {
            let c = collection(c);
            quote! { ::core::option::Option::Some(#c) }
        }
    };
    let link = opt(slot.link.as_ref());
    quote! {
        __m1nd_policy::Slot {
            n: #n, facet: __m1nd_policy::Facet::#facet, pinned: #pinned, kind: #kind,
            labels: #labels, collection: #collection, link: #link,
        }
    }
}

fn collection(c: &Collection) -> TokenStream {
    let (items, limit, text_cap) = (s(&c.items), c.limit, c.text_cap);
    let actions = list(&c.actions, |a: &Action| {
        let r = read(&a.read);
        let bind = list(&a.bind, |b: &Binding| {
            let (argument, field) = (s(&b.argument), s(&b.field));
            quote! { __m1nd_policy::Binding { argument: #argument, field: #field } }
        });
        quote! { __m1nd_policy::Action { read: #r, bind: #bind } }
    });
    quote! { __m1nd_policy::Collection { items: #items, limit: #limit, text_cap: #text_cap, actions: #actions } }
}

/// A compile error carrying a rendered diagnostic, spanned where the caller says.
pub fn compile_error(message: &str, span: proc_macro2::Span) -> TokenStream {
    let lit = proc_macro2::Literal::string(message);
    let mut lit_tokens = TokenStream::new();
    let mut lit = lit;
    lit.set_span(span);
    lit.to_tokens(&mut lit_tokens);
    quote::quote_spanned! {span=> ::core::compile_error!{ #lit_tokens } }
}
