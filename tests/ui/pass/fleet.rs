//! The gateway suite's fleet compiles with `fleet!`, and what it embeds is
//! the fleet on disk: each member in `fleet.toml` order with its prefix.

static FLEET: m1nd_policy::gateway::fleet::EmbeddedFleet = m1nd_macros::fleet!("tests/gateway/fleets/git-and-files");

fn main() {
    let fleet = FLEET.fleet().expect("the embedded fleet compiles as it did at build time");
    let members: Vec<(&str, &str)> =
        fleet.members.iter().map(|m| (m.entry.name.as_str(), m.entry.prefix.as_str())).collect();
    assert_eq!(members, [("repo", "repo_"), ("files", "fs_")]);
    assert!(fleet.members[0].gateway.tool("git_status").is_some());
    assert!(fleet.members[1].gateway.tool("read_text_file").is_some());
    assert_eq!(fleet.digest().len(), 64);
}
