//! `tools/call`: the guard first, then the arguments, then the store.

use std::path::PathBuf;

use m1nd::COCKPIT;
use m1nd::store::{Counts, Op, PersistOutcome, Read, StoreError, Write};
use m1nd_core::Verb;
use m1nd_core::guard::Guard;
use m1nd_core::runtime::{self, Charset, Reading, Request, json, text};
use rmcp::model::{CallToolResult, JsonObject};
use serde_json::{Map, Value, json};

use super::answers::Answers;
use super::arguments::{self, Checked};
use super::catalog::{self, Handler};
use super::held::Held;
use super::{help, reply};

/// Where `memorize` records a claim as coming from when no source is given.
const DEFAULT_SOURCE: &str = "mcp";

/// The argument that names the calling agent, recorded with what it writes.
const AGENT_ID: &str = "agent_id";

/// One session's view of the table and the store.
pub struct Session {
    guard: Guard<'static>,
    store: Held,
    cockpit: Answers,
}

impl Session {
    pub fn new(read_only: bool, store: PathBuf) -> Self {
        Self { guard: Guard::new(&COCKPIT, read_only), store: Held::new(store), cockpit: Answers::default() }
    }

    pub fn guard(&self) -> &Guard<'static> {
        &self.guard
    }

    /// Answer one call. Never panics on input; every failure is `isError`.
    pub fn call(&self, name: &str, args: Option<&JsonObject>) -> CallToolResult {
        let verb = match self.guard.check(name, args) {
            Ok(verb) => verb,
            Err(refused) => return reply::error(refused.to_string()),
        };
        let Some(handler) = catalog::handler(verb) else {
            let served: Vec<&str> = catalog::served_verbs().filter(|v| self.guard.shows(v)).map(|v| &*v.name).collect();
            return reply::error(format!(
                "`{}` is a known verb, but this server does not implement it; it serves {}",
                verb.name,
                served.join(", ")
            ));
        };
        let checked = match arguments::check(&COCKPIT, verb, args) {
            Ok(checked) => checked,
            Err(why) => return reply::error(why),
        };
        self.dispatch(verb, handler, &checked)
    }

    fn dispatch(&self, verb: &Verb, handler: Handler, args: &Checked) -> CallToolResult {
        let answer = match handler {
            Handler::Cockpit => self.cockpit(args),
            Handler::Help => Ok(help::answer(&self.guard)),
            Handler::Store(Op::Read(read)) => self.read(verb, read, args),
            Handler::Store(Op::Write(Write::Memorize)) => self.memorize(args),
            Handler::Store(Op::Write(Write::Persist)) => self.persist(args),
        };
        answer.unwrap_or_else(reply::error)
    }

    fn cockpit(&self, args: &Checked) -> Result<CallToolResult, String> {
        let request = Request {
            select: args.text("select").map(str::to_owned),
            seen_store_version: args.integer("seen_store_version"),
        };
        self.store.with(|store| {
            let snapshot = store.snapshot().map_err(|e| e.to_string())?;
            self.cockpit.get_or_compose(snapshot.stamp(), request, |request| {
                let view = runtime::cockpit(&COCKPIT, &snapshot, request).map_err(|e| format!("cockpit: {e}"))?;
                Ok(reply::text_and_value(text::render(&view, Charset::Unicode), json::to_value(&view)))
            })
        })
    }

    fn read(&self, verb: &Verb, read: Read, args: &Checked) -> Result<CallToolResult, String> {
        self.store.with(|store| {
            let snapshot = store.snapshot().map_err(|e| e.to_string())?;
            let reading = snapshot.read(read, &args.pairs()).map_err(|e| format!("{}: {}", verb.name, e.0))?;
            Ok(reply::value(reading_json(&verb.name, snapshot.version(), &reading)))
        })
    }

    fn memorize(&self, args: &Checked) -> Result<CallToolResult, String> {
        let claim = args.text("claim").unwrap_or_default();
        let source = args.text("source").unwrap_or(DEFAULT_SOURCE);
        let version = self.store.with(|store| {
            store
                .memorize(claim, source, args.text(AGENT_ID), args.integer("expected_store_version"))
                .map_err(|e| write_failed("memorize", &e))
        })?;
        Ok(reply::value(json!({ "verb": "memorize", "memorized": true, "store_version": version })))
    }

    fn persist(&self, args: &Checked) -> Result<CallToolResult, String> {
        let action = args.text("action").map(|a| a.trim().to_ascii_lowercase()).unwrap_or_else(|| "status".into());
        let outcome = self.store.with(|store| {
            store
                .persist(&action, args.text(AGENT_ID), args.integer("expected_store_version"))
                .map_err(|e| write_failed("persist", &e))
        })?;
        Ok(reply::value(persist_json(&outcome)))
    }
}

fn write_failed(verb: &str, e: &StoreError) -> String {
    format!("`{verb}` changed nothing: {e}")
}

/// A read's answer. Its fields come from state, so they are shown sanitised
/// (no field the store accepts is longer than a claim).
fn reading_json(verb: &str, store_version: u64, reading: &Reading) -> Value {
    let numbers: Map<String, Value> = reading.numbers.iter().map(|(n, v)| (n.clone(), Value::from(*v))).collect();
    let shown = |v: &str| Value::from(m1nd_core::sanitize::display(v, m1nd::store::MAX_CLAIM_CHARS));
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
