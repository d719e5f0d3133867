//! The user guide (`docs/guide/`) and every other text that names the laws
//! agree with the code, so the guide cannot drift from what it documents:
//!
//! 1. `policy_keys`: "Writing a policy" lists exactly the keys the parser
//!    (`m1nd-core/src/policy/raw.rs`) knows, file by file, and its facet table
//!    is the facet registry's.
//! 2. `laws`: the law registry (`m1nd-core/src/policy/laws/mod.rs`, read
//!    through `Law::ALL` and `Law::scope`) is the one list of laws. Every range
//!    of laws written anywhere, the pre-commit hook, the README's table, the
//!    guide's contents, index and pages are checked against it.
//! 3. `examples`: each law's page quotes a blessed ui `.stderr` file of that
//!    law by `{{#include}}` (so the text is rustc's, never a copy), every include
//!    resolves, and each example's diff is the fixture's real change.
//! 4. `serve_flags`: the deployment page's table of caps and budgets gives
//!    each flag of `m1nd serve` the default its `--help` prints.
//!
//! Bless the example diffs with `M1ND_BLESS=1 cargo test --test guide`.

mod guide {
    mod examples;
    mod laws;
    mod policy_keys;
    mod serve_flags;
    mod support;
}
