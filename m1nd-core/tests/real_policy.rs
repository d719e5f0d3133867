//! The repository's policy compiles, and what it compiles to is sane.

use std::path::Path;

use m1nd_policy::{PolicySources, compile};

fn sources() -> PolicySources {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy");
    PolicySources::read_dir(&dir, "policy")
}

#[test]
fn the_real_policy_compiles() {
    let sources = sources();
    match compile(&sources) {
        Ok(cockpit) => {
            assert_eq!(cockpit.digest.len(), 64);
            assert!(cockpit.verbs.len() >= 142);
        }
        Err(problems) => {
            let rendered: Vec<String> = problems.iter().map(|d| d.render(&sources)).collect();
            panic!("{} violations:\n{}", problems.len(), rendered.join("\n"));
        }
    }
}
