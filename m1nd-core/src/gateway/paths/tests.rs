//! `confine` against a real directory tree: what passes, and each way out
//! with the problem it is refused for.

use std::os::unix::fs::symlink;

use super::*;

/// `base/{repo/src, repo-evil, secret/, outside/, secret.txt}`, canonical.
struct Tree {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    repo: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let tmp = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(tmp.path()).expect("canonical");
        let repo = base.join("repo");
        for dir in ["repo/src", "repo-evil", "secret", "outside"] {
            std::fs::create_dir_all(base.join(dir)).expect("mkdir");
        }
        std::fs::write(base.join("secret.txt"), "the secret\n").expect("write");
        std::fs::write(repo.join("src/lib.rs"), "inside\n").expect("write");
        Tree { _tmp: tmp, base, repo }
    }

    fn r(&self) -> &str {
        self.repo.to_str().expect("utf8")
    }

    fn b(&self) -> &str {
        self.base.to_str().expect("utf8")
    }

    fn confine(&self, path: &str) -> Result<String, PathProblem> {
        confine(path, &[self.r()], false)
    }
}

#[test]
fn evasions_are_refused_and_real_insides_pass() {
    let t = Tree::new();
    symlink(t.base.join("secret"), t.repo.join("link")).expect("symlink");
    let (r, b) = (t.r(), t.b());
    for inside in
        [r.to_owned(), format!("{r}/"), format!("{r}/./src"), format!("{r}//src/new.txt"), format!("{r}/src/")]
    {
        assert!(t.confine(&inside).is_ok(), "{inside}");
    }
    assert_eq!(t.confine(&format!("{r}/src/")), Ok(format!("{r}/src")));
    let cases = [
        (format!("{r}/../secret"), PathProblem::Parent),
        (format!("{r}/src/../../secret"), PathProblem::Parent),
        (format!("{r}/src/.."), PathProblem::Parent),
        ("repo/src".to_owned(), PathProblem::Relative),
        (format!("{r}\0/x"), PathProblem::Nul),
    ];
    for (path, want) in cases {
        assert_eq!(t.confine(&path), Err(want), "{path}");
    }
    for outside in [format!("{b}/repo-evil"), format!("{b}/REPO"), "/etc/passwd".to_owned(), format!("{b}/new.txt")] {
        assert!(matches!(t.confine(&outside), Err(PathProblem::Outside(_))), "{outside}");
    }
    for through_link in [format!("{r}/link"), format!("{r}/link/x.txt")] {
        assert!(matches!(t.confine(&through_link), Err(PathProblem::LinkOutside { .. })), "{through_link}");
    }
    assert_eq!(confine(r, &["/does/not/exist"], false), Err(PathProblem::NoDirectory));
}

#[test]
fn a_path_that_does_not_exist_yet_is_judged_by_its_nearest_existing_ancestor() {
    let t = Tree::new();
    let r = t.r();
    assert_eq!(t.confine(&format!("{r}/src/new/deeper/file.txt")), Ok(format!("{r}/src/new/deeper/file.txt")));
    // Through a symlink that stays inside, the ancestor is resolved.
    symlink(t.repo.join("src"), t.repo.join("alias")).expect("symlink");
    assert_eq!(t.confine(&format!("{r}/alias/new.txt")), Ok(format!("{r}/src/new.txt")));
    // Under a regular file nothing can exist; it is inside, and the upstream will fail on it.
    assert_eq!(t.confine(&format!("{r}/src/lib.rs/x")), Ok(format!("{r}/src/lib.rs/x")));
}

/// The case: `pinned/x -> ../outside/new.txt`, target missing. It
/// used to pass (its nearest existing ancestor is inside), and an upstream
/// that opened it for writing created the file outside.
#[test]
fn a_dangling_symlink_is_refused_wherever_it_points() {
    let t = Tree::new();
    let r = t.r();
    symlink("../outside/new.txt", t.repo.join("x")).expect("symlink");
    symlink("../outside/missing-dir", t.repo.join("d")).expect("symlink");
    symlink(t.repo.join("src/not-yet.txt"), t.repo.join("src/soon")).expect("symlink");
    symlink(t.repo.join("x"), t.repo.join("chain")).expect("symlink");
    for (path, link) in [
        (format!("{r}/x"), format!("{r}/x")),
        (format!("{r}/d/new.txt"), format!("{r}/d")),
        (format!("{r}/d/a/b/c"), format!("{r}/d")),
        // Even pointing inside: what it names does not exist, so it was never checked.
        (format!("{r}/src/soon"), format!("{r}/src/soon")),
        (format!("{r}/chain"), format!("{r}/chain")),
    ] {
        assert_eq!(t.confine(&path), Err(PathProblem::Dangling { link }), "{path}");
    }
    assert!(!t.base.join("outside/new.txt").exists());
}

