//! The policy files as read, with positions for diagnostics.
//!
//! Reading is separated from parsing so that the proc-macro, the CLI and the
//! benches can all hand bytes to the same compiler, and so that a file that
//! cannot be read at all (missing, a directory, too large, not UTF-8) becomes a
//! positioned M001 instead of a panic.

use std::fmt;
use std::ops::Range;
use std::path::Path;

/// The largest policy file accepted. Real policies are tens of KiB and a
/// 10,000-verb policy about 1.3 MiB; the cap keeps a runaway or hostile file
/// from stalling compilation.
pub const MAX_FILE_BYTES: usize = 4 << 20;

/// One of the files of a policy directory: four that every policy has, and
/// `human_only.toml`, which a policy without human-only verbs may leave out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolicyFile {
    Tools,
    Deny,
    Cards,
    Cockpit,
    HumanOnly,
}

impl PolicyFile {
    /// The four files every policy directory holds.
    pub const ALL: [PolicyFile; 4] = [PolicyFile::Tools, PolicyFile::Deny, PolicyFile::Cards, PolicyFile::Cockpit];

    /// Every file a policy directory may hold: [`PolicyFile::ALL`], then the optional ones.
    pub const EVERY: [PolicyFile; 5] =
        [PolicyFile::Tools, PolicyFile::Deny, PolicyFile::Cards, PolicyFile::Cockpit, PolicyFile::HumanOnly];

    /// Whether a policy may leave this file out (it then declares nothing).
    pub const fn optional(self) -> bool {
        matches!(self, PolicyFile::HumanOnly)
    }

    pub const fn file_name(self) -> &'static str {
        match self {
            PolicyFile::Tools => "tools.toml",
            PolicyFile::Deny => "read_only_denied.toml",
            PolicyFile::Cards => "help_cards.toml",
            PolicyFile::Cockpit => "cockpit.toml",
            PolicyFile::HumanOnly => "human_only.toml",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// Why a policy file has no text to parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadProblem {
    Missing,
    NotAFile,
    Unreadable(String),
    TooLarge { bytes: usize },
    NotUtf8 { valid_up_to: usize },
}

impl fmt::Display for ReadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadProblem::Missing => f.write_str("the file is missing"),
            ReadProblem::NotAFile => f.write_str("a directory (or other non-file) stands where the file should be"),
            ReadProblem::Unreadable(e) => write!(f, "the file cannot be read: {e}"),
            ReadProblem::TooLarge { bytes } => {
                write!(f, "the file is {bytes} bytes; a policy file may hold at most {MAX_FILE_BYTES}")
            }
            ReadProblem::NotUtf8 { .. } => f.write_str("the file is not valid UTF-8"),
        }
    }
}

/// One file's contents, or why there are none.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// How diagnostics name the file, e.g. `policy/cockpit.toml`.
    pub display: String,
    pub text: Result<String, ReadProblem>,
    /// For `NotUtf8`, the valid prefix, so the error can still give line:col.
    prefix: String,
}

/// The files of one policy directory, in [`PolicyFile::EVERY`] order.
#[derive(Clone, Debug)]
pub struct PolicySources {
    files: [SourceFile; 5],
    /// Other file names in the directory, for "did you mean" on a missing file.
    others: Vec<String>,
}

