//! Cockpit composition against an in-memory reader, and a naive
//! runtime-derived baseline measured in the same run.
//!
//! The baseline does what a hand-kept, run-time approach does on every call:
//! build a `HashSet` from the deny list, filter the cards against it, read each
//! slot, fill labels, and build a `serde_json::Value`. The compiled table has
//! already done the filtering, so composition only reads and fills.

use std::collections::HashSet;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use m1nd_policy::runtime::json::to_pretty;
use m1nd_policy::runtime::{Reader, Request, cockpit};
use m1nd_policy::{Cockpit, SlotKind};
use serde_json::{Value, json};

#[path = "../tests/support/mod.rs"]
mod support;

/// A lively, ordinary state: small counts and a few items per facet.
fn state(table: &Cockpit) -> support::MemReader {
    let mut reader = support::MemReader { version: 42, ..Default::default() };
    for slot in table.slots.iter() {
        let Some(read) = slot.kind.source() else { continue };
        let mut reading = m1nd_policy::runtime::Reading::default();
        for c in slot.facet.conditions() {
            for p in c.placeholders {
                reading = reading.with(p, 3);
            }
        }
        reading.items =
            (0..6).map(|k| support::item(slot.facet, &format!("item {k} of {}", slot.facet.key()))).collect();
        reader.by_card.insert(read.card().to_owned(), Ok(reading));
    }
    reader
}

/// The run-time approach: derive everything on every call.
fn naive_root(table: &Cockpit, reader: &dyn Reader) -> Value {
    let denied: HashSet<String> = table.deny.tools.iter().map(|t| t.to_string()).collect();
    let help: Vec<Value> = table
        .cards
        .iter()
        .filter(|c| c.overview && !denied.contains(&*c.tool))
        .map(|c| json!({ "card": &*c.id, "title": &*c.title }))
        .collect();
    let mut entries = Vec::new();
    for slot in table.slots.iter() {
        let label = match slot.kind.source().filter(|r| !denied.contains(r.verb())) {
            Some(read) => match reader.read(read, &[]) {
                Ok(reading) => {
                    let condition = slot.facet.condition_for(|p| reading.number(p));
                    let mut text = slot.label(condition.name).unwrap_or_default().to_owned();
                    for (name, value) in &reading.numbers {
                        text = text.replace(&format!("{{{name}}}"), &value.to_string());
                    }
                    text
                }
                Err(_) => slot.label("unavailable").unwrap_or_default().to_owned(),
            },
            None if matches!(slot.kind, SlotKind::Help { .. }) => format!("help: {} cards", help.len()),
            None => slot.label("quiet").unwrap_or_default().to_owned(),
        };
        entries.push(json!({ "select": slot.n.to_string(), "label": label }));
    }
    json!({ "schema": &*table.schema, "title": &*table.title, "store_version": reader.store_version(), "entries": entries, "help": help })
}

fn compose(c: &mut Criterion) {
    let table = support::real_policy();
    let reader = state(&table);
    let root = Request::default();
    let drill = Request { select: Some("2.1".into()), seen_store_version: None };
    let mut group = c.benchmark_group("cockpit");
    group.bench_function("compose_root", |b| b.iter(|| cockpit(black_box(&table), &reader, black_box(&root)).unwrap()));
    group.bench_function("compose_drill_item", |b| {
        b.iter(|| cockpit(black_box(&table), &reader, black_box(&drill)).unwrap())
    });
    group.bench_function("compose_root_and_render_json", |b| {
        b.iter(|| to_pretty(&cockpit(black_box(&table), &reader, black_box(&root)).unwrap()))
    });
    group.bench_function("baseline_naive_root_value", |b| b.iter(|| naive_root(black_box(&table), &reader)));
    group.bench_function("baseline_naive_root_value_and_render", |b| {
        b.iter(|| serde_json::to_string_pretty(&naive_root(black_box(&table), &reader)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, compose);
criterion_main!(benches);
