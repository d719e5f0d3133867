//! Where `policy diff` reads a side from: a directory, or a git revision
//! (`REV`, or `REV:DIR` for a policy directory other than `policy`).
//!
//! A revision is read with the git CLI (`git show REV:DIR/FILE`, one call per
//! policy file) straight into memory, so nothing is checked out and the work
//! tree is never touched. Every file a policy directory may hold is asked
//! for, optional ones too (`human_only.toml`). A required file missing at that
//! revision is reported by the compiler as M001, like a missing file on disk.

use std::path::Path;
use std::process::Command;

use m1nd_policy::{PolicyFile, PolicySources};

use super::Failure;

/// The policy directory a bare `REV` means.
const DEFAULT_DIR: &str = "policy";

/// One side of a diff, read and named as diagnostics show it.
pub struct Side {
    pub name: String,
    pub sources: PolicySources,
}

/// A directory when one exists at `spec`, else a git revision.
pub fn read(spec: &str) -> Result<Side, Failure> {
    if Path::new(spec).is_dir() {
        let name = spec.trim_end_matches('/');
        let name = if name.is_empty() { spec } else { name };
        return Ok(Side { name: name.to_owned(), sources: PolicySources::read_dir(Path::new(spec), name) });
    }
    let (rev, dir) = match spec.split_once(':') {
        Some((rev, dir)) => (rev, dir.trim_end_matches('/')),
        None => (spec, DEFAULT_DIR),
    };
    if rev.is_empty() || rev.starts_with('-') || dir.is_empty() {
        return Err(Failure::usage(format!(
            "`{spec}` is neither a directory nor a git revision; write DIR, REV or REV:DIR (e.g. HEAD~1:policy)"
        )));
    }
    let commit = git(&["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")])
        .ok_or_else(|| {
            Failure::usage(format!(
                "`{spec}` is neither a directory nor a revision of the git repository here (`git rev-parse {rev}` failed)"
            ))
        })?;
    let commit = String::from_utf8_lossy(&commit).trim().to_owned();
    let files: Vec<(PolicyFile, Option<Vec<u8>>)> = PolicyFile::EVERY
        .iter()
        .map(|&file| (file, git(&["show", &format!("{commit}:{dir}/{}", file.file_name())])))
        .collect();
    if files.iter().all(|(_, bytes)| bytes.is_none()) {
        return Err(Failure::usage(format!("`{rev}` has no policy files under `{dir}/`")));
    }
    let name = format!("{rev}:{dir}");
    let sources = PolicySources::from_bytes(&name, |wanted| {
        files.iter().find(|(file, _)| *file == wanted).and_then(|(_, bytes)| bytes.as_deref())
    });
    Ok(Side { name, sources })
}

/// A git command's stdout, or `None` when git is missing or the command failed.
fn git(args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git").args(args).stdin(std::process::Stdio::null()).output().ok()?;
    out.status.success().then_some(out.stdout)
}
