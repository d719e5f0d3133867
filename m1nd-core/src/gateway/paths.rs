//! Confining a path argument to pinned directories.
//!
//! The invariant: a path passes only if the file it names, resolved through
//! the file system one component at a time, lies inside a pinned directory
//! (also resolved), compared component by component, and nothing on the way
//! could send the upstream elsewhere. So:
//!
//! - a relative path is refused: what it names depends on the upstream's
//!   working directory, which the gateway cannot see;
//! - any `..` component is refused outright, even one that would stay inside,
//!   so no reader of the value has to reason about where it lands;
//! - every component that exists is looked at without following it
//!   (`symlink_metadata`); a symlink is resolved where it stands, and
//!   - a symlink whose target does not exist (dangling) is refused, wherever
//!     it is: an upstream that writes through it would create the file
//!     wherever the link points, which is no name the gateway could check;
//!   - a symlink inside a pinned directory that leads outside every pinned
//!     directory is refused, even when the rest of the path would come back
//!     inside;
//! - the part of the path that does not exist yet (a file about to be
//!   written) is appended to its deepest existing ancestor, resolved;
//! - an existing file (anything but a directory) with more than one hard
//!   link is refused unless the pin says `hard_links = true`: a hard link
//!   inside the directory can be the same file as one outside, and no name
//!   shows which (where the platform cannot count links, every file needs
//!   the option);
//! - comparison is by component, so `/srv/repo-evil` is not inside
//!   `/srv/repo`, and a trailing `/` or `.` changes nothing; letter case is
//!   compared as the file system resolves it, never folded by the gateway.
//!
//! The canonical path is what gets forwarded, so the upstream opens the path
//! that was checked.
//!
//! What a name check cannot see: the upstream opens the path later, in its
//! own process. Between the check and that open, anyone who can write inside
//! the pinned directory can swap a component for a symlink or a hard link,
//! and a symlink above or inside the directory can be repointed. The gateway
//! narrows what a caller can name; the upstream's own sandbox (its allowed
//! directories, the user it runs as, a container) stays the last line.

use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// Why a path was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathProblem {
    Relative,
    Parent,
    Nul,
    NotUtf8,
    /// It resolves outside every pinned directory (to this canonical path).
    Outside(String),
    /// A symlink inside a pinned directory leads outside every one of them.
    LinkOutside {
        link: String,
        target: String,
    },
    /// A symlink on the way points at nothing that exists.
    Dangling {
        link: String,
    },
    /// The regular file it names has this many hard links, and the pin does
    /// not allow more than one.
    HardLinked {
        path: String,
        links: u64,
    },
    /// This platform does not say how many hard links a file has.
    LinksUnknown {
        path: String,
    },
    /// A component could not be looked at (permission, a symlink loop, …):
    /// what cannot be seen is not let through.
    Unreadable {
        at: String,
        cause: String,
    },
    /// No pinned directory exists, so nothing can be inside one.
    NoDirectory,
}

impl std::fmt::Display for PathProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathProblem::Relative => f.write_str("it is relative; send an absolute path"),
            PathProblem::Parent => f.write_str("it holds a `..` component; send the path without `..`"),
            PathProblem::Nul => f.write_str("it holds a NUL byte"),
            PathProblem::NotUtf8 => f.write_str("it resolves to a path that is not UTF-8"),
            PathProblem::Outside(real) => {
                write!(f, "it resolves to `{}`, outside; send a path inside one of them", short(real))
            }
            PathProblem::LinkOutside { link, target } => write!(
                f,
                "`{}` is a symlink to `{}`, outside; send a path whose every component stays inside",
                short(link),
                short(target)
            ),
            PathProblem::Dangling { link } => write!(
                f,
                "`{}` is a dangling symlink (its target does not exist), and an upstream writing through it would \
                 create the file wherever it points; send the real path, or remove the link",
                short(link)
            ),
            PathProblem::HardLinked { path, links } => write!(
                f,
                "`{}` has {links} hard links, so it may be the same file as one outside; send a file with one \
                 link, or, if every link is yours, allow them with `hard_links = true` on the pin",
                short(path)
            ),
            PathProblem::LinksUnknown { path } => write!(
                f,
                "`{}`'s hard links cannot be counted on this platform; allow files whatever their links with \
                 `hard_links = true` on the pin",
                short(path)
            ),
            PathProblem::Unreadable { at, cause } => {
                write!(f, "`{}` cannot be looked at ({cause}), and what cannot be seen is not let through", short(at))
            }
            PathProblem::NoDirectory => f.write_str("no pinned directory exists on this machine"),
        }
    }
}

