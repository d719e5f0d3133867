//! A policy history in git, as a reviewer's repository has one.

use std::path::Path;
use std::process::Command;

/// Run `git` in `dir` as a throwaway reviewer (no signing, no inherited
/// repository), failing the test on any error.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=review", "-c", "user.email=review@example.invalid", "-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}
