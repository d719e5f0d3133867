//! `calls!` turns every argument type of m1nd 1.6.5's real surface into a
//! Rust type that compiles, and parses calls into them: enums for text
//! enums, defaults filled in, nested objects as structs, argument sets as an
//! untagged enum, and a value outside its type refused.

mod calls {
    m1nd_macros::calls!("tests/ui/policies/m1nd_1_6_5");
}

use calls::Call;
use serde_json::json;

fn main() {
    let Some(Ok(Call::Impact(impact))) = Call::parse("impact", json!({ "agent_id": "jimi", "node_id": "src/lib.rs" }))
    else {
        panic!("impact parses");
    };
    assert_eq!(impact.node_id, "src/lib.rs");
    assert_eq!(impact.direction, calls::ImpactDirection::Forward, "the schema's default");
    assert!(impact.include_causal_chains, "the schema's default");

    assert_eq!(impact.agent_id, "jimi", "every m1nd tool requires agent_id");
    assert!(matches!(Call::parse("impact", json!({ "node_id": "x" })), Some(Err(_))), "agent_id is required");

    let plan = json!({ "agent_id": "jimi", "actions": [{ "action_type": "modify", "file_path": "src/a.rs" }] });
    let Some(Ok(Call::ValidatePlan(plan))) = Call::parse("validate_plan", plan) else {
        panic!("validate_plan parses");
    };
    assert_eq!(plan.actions[0].file_path, "src/a.rs");

    let land = json!({
        "action": "land", "schema": "m1nd-mission-service-transport-request-v1",
        "request_id": "r1", "request": {}
    });
    assert!(matches!(Call::parse("mission_service", land), Some(Ok(Call::MissionService(_)))));

    assert!(matches!(
        Call::parse("impact", json!({ "agent_id": "a", "node_id": "x", "direction": "sideways" })),
        Some(Err(_))
    ));
    assert!(matches!(Call::parse("impact", json!({ "agent_id": "a", "node": "x" })), Some(Err(_))), "unknown argument");
    assert!(Call::parse("no_such_verb", json!({})).is_none());
}