/// The canonical form of `written` if it lies in one of `dirs`; an existing
/// file (not a directory) with more than one hard link passes only when
/// `hard_links` is set.
pub fn confine(written: &str, dirs: &[impl AsRef<str>], hard_links: bool) -> Result<String, PathProblem> {
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
    let roots: Vec<PathBuf> = dirs.iter().filter_map(|d| std::fs::canonicalize(d.as_ref()).ok()).collect();
    if roots.is_empty() {
        return Err(PathProblem::NoDirectory);
    }
    let (real, exists) = resolve(path, &roots)?;
    let text = real.to_str().ok_or(PathProblem::NotUtf8)?.to_owned();
    if !inside(&real, &roots) {
        return Err(PathProblem::Outside(text));
    }
    if exists && !hard_links {
        // A directory cannot be hard linked (its count is its subdirectories).
        let meta = std::fs::symlink_metadata(&real).map_err(|e| unreadable(&real, &e))?;
        match link_count(&meta) {
            _ if meta.is_dir() => {}
            Some(links) if links > 1 => return Err(PathProblem::HardLinked { path: text, links }),
            Some(_) => {}
            None => return Err(PathProblem::LinksUnknown { path: text }),
        }
    }
    Ok(text)
}

/// Walk `path` from `/`, one component at a time: the resolved path, and
/// whether all of it exists. A missing component ends the walk; the rest is
/// appended as written (it holds no `..`, checked before).
fn resolve(path: &Path, roots: &[PathBuf]) -> Result<(PathBuf, bool), PathProblem> {
    let parts: Vec<&std::ffi::OsStr> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    let mut real = PathBuf::from("/");
    for (at, name) in parts.iter().enumerate() {
        let next = real.join(name);
        let meta = match std::fs::symlink_metadata(&next) {
            Ok(meta) => meta,
            Err(e) if missing(&e) => {
                let rest = parts[at..].iter().fold(settle(real), |acc, part| acc.join(part));
                return Ok((rest, false));
            }
            Err(e) => return Err(unreadable(&next, &e)),
        };
        if !meta.file_type().is_symlink() {
            real = next;
            continue;
        }
        let target = match std::fs::canonicalize(&next) {
            Ok(target) => target,
            Err(e) if missing(&e) => return Err(PathProblem::Dangling { link: lossy(&next) }),
            Err(e) => return Err(unreadable(&next, &e)),
        };
        if inside(&next, roots) && !inside(&target, roots) {
            return Err(PathProblem::LinkOutside { link: lossy(&next), target: lossy(&target) });
        }
        real = target;
    }
    Ok((settle(real), true))
}

/// The file system's own spelling of a walked path whose symlinks are all
/// resolved: the same path on Linux; on a case-insensitive volume, the case
/// on disk, which is what the pinned directories were canonicalised to.
fn settle(real: PathBuf) -> PathBuf {
    std::fs::canonicalize(&real).unwrap_or(real)
}

fn inside(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|root| path.starts_with(root))
}

/// Not there: no such entry, or a component on the way is not a directory.
fn missing(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

fn unreadable(at: &Path, e: &std::io::Error) -> PathProblem {
    PathProblem::Unreadable { at: lossy(at), cause: e.kind().to_string() }
}

fn lossy(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// How many hard links the file has, where the platform says.
#[cfg(unix)]
fn link_count(meta: &std::fs::Metadata) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    Some(meta.nlink())
}

/// Elsewhere the count is unknown: a file passes only under `hard_links = true`.
#[cfg(not(unix))]
fn link_count(_: &std::fs::Metadata) -> Option<u64> {
    None
}

/// A path as a refusal shows it: through the one sanitiser, since the caller
/// wrote part of it (a control character or a line break in a path must not
/// forge a line of the refusal), and at most 96 characters.
fn short(text: &str) -> String {
    crate::sanitize::display(text, 96)
}

#[cfg(test)]
mod tests;
