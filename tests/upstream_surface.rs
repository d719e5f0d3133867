//! The verbs this server serves take m1nd 1.6.5's arguments: the same names,
//! the same types and the same requiredness as upstream's inputSchema gives
//! them (tests/ui/policies/m1nd_1_6_5, generated from upstream's schemas), so
//! a caller written against upstream works here unchanged. Where this server
//! differs, the difference is listed once below with its reason; anything
//! else that differs fails here, and so does a listed difference that no
//! longer holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use m1nd::COCKPIT;
use m1nd::service::dispatch::served_verbs;
use m1nd_policy::{ArgType, Cockpit, PolicySources, Verb, compile};

/// m1nd 1.6.5's real surface, as the ui suite compiles it.
const UPSTREAM: &str = "tests/ui/policies/m1nd_1_6_5";

/// How one of this server's arguments departs from upstream's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Departure {
    /// An optional argument upstream does not have.
    Addition,
    /// Upstream's argument, taking every value upstream's type takes and more.
    Widening,
    /// Upstream's argument, taking fewer values than upstream's type, and
    /// optional where upstream requires it.
    NarrowingOptional,
}

/// Every departure, once: (verb, or `*` for every served verb; argument; what; why).
const DEPARTURES: &[(&str, &str, Departure, &str)] = &[
    (
        "memorize",
        "expected_store_version",
        Departure::Addition,
        "optimistic concurrency: a call against a store that moved past this version writes nothing",
    ),
    (
        "persist",
        "expected_store_version",
        Departure::Addition,
        "optimistic concurrency: a save or checkpoint against a store that moved past this version writes nothing",
    ),
    (
        "cockpit",
        "select",
        Departure::Widening,
        "a cockpit reference: upstream's string, or a non-negative integer meaning its decimal string, \
         since the numbers on the menu are what a human types",
    ),
    (
        "*",
        "agent_id",
        Departure::NarrowingOptional,
        "the common argument is an id (1 to 64 printable characters), since it is recorded with every write \
         and shown on the presences list; upstream takes any string. Upstream requires it of every tool; \
         here a call may leave it out",
    ),
];

fn upstream() -> Cockpit {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(UPSTREAM);
    compile(&PolicySources::read_dir(&dir, UPSTREAM))
        .unwrap_or_else(|diagnostics| panic!("{UPSTREAM} does not compile: {diagnostics:?}"))
}

/// Every argument `verb` takes in `table`: name → (type, required).
fn takes<'a>(table: &'a Cockpit, verb: &'a Verb) -> BTreeMap<&'a str, (Option<&'a ArgType>, bool)> {
    assert!(verb.one_of.is_empty(), "`{}` has argument sets; compare them set by set", verb.name);
    table.takes(verb).map(|t| (t.name, (t.ty, t.required))).collect()
}

fn departure(verb: &str, argument: &str) -> Option<(usize, Departure)> {
    DEPARTURES.iter().position(|&(v, a, _, _)| (v == verb || v == "*") && a == argument).map(|k| (k, DEPARTURES[k].2))
}

