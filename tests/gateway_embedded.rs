//! `gateway!` embeds exactly the policy on disk: the table it yields at run
//! time is the one `compile_gateway` builds from the reviewed directory.

use std::path::Path;

use m1nd_policy::gateway::Embedded;
use m1nd_policy::{PolicySources, compile_gateway};

static GIT: Embedded = m1nd_macros::gateway!("tests/gateway/policies/git");

#[test]
fn the_embedded_policy_is_the_reviewed_directory() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gateway/policies/git");
    let sources = PolicySources::read_dir(&dir, "tests/gateway/policies/git");
    let on_disk = compile_gateway(&sources).unwrap_or_else(|p| panic!("{}", p[0].render(&sources)));
    let embedded = GIT.gateway().expect("the embedded policy compiles");
    assert_eq!(embedded, &on_disk);
    assert!(!embedded.policy.deny.tools.is_empty());
    assert!(embedded.tools.iter().all(|t| t.definition.is_some()), "every reviewed tool has its pin");
}
