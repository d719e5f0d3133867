//! Policy compile time: load (TOML with spans), laws, lowering, digest and
//! the M011 worst-case render, for the real policy and synthetic ones.
//!
//! The synthetic policies are the ui suite's base policy grown by N verbs and
//! N overview cards (one verb in ten denied), so the 1,000 / 10,000 pair shows
//! whether the compiler is linear in policy size.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use m1nd_policy::{PolicyFile, PolicySources, compile};

const BASE: [&str; 4] = [
    include_str!("../../tests/ui/policies/base/tools.toml"),
    include_str!("../../tests/ui/policies/base/read_only_denied.toml"),
    include_str!("../../tests/ui/policies/base/help_cards.toml"),
    include_str!("../../tests/ui/policies/base/cockpit.toml"),
];
const REAL: [&str; 5] = [
    include_str!("../../policy/tools.toml"),
    include_str!("../../policy/read_only_denied.toml"),
    include_str!("../../policy/help_cards.toml"),
    include_str!("../../policy/cockpit.toml"),
    include_str!("../../policy/human_only.toml"),
];

/// `files` in [`PolicyFile::EVERY`] order; a policy of four leaves out the optional file.
fn sources(files: &[String]) -> PolicySources {
    PolicySources::from_bytes("bench", |f| Some(files.get(PolicyFile::EVERY.iter().position(|x| *x == f)?)?.as_bytes()))
}

/// The base policy plus `n` verbs, `n` overview cards, and every tenth verb denied.
fn synthetic(n: usize) -> [String; 4] {
    let mut verbs = String::new();
    let mut cards = BASE[2].to_owned();
    let mut denied = String::new();
    for i in 0..n {
        verbs.push_str(&format!("v{i:06} = {{ summary = \"synthetic verb number {i}\" }}\n"));
        cards.push_str(&format!(
            "\n[[card]]\nid = \"c{i:06}\"\ntitle = \"Synthetic card {i}\"\nwhy = \"Exercises the compiler at scale.\"\ntool = \"v{i:06}\"\noverview = true\n"
        ));
        if i % 10 == 0 {
            denied.push_str(&format!("  \"v{i:06}\",\n"));
        }
    }
    let tools = BASE[0].replacen("[verbs]\n", &format!("[verbs]\n{verbs}"), 1);
    let deny = BASE[1].replacen("tools = [\n", &format!("tools = [\n{denied}"), 1);
    [tools, deny, cards, BASE[3].to_owned()]
}

fn real(c: &mut Criterion) {
    let files = REAL.map(str::to_owned);
    let bytes: usize = files.iter().map(String::len).sum();
    let mut group = c.benchmark_group("compile");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("real_policy", |b| {
        b.iter(|| compile(black_box(&sources(&files))).expect("real policy compiles"))
    });
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile_synthetic");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    for n in [1_000usize, 10_000] {
        let files = synthetic(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &files, |b, files| {
            b.iter(|| compile(black_box(&sources(files))).expect("synthetic policy compiles"))
        });
    }
    group.finish();
}

criterion_group!(benches, real, scaling);
criterion_main!(benches);
