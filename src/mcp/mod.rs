//! The MCP adapter: rmcp's `ServerHandler` over the [`Service`](crate::service::Service).
//!
//! Both transports ([`crate::transport`]) hand every message to one
//! [`Server`]; what follows holds for each of them. The adapter parses
//! nothing itself and decides nothing: it lists what the table derives and
//! hands each `tools/call` to the service.
//!
//! # What a `tools/call` goes through, in order
//!
//! 1. **The guard** ([`m1nd_policy::guard::Guard`], built from [`crate::COCKPIT`]).
//!    A name longer than [`MAX_NAME_BYTES`](m1nd_policy::guard::MAX_NAME_BYTES) is refused as unknown before
//!    anything else looks at it (no verb is that long, and "did you mean"
//!    over megabytes would stall the server). Otherwise the guard normalises
//!    the name (trim, strip one `m1nd.` / `m1nd_`, fold case) and refuses
//!    unknown names, look-alikes and retired verbs in every session; in a
//!    read-only session it also refuses every verb on
//!    `tools` of `read_only_denied.toml` and every status-only verb whose pinned
//!    argument is missing or not allowed. A refusal is a tool result with
//!    `isError: true` whose text names the verb and the rule. Nothing has
//!    been opened, read or written at this point.
//! 2. **Served here?** A verb the table knows but this server does not
//!    implement (it has no entry in [`dispatch::registry`](crate::service::dispatch::registry))
//!    is refused, naming the tools it does serve. The guard's handle says
//!    what answers the verb, by index.
//! 3. **Arguments**: only the names the table lists in the
//!    verb's `requires`/`accepts` and the policy's `[common]` arguments
//!    (`agent_id`), each of the JSON type tools.toml declares for it and at
//!    most [`MAX_STRING_BYTES`](crate::service::MAX_STRING_BYTES) long; every `requires` present.
//!    The checked values, the caller's `agent_id` among them, are what
//!    dispatch receives.
//!    With `--audit FILE`, each refusal so far is a `refused` line, and a
//!    call let through is an `admitted` line before it goes on; a call whose
//!    line cannot be written is refused here (`service/trail.rs`).
//! 4. **Dispatch**: only now is the store touched, on the service's store
//!    thread, through the handler the handle gave (no second lookup by name),
//!    on the one store connection (checked against the files before every
//!    call). Reads and the cockpit read in one read transaction (reusing the
//!    cockpit answers already composed over the same state) and never write; `memorize` and `persist`
//!    are each one write transaction with optimistic concurrency
//!    (`expected_store_version`): writers, in this process or another, take
//!    turns, and a stale write is refused and changes nothing.
//!
//! # Where `tools/list` comes from
//!
//! The tools are the verbs this server implements ([`dispatch::registry`](crate::service::dispatch::registry): the
//! cockpit, help, and the store's reads and writes, each named once) intersected
//! with the table's verbs, minus what [`Guard::shows`](m1nd_policy::guard::Guard::shows)
//! hides from the session. Descriptions are the table's summaries; input
//! schemas come from each verb's `requires` and `accepts`, the `[common]`
//! arguments and the types tools.toml declares for them.
//!
//! Annotations are derived from the deny list, never written by hand:
//!
//! - `readOnlyHint = !denied(verb) && !status_only(verb)`: a verb is read-only
//!   only if no argument can make it write. `persist` is status-only, so one of
//!   its actions writes, and it is not read-only.
//! - `destructiveHint = !readOnlyHint`: the table says *whether* a verb
//!   writes, not whether the write is merely additive, so every writing tool
//!   keeps the conservative default the MCP specification gives the hint.
//!
//! The hints are the same in every session. What a read-only session may do
//! with a status-only verb is narrowed in its schema instead: the pinned
//! argument becomes required and limited to its allowed values.

#[cfg(feature = "store")]
mod answer_slot;
#[cfg(feature = "store")]
mod app;
pub mod attestation;
#[cfg(feature = "store")]
mod handler;
pub mod methods;
#[cfg(feature = "store")]
pub mod tools;

#[cfg(feature = "store")]
pub(crate) use answer_slot::AnswerSlot;
#[cfg(feature = "store")]
pub use handler::{Server, instructions};
