//! A policy directory as one fuzz input.
//!
//! Each file starts at a marker line `#@ <file name>` (one of
//! `PolicyFile::EVERY`'s names) and runs to the next marker; bytes before the
//! first marker are ignored, a file without a marker is missing, and a file
//! named twice keeps its last text. The marker is a TOML comment, so a marker
//! the fuzzer moves into a file's middle is still a valid line there.

use m1nd_policy::{PolicyFile, PolicySources};

pub const MARKER: &str = "#@ ";

/// The files an input holds, in `PolicyFile::EVERY` order.
pub fn split(data: &[u8]) -> [Option<&[u8]>; PolicyFile::EVERY.len()] {
    let mut files = [None; PolicyFile::EVERY.len()];
    let mut open: Option<(usize, usize)> = None;
    let mut line_start = 0;
    while line_start < data.len() {
        let line_end = data[line_start..].iter().position(|b| *b == b'\n').map_or(data.len(), |p| line_start + p);
        let named = data[line_start..line_end]
            .strip_prefix(MARKER.as_bytes())
            .map(|name| name.strip_suffix(b"\r").unwrap_or(name))
            .and_then(|name| PolicyFile::EVERY.iter().position(|f| f.file_name().as_bytes() == name));
        if let Some(index) = named {
            if let Some((file, start)) = open {
                files[file] = Some(&data[start..line_start]);
            }
            open = Some((index, (line_end + 1).min(data.len())));
        }
        line_start = line_end + 1;
    }
    if let Some((file, start)) = open {
        files[file] = Some(&data[start..]);
    }
    files
}

/// The input as the compiler reads a directory, named `fuzz/<file>`.
pub fn sources(data: &[u8]) -> PolicySources {
    sources_in("fuzz", data)
}

/// The input as the compiler reads a directory shown as `display`.
pub fn sources_in(display: &str, data: &[u8]) -> PolicySources {
    let files = split(data);
    PolicySources::from_bytes(display, |f| files[file_index(f)])
}

/// One input holding `files`: what the seeder writes for a policy directory.
pub fn join<'a>(files: impl IntoIterator<Item = (PolicyFile, &'a [u8])>) -> Vec<u8> {
    let mut out = Vec::new();
    for (file, text) in files {
        out.extend_from_slice(format!("{MARKER}{}\n", file.file_name()).as_bytes());
        out.extend_from_slice(text);
        if !text.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    out
}

fn file_index(file: PolicyFile) -> usize {
    PolicyFile::EVERY.iter().position(|f| *f == file).unwrap_or(0)
}
