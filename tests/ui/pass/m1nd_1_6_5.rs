//! m1nd-mcp 1.6.5's real surface compiles: its 147 tools with every argument
//! typed as its own `inputSchema` says, judged by m1nd-control 0.2.3's effect
//! catalog and its routes, with upstream's help cards (corrected where they
//! break upstream's own schema; the fail cases `m1nd_1_6_5_*` keep them as
//! upstream writes them).

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m1nd_1_6_5");

fn main() {
    assert_eq!(COCKPIT.verbs.len(), 147);
    let impact = COCKPIT.verb("impact").expect("impact");
    assert!(impact.requires.iter().any(|r| r == "node_id"), "upstream's impact requires node_id");
    let depth = COCKPIT.argument_type(impact, "direction").expect("impact takes a direction");
    assert_eq!(depth.kind, m1nd_policy::ArgKind::Text);
    assert!(!depth.choices.is_empty(), "direction is an enum upstream");
    let service = COCKPIT.verb("mission_service").expect("mission_service");
    assert_eq!(service.one_of.len(), 6, "one argument set per action");
    assert!(!service.common, "mission_service takes no agent_id");
    assert!(COCKPIT.deny.denies("audit"), "audit re-ingests: beyond a read-only session");
    assert!(COCKPIT.deny.denies("ingest"));
    assert!(!COCKPIT.deny.denies("trace"));
}