/// What is wrong with one served verb's arguments, with the departures it used.
fn compare(table: &Cockpit, upstream: &Cockpit, verb: &Verb, used: &mut BTreeSet<usize>) -> Vec<String> {
    let name = &*verb.name;
    let Some(theirs) = upstream.verb(name) else {
        return vec![format!("`{name}` is served but m1nd 1.6.5 has no such tool")];
    };
    let ours = takes(table, verb);
    let theirs = takes(upstream, theirs);
    let mut problems = Vec::new();
    for (&argument, &(their_type, their_required)) in &theirs {
        let Some(&(our_type, our_required)) = ours.get(argument) else {
            problems.push(format!("`{name}` does not take upstream's `{argument}`"));
            continue;
        };
        let optional_here = matches!(departure(name, argument), Some((_, Departure::NarrowingOptional)));
        if our_required != their_required && !(optional_here && their_required) {
            problems.push(format!(
                "`{name}`'s `{argument}` is {} here but {} upstream",
                if our_required { "required" } else { "optional" },
                if their_required { "required" } else { "optional" }
            ));
        }
        match departure(name, argument) {
            Some((k, Departure::Widening | Departure::NarrowingOptional)) => {
                used.insert(k);
                if our_type == their_type {
                    problems.push(format!("`{name}`'s `{argument}` is listed as departing but has upstream's type"));
                }
            }
            Some((_, Departure::Addition)) => {
                problems.push(format!("`{name}`'s `{argument}` is listed as an addition but upstream has it"));
            }
            None if our_type != their_type => {
                problems.push(format!("`{name}`'s `{argument}` is typed {our_type:?} here but {their_type:?} upstream"))
            }
            None => {}
        }
    }
    for (&argument, &(_, required)) in ours.iter().filter(|(a, _)| !theirs.contains_key(*a)) {
        match departure(name, argument) {
            Some((k, Departure::Addition)) => {
                used.insert(k);
                if required {
                    problems.push(format!("`{name}`'s addition `{argument}` is required; upstream callers lack it"));
                }
            }
            _ => problems
                .push(format!("`{name}` takes `{argument}`, which upstream does not, and no departure lists it")),
        }
    }
    problems
}

#[test]
fn served_verbs_take_upstreams_arguments() {
    let upstream = upstream();
    let mut used = BTreeSet::new();
    let mut problems = Vec::new();
    let mut served = 0;
    for verb in served_verbs() {
        served += 1;
        problems.extend(compare(&COCKPIT, &upstream, verb, &mut used));
    }
    assert!(served >= 15, "only {served} served verbs");
    for (k, (verb, argument, what, _)) in DEPARTURES.iter().enumerate() {
        if !used.contains(&k) {
            problems.push(format!("the departure {what:?} of `{verb}`'s `{argument}` no longer holds; remove it"));
        }
    }
    assert!(problems.is_empty(), "the served verbs drifted from m1nd 1.6.5:\n{}", problems.join("\n"));
}

/// Each departure is listed once and says why.
#[test]
fn each_departure_is_listed_once_with_its_reason() {
    let mut seen = BTreeSet::new();
    for &(verb, argument, _, why) in DEPARTURES {
        assert!(seen.insert((verb, argument)), "`{verb}`'s `{argument}` is listed twice");
        assert!(why.len() > 20, "`{verb}`'s `{argument}` gives no reason");
    }
}

/// The comparison catches what it is for: an argument typed its own way,
/// one upstream requires made optional, and one upstream does not have.
#[test]
fn the_comparison_can_fail() {
    let upstream = upstream();
    let mut ours = COCKPIT.clone();
    let verbs = ours.verbs.to_mut();
    let impact = verbs.iter_mut().find(|v| v.name == "impact").expect("impact");
    impact.requires = Vec::new().into();
    impact.accepts.to_mut().push("node_id".into());
    let direction = impact.arguments.to_mut().iter_mut().find(|p| p.name == "direction").expect("direction");
    direction.ty = ArgType::of(m1nd_policy::ArgKind::Text);
    let memorize = verbs.iter_mut().find(|v| v.name == "memorize").expect("memorize");
    memorize.accepts.to_mut().push("claim".into());
    memorize
        .arguments
        .to_mut()
        .push(m1nd_policy::Parameter { name: "claim".into(), ty: ArgType::of(m1nd_policy::ArgKind::Text) });
    let mut used = BTreeSet::new();
    let problems: Vec<String> = ["impact", "memorize"]
        .into_iter()
        .flat_map(|name| compare(&ours, &upstream, ours.verb(name).expect("verb"), &mut used))
        .collect();
    let found = |needle: &str| problems.iter().any(|p| p.contains(needle));
    assert!(found("`impact`'s `node_id` is optional here but required upstream"), "{problems:#?}");
    assert!(found("`impact`'s `direction` is typed"), "{problems:#?}");
    assert!(found("`memorize` takes `claim`, which upstream does not"), "{problems:#?}");
    assert_eq!(problems.len(), 3, "{problems:#?}");
}
