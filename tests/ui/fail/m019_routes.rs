//! M019: a route to an action the catalog lacks, a route for no verb, a verb without a route, and an MCP action nothing reaches.

static COCKPIT: m1nd_policy::Cockpit = m1nd_macros::cockpit!("tests/ui/policies/m019_routes");

fn main() {
    let _ = &COCKPIT;
}
