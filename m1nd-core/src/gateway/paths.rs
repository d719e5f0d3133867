//! Confining a path argument to pinned directories.
//!
//! The invariant: a path passes only if the file it names — after every
//! symlink that exists is resolved — lies inside a pinned directory (also
//! resolved), compared component by component. So:
//!
//! - a relative path is refused: what it names depends on the upstream's
//!   working directory, which the gateway cannot see;
//! - any `..` component is refused outright, even one that would stay inside,
//!   so no reader of the value has to reason about where it lands;
//! - symlinks are resolved by the file system (`canonicalize`), so a link
//!   inside the directory that points outside is judged by its target;
//! - the part of the path that does not exist yet (a file about to be
//!   written) is appended to its deepest existing ancestor, resolved;
//! - comparison is by component, so `/srv/repo-evil` is not inside
//!   `/srv/repo`, and a trailing `/` or `.` changes nothing; letter case is
//!   compared as the file system resolves it, never folded by the gateway.
//!
//! The canonical path is what gets forwarded, so the upstream opens the path
//! that was checked. (A symlink swapped in between the check and the
//! upstream's open is outside what any argument check can see.)

use std::path::{Component, Path, PathBuf};

/// Why a path was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathProblem {
    Relative,
    Parent,
    Nul,
    NotUtf8,
    /// It resolves outside every pinned directory (to this canonical path).
    Outside(String),
    /// No pinned directory exists, so nothing can be inside one.
    NoDirectory,
}

impl std::fmt::Display for PathProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathProblem::Relative => f.write_str("it is relative; send an absolute path"),
            PathProblem::Parent => f.write_str("it holds a `..` component"),
            PathProblem::Nul => f.write_str("it holds a NUL byte"),
            PathProblem::NotUtf8 => f.write_str("it resolves to a path that is not UTF-8"),
            PathProblem::Outside(real) => write!(f, "it resolves to `{}`, outside", short(real)),
            PathProblem::NoDirectory => f.write_str("no pinned directory exists on this machine"),
        }
    }
}

/// The canonical form of `written` if it lies in one of `dirs`.
pub fn confine(written: &str, dirs: &[impl AsRef<str>]) -> Result<String, PathProblem> {
    if written.contains('\0') {
        return Err(PathProblem::Nul);
    }
    let path = Path::new(written);
    if !path.is_absolute() {
        return Err(PathProblem::Relative);
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(PathProblem::Parent);
    }
    let real = resolve(path);
    let roots: Vec<PathBuf> = dirs.iter().filter_map(|d| std::fs::canonicalize(d.as_ref()).ok()).collect();
    if roots.is_empty() {
        return Err(PathProblem::NoDirectory);
    }
    let text = real.to_str().ok_or(PathProblem::NotUtf8)?.to_owned();
    if roots.iter().any(|root| real.starts_with(root)) { Ok(text) } else { Err(PathProblem::Outside(text)) }
}

/// The deepest existing ancestor, canonicalised, with the rest appended.
fn resolve(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut existing = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(real, |acc: PathBuf, part| acc.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// A resolved path as a refusal shows it: through the one sanitiser, since
/// the caller wrote part of it (a control character or a line break in a
/// path must not forge a line of the refusal), and at most 96 characters.
fn short(text: &str) -> String {
    crate::sanitize::display(text, 96)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evasions_are_refused_and_real_insides_pass() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(tmp.path()).expect("canonical");
        let repo = base.join("repo");
        std::fs::create_dir_all(repo.join("src")).expect("mkdir");
        std::fs::create_dir_all(base.join("repo-evil")).expect("mkdir");
        std::fs::create_dir_all(base.join("secret")).expect("mkdir");
        std::os::unix::fs::symlink(base.join("secret"), repo.join("link")).expect("symlink");
        let dirs = [repo.to_str().expect("utf8").to_owned()];
        let r = repo.to_str().expect("utf8");
        for inside in
            [r.to_owned(), format!("{r}/"), format!("{r}/./src"), format!("{r}//src/new.txt"), format!("{r}/src/")]
        {
            assert!(confine(&inside, &dirs).is_ok(), "{inside}");
        }
        assert_eq!(confine(&format!("{r}/src/"), &dirs), Ok(format!("{r}/src")));
        let b = base.to_str().expect("utf8");
        let cases = [
            (format!("{r}/../secret"), PathProblem::Parent),
            (format!("{r}/src/../../secret"), PathProblem::Parent),
            ("repo/src".to_owned(), PathProblem::Relative),
            (format!("{r}\0/x"), PathProblem::Nul),
        ];
        for (path, want) in cases {
            assert_eq!(confine(&path, &dirs), Err(want), "{path}");
        }
        for outside in [
            format!("{b}/repo-evil"),
            format!("{r}/link"),
            format!("{r}/link/x.txt"),
            format!("{b}/REPO"),
            "/etc/passwd".to_owned(),
        ] {
            assert!(matches!(confine(&outside, &dirs), Err(PathProblem::Outside(_))), "{outside}");
        }
        assert_eq!(confine(r, &["/does/not/exist"]), Err(PathProblem::NoDirectory));
    }
}