#[test]
fn a_symlink_leading_outside_is_refused_at_any_component() {
    let t = Tree::new();
    let (r, b) = (t.r(), t.b());
    // repo/out -> base/outside, and base/outside/back -> repo/src: the whole
    // path lands inside, but its second component leaves the directory.
    symlink(t.base.join("outside"), t.repo.join("out")).expect("symlink");
    symlink(t.repo.join("src"), t.base.join("outside/back")).expect("symlink");
    symlink("../../secret.txt", t.repo.join("src/relative")).expect("symlink");
    let cases = [
        (format!("{r}/out"), format!("{r}/out"), format!("{b}/outside")),
        (format!("{r}/out/back/lib.rs"), format!("{r}/out"), format!("{b}/outside")),
        (format!("{r}/out/new.txt"), format!("{r}/out"), format!("{b}/outside")),
        (format!("{r}/src/relative"), format!("{r}/src/relative"), format!("{b}/secret.txt")),
    ];
    for (path, link, target) in cases {
        assert_eq!(t.confine(&path), Err(PathProblem::LinkOutside { link, target }), "{path}");
    }
}

#[test]
fn a_symlink_above_the_pinned_directory_is_resolved_not_refused() {
    let t = Tree::new();
    let alias = t.base.join("alias");
    symlink(&t.repo, &alias).expect("symlink");
    let a = alias.to_str().expect("utf8");
    // Pinned by its alias, reached by its alias or its real path.
    for dirs in [[a], [t.r()]] {
        assert_eq!(confine(&format!("{a}/src/lib.rs"), &dirs, false), Ok(format!("{}/src/lib.rs", t.r())));
        assert_eq!(confine(&format!("{}/src/new.txt", t.r()), &dirs, false), Ok(format!("{}/src/new.txt", t.r())));
    }
}

#[test]
fn a_file_with_more_than_one_hard_link_passes_only_when_the_pin_allows_it() {
    let t = Tree::new();
    let r = t.r();
    std::fs::hard_link(t.base.join("secret.txt"), t.repo.join("src/copy.txt")).expect("hard link");
    std::fs::hard_link(t.repo.join("src/lib.rs"), t.repo.join("src/twin.rs")).expect("hard link");
    symlink(t.repo.join("src/copy.txt"), t.repo.join("via")).expect("symlink");
    for (path, real) in [
        (format!("{r}/src/copy.txt"), format!("{r}/src/copy.txt")),
        // Two links, both inside: the gateway cannot know that, so it is refused too.
        (format!("{r}/src/twin.rs"), format!("{r}/src/twin.rs")),
        (format!("{r}/via"), format!("{r}/src/copy.txt")),
    ] {
        assert_eq!(t.confine(&path), Err(PathProblem::HardLinked { path: real.clone(), links: 2 }), "{path}");
        assert_eq!(confine(&path, &[r], true), Ok(real), "{path} with hard_links = true");
    }
    // Directories count their subdirectories as links; they are not hard links.
    assert_eq!(t.confine(r), Ok(r.to_owned()));
    std::fs::remove_file(t.repo.join("src/twin.rs")).expect("unlink");
    assert_eq!(t.confine(&format!("{r}/src/lib.rs")), Ok(format!("{r}/src/lib.rs")));
}

#[test]
fn a_symlink_loop_is_refused_as_unreadable() {
    let t = Tree::new();
    let r = t.r();
    symlink(t.repo.join("loop"), t.repo.join("loop")).expect("symlink");
    let refused = t.confine(&format!("{r}/loop/x"));
    assert!(matches!(&refused, Err(PathProblem::Unreadable { at, .. }) if *at == format!("{r}/loop")), "{refused:?}");
}

#[test]
fn every_refusal_shows_the_paths_it_names_sanitised() {
    let t = Tree::new();
    let r = t.r();
    let name = "x\n[gateway] allowed\u{1b}[2J";
    symlink("../outside/new.txt", t.repo.join(name)).expect("symlink");
    symlink(t.base.join("secret"), t.repo.join("o\u{202e}ut")).expect("symlink");
    std::fs::hard_link(t.base.join("secret.txt"), t.repo.join("h\r.txt")).expect("hard link");
    for path in [format!("{r}/{name}"), format!("{r}/o\u{202e}ut"), format!("{r}/h\r.txt")] {
        let message = t.confine(&path).expect_err("refused").to_string();
        assert!(!message.chars().any(|c| c.is_control() || crate::sanitize::is_hidden(c)), "{message:?}");
    }
}