impl PolicySources {
    /// Read `dir`, naming files in diagnostics as `display/<file>`.
    pub fn read_dir(dir: &Path, display: &str) -> Self {
        let mut sources = Self::build(display, |file| read_file(&dir.join(file.file_name())));
        sources.others = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|name| !PolicyFile::EVERY.iter().any(|f| f.file_name() == name))
                    .collect()
            })
            .unwrap_or_default();
        sources.others.sort();
        sources
    }

    /// Build from bytes already in memory (the embedded policy, tests, benches).
    pub fn from_bytes<'a>(display: &str, bytes: impl Fn(PolicyFile) -> Option<&'a [u8]>) -> Self {
        Self::build(display, |file| match bytes(file) {
            Some(b) => Ok(b.to_vec()),
            None => Err(ReadProblem::Missing),
        })
    }

    fn build(display: &str, mut read: impl FnMut(PolicyFile) -> Result<Vec<u8>, ReadProblem>) -> Self {
        let files = PolicyFile::EVERY.map(|file| {
            let display = join_display(display, file.file_name());
            let (text, prefix) = match read(file).and_then(check_size) {
                Ok(bytes) => decode(bytes),
                Err(problem) => (Err(problem), String::new()),
            };
            SourceFile { display, text, prefix }
        });
        Self { files, others: Vec::new() }
    }

    /// Names in the policy directory that are not one of the policy's files.
    pub fn other_files(&self) -> &[String] {
        &self.others
    }

    pub fn file(&self, file: PolicyFile) -> &SourceFile {
        &self.files[file.index()]
    }

    /// The text of a file, or the text that was readable before a UTF-8 error.
    pub fn text(&self, file: PolicyFile) -> &str {
        let f = self.file(file);
        f.text.as_deref().unwrap_or(&f.prefix)
    }
}

fn join_display(dir: &str, file: &str) -> String {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() || dir == "." { file.to_owned() } else { format!("{dir}/{file}") }
}

fn read_file(path: &Path) -> Result<Vec<u8>, ReadProblem> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ReadProblem::Missing),
        Err(e) => return Err(ReadProblem::Unreadable(e.to_string())),
        Ok(meta) if !meta.is_file() => return Err(ReadProblem::NotAFile),
        Ok(meta) if meta.len() > MAX_FILE_BYTES as u64 => {
            return Err(ReadProblem::TooLarge { bytes: usize::try_from(meta.len()).unwrap_or(usize::MAX) });
        }
        Ok(_) => {}
    }
    std::fs::read(path).map_err(|e| ReadProblem::Unreadable(e.to_string()))
}

fn check_size(bytes: Vec<u8>) -> Result<Vec<u8>, ReadProblem> {
    if bytes.len() > MAX_FILE_BYTES { Err(ReadProblem::TooLarge { bytes: bytes.len() }) } else { Ok(bytes) }
}

fn decode(bytes: Vec<u8>) -> (Result<String, ReadProblem>, String) {
    match String::from_utf8(bytes) {
        Ok(text) => (Ok(text), String::new()),
        Err(e) => {
            let valid_up_to = e.utf8_error().valid_up_to();
            let prefix = String::from_utf8_lossy(&e.as_bytes()[..valid_up_to]).into_owned();
            (Err(ReadProblem::NotUtf8 { valid_up_to }), prefix)
        }
    }
}

/// A position in a policy file, as a byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: PolicyFile,
    pub span: Range<usize>,
}

impl Loc {
    pub fn new(file: PolicyFile, span: Range<usize>) -> Self {
        Self { file, span }
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// The largest char boundary at or below `i` (stable stand-in for `str::floor_char_boundary`).
pub fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_not_bytes() {
        let text = "a = 1\nné = \"x\"\n";
        assert_eq!(line_col(text, 0), (1, 1));
        let x = text.find('x').unwrap();
        assert_eq!(line_col(text, x), (2, 7));
    }

    #[test]
    fn non_utf8_keeps_the_valid_prefix() {
        let sources = PolicySources::from_bytes("p", |f| match f {
            PolicyFile::Tools => Some(b"[verbs.a]\nsummary = \"\xff\"\n".as_slice()),
            _ => Some(b"".as_slice()),
        });
        let tools = sources.file(PolicyFile::Tools);
        assert_eq!(tools.text, Err(ReadProblem::NotUtf8 { valid_up_to: 21 }));
        assert_eq!(sources.text(PolicyFile::Tools), "[verbs.a]\nsummary = \"");
        assert_eq!(tools.display, "p/tools.toml");
    }
}
