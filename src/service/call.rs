//! What a call does once it reaches the store, and how its result reads.
//!
//! Reads and the cockpit run on a reader, in one read transaction each
//! (reusing the cockpit answers already composed over the same state; see
//! [`super::answers`]), and never write. `memorize` and `persist save` /
//! `checkpoint` are changes for the writer's next group commit, each with
//! optimistic concurrency (`expected_store_version`): a stale write is
//! refused and changes nothing, and the others in its commit go on.

use m1nd_policy::runtime::{self, Charset, Reading, Request, text};
use serde_json::{Map, Value, json};

use super::answer::Answer;
use super::answers::Answers;
use super::error::ServiceError;
use crate::COCKPIT;
use crate::calls::{self, Call};
use crate::store::{
    Change, Counts, Done, PersistAction, PersistOutcome, Probe, Read, Refusal, Snapshot, Store, StoreError,
};

/// The cockpit's request in a call's arguments. A negative
/// `seen_store_version` (upstream types it as any integer) names no state
/// the store was ever at, so it is as if none was sent.
pub fn cockpit_request(args: &calls::Cockpit) -> Request {
    let seen_store_version = args.seen_store_version.and_then(|v| u64::try_from(v).ok());
    Request { select: args.select.clone(), seen_store_version }
}

/// The text arguments a store read takes, from the read's typed call: the
/// node, the pair or the error text it is about.
pub fn read_pairs(call: &Call) -> Vec<(&'static str, String)> {
    match call {
        Call::Impact(a) => vec![("node_id", a.node_id.clone())],
        Call::Why(a) => vec![("source", a.source.clone()), ("target", a.target.clone())],
        Call::Trace(a) => vec![("error_text", a.error_text.clone())],
        _ => Vec::new(),
    }
}

/// The cockpit (`read` is `None`) or one of the store's reads, on `store`.
pub fn read(
    store: &Store,
    answers: &Answers,
    probe: &Probe,
    read: Option<Read>,
    request: &Request,
    pairs: &[(&'static str, String)],
) -> Result<Answer, ServiceError> {
    let snapshot = store.snapshot()?;
    let store_version = snapshot.version();
    Ok(match read {
        None => cockpit(&snapshot, answers, probe, request.clone())?,
        Some(read) => {
            let verb = read.name();
            let pairs: Vec<(&str, &str)> = pairs.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let reading = snapshot.read(read, &pairs).map_err(|source| ServiceError::Read { verb, source })?;
            Answer::value(reading_json(verb, store_version, &reading))
        }
    })
}

/// The cockpit's answer to `request` over `snapshot`: the one kept for this
/// state, or composed now and kept. The MCP verb and the human's pages both
/// come here, so a look at the page after an agent's look (or the other way
/// round) costs no compose.
pub fn cockpit(
    snapshot: &Snapshot<'_>,
    answers: &Answers,
    probe: &Probe,
    request: Request,
) -> Result<Answer, ServiceError> {
    // Inside the read transaction the mark is this state's (`Probe::mark_of`).
    answers.get_or_compose(probe.mark_of(snapshot.version()), request, |request| {
        let view = runtime::cockpit(&COCKPIT, snapshot, request)?;
        Ok::<_, ServiceError>(Answer::cockpit(text::render(&view, Charset::Unicode), view))
    })
}

/// `persist status` or `persist load`: the counts now, after checking the
/// caller's `expected_store_version` (nothing is held in memory, so `load`
/// has nothing to refresh).
pub fn persist_read(store: &Store, action: PersistAction, expected: Option<u64>) -> Result<Answer, ServiceError> {
    let fail = |source| ServiceError::Write { verb: "persist", source };
    let snapshot = store.snapshot().map_err(fail)?;
    let store_version = snapshot.version();
    if let Some(expected) = expected.filter(|e| *e != store_version) {
        return Err(fail(StoreError::Conflict { expected, actual: store_version }));
    }
    let outcome = PersistOutcome { action, store_version, wrote: false, counts: snapshot.counts().map_err(fail)? };
    Ok(Answer::value(persist_json(&outcome)))
}

/// `persist`'s action as the store knows it. The typed call holds one of
/// the four values the enum lists, spelt exactly, as the read-only guard
/// compared it (`deny.rs`): the value the guard judged is the value acted on.
pub fn persist_action(action: calls::PersistAction) -> PersistAction {
    match action {
        calls::PersistAction::Status => PersistAction::Status,
        calls::PersistAction::Save => PersistAction::Save,
        calls::PersistAction::Checkpoint => PersistAction::Checkpoint,
        calls::PersistAction::Load => PersistAction::Load,
    }
}

/// The change `memorize` asks for, in upstream's words: each of `claims`
/// becomes one memory whose claim is its `text` when present, else its
/// `label`, and whose source is `node_label`. The store bounds how many one
/// call may carry.
pub fn memorize(args: calls::Memorize) -> Change {
    Change::Memorize {
        claims: args.claims.into_iter().map(|c| c.text.unwrap_or(c.label)).collect(),
        source: args.node_label,
        agent: args.agent_id,
        expected: args.expected_store_version,
    }
}

/// The change `persist save` or `persist checkpoint` asks for.
pub fn checkpoint(action: PersistAction, args: &calls::Persist) -> Change {
    Change::Checkpoint { action, agent: args.agent_id.clone(), expected: args.expected_store_version }
}

/// A committed change's answer, or why `verb` changed nothing.
pub fn written(verb: &'static str, result: Result<Done, Refusal>) -> Result<Answer, ServiceError> {
    match result {
        Ok(Done::Memorized { store_version }) => {
            Ok(Answer::value(json!({ "verb": "memorize", "memorized": true, "store_version": store_version })))
        }
        Ok(Done::Persisted(outcome)) => Ok(Answer::value(persist_json(&outcome))),
        // The tray's acts come back through Service::act, never as a call.
        Ok(Done::Acted(_)) => Err(ServiceError::Dropped),
        Err(Refusal::Store(source)) => Err(ServiceError::Write { verb, source }),
        Err(Refusal::Act(refused)) => Err(ServiceError::Act(refused)),
    }
}

/// A read's answer. Its fields come from state, so they are shown sanitised
/// (no field the store accepts is longer than a claim).
fn reading_json(verb: &str, store_version: u64, reading: &Reading) -> Value {
    let numbers: Map<String, Value> = reading.numbers.iter().map(|(n, v)| (n.clone(), Value::from(*v))).collect();
    let shown = |v: &str| Value::from(m1nd_policy::sanitize::display(v, crate::store::MAX_CLAIM_CHARS));
    let items: Vec<Value> = reading
        .items
        .iter()
        .map(|item| Value::Object(item.fields.iter().map(|(k, v)| (k.clone(), shown(v))).collect()))
        .collect();
    json!({ "verb": verb, "store_version": store_version, "numbers": numbers, "items": items })
}

fn persist_json(outcome: &PersistOutcome) -> Value {
    json!({
        "verb": "persist",
        "action": outcome.action.as_str(),
        "store_version": outcome.store_version,
        "wrote": outcome.wrote,
        "counts": counts_json(&outcome.counts),
    })
}

fn counts_json(c: &Counts) -> Value {
    json!({
        "missions": c.missions,
        "blocks": c.blocks,
        "memories": c.memories,
        "alerts": c.alerts,
        "modules": c.modules,
        "drift": c.drift,
        "presences": c.presences,
        "checkpoints": c.checkpoints,
    })
}
