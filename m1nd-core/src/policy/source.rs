//! The policy files as read, with positions for diagnostics.
//!
//! Reading is separated from parsing so that the proc-macro, the CLI and the
//! benches can all hand bytes to the same compiler, and so that a file that
//! cannot be read at all (missing, a directory, too large, not UTF-8) becomes a
//! positioned M001 instead of a panic.
//!
//! The macro and the CLI read through the same [`PolicySources::read_dir`].
//! Only regular files are opened (a FIFO would block the build, a device never
//! ends), and no file is read past [`MAX_FILE_BYTES`] plus one byte: the size
//! a file reports is not trusted, since `/proc` files report 0 and go on.

use std::fmt;
use std::fs::{File, Metadata};
use std::io::Read;
use std::ops::Range;
use std::path::Path;

/// The largest policy file accepted. Real policies are tens of KiB and a
/// 10,000-verb policy about 1.3 MiB; the cap keeps a runaway or hostile file
/// from stalling compilation.
pub const MAX_FILE_BYTES: usize = 4 << 20;

/// One of the files of a policy directory: four that every policy has,
/// `human_only.toml`, which a policy without human-only verbs may leave out,
/// and the three effect files, which come together or not at all: the modes
/// (`effects.toml`, written by people), and the routes and catalog
/// (`routes.toml`, `catalog.json`, produced from upstream's crates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PolicyFile {
    Tools,
    Deny,
    Cards,
    Cockpit,
    HumanOnly,
    Effects,
    Routes,
    Catalog,
}

impl PolicyFile {
    /// The four files every policy directory holds.
    pub const ALL: [PolicyFile; 4] = [PolicyFile::Tools, PolicyFile::Deny, PolicyFile::Cards, PolicyFile::Cockpit];

    /// Every file a policy directory may hold: [`PolicyFile::ALL`], then the optional ones.
    pub const EVERY: [PolicyFile; 8] = [
        PolicyFile::Tools,
        PolicyFile::Deny,
        PolicyFile::Cards,
        PolicyFile::Cockpit,
        PolicyFile::HumanOnly,
        PolicyFile::Effects,
        PolicyFile::Routes,
        PolicyFile::Catalog,
    ];

    /// The files that carry effects: present together, or all absent.
    pub const EFFECTS: [PolicyFile; 3] = [PolicyFile::Effects, PolicyFile::Routes, PolicyFile::Catalog];

    /// Whether a policy may leave this file out (it then declares nothing).
    pub const fn optional(self) -> bool {
        matches!(self, PolicyFile::HumanOnly | PolicyFile::Effects | PolicyFile::Routes | PolicyFile::Catalog)
    }

    /// When an optional file is needed, for messages that list the files.
    pub const fn needed_when(self) -> &'static str {
        match self {
            PolicyFile::HumanOnly => "some verb is the human's alone",
            PolicyFile::Effects | PolicyFile::Routes | PolicyFile::Catalog => {
                "the policy judges verbs by their effects"
            }
            PolicyFile::Tools | PolicyFile::Deny | PolicyFile::Cards | PolicyFile::Cockpit => "always",
        }
    }

    pub const fn file_name(self) -> &'static str {
        match self {
            PolicyFile::Tools => "tools.toml",
            PolicyFile::Deny => "read_only_denied.toml",
            PolicyFile::Cards => "help_cards.toml",
            PolicyFile::Cockpit => "cockpit.toml",
            PolicyFile::HumanOnly => "human_only.toml",
            PolicyFile::Effects => "effects.toml",
            PolicyFile::Routes => "routes.toml",
            PolicyFile::Catalog => "catalog.json",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// Why a policy file has no text to parse.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadProblem {
    Missing,
    /// Something other than a regular file: what it is, e.g. "a FIFO".
    NotAFile {
        kind: &'static str,
    },
    Unreadable(String),
    /// Over [`MAX_FILE_BYTES`]; `bytes` when the size is known, `None` when
    /// reading stopped at the cap.
    TooLarge {
        bytes: Option<u64>,
    },
    NotUtf8 {
        valid_up_to: usize,
    },
}

impl fmt::Display for ReadProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadProblem::Missing => f.write_str("the file is missing"),
            ReadProblem::NotAFile { kind } => write!(f, "{kind} stands where the file should be"),
            ReadProblem::Unreadable(e) => write!(f, "the file cannot be read: {e}"),
            ReadProblem::TooLarge { bytes: Some(bytes) } => {
                write!(f, "the file is {bytes} bytes; a policy file may hold at most {MAX_FILE_BYTES}")
            }
            ReadProblem::TooLarge { bytes: None } => {
                write!(f, "the file holds more than {MAX_FILE_BYTES} bytes, the most a policy file may hold")
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
///
/// Read a directory with [`PolicySources::read_dir`], or build from bytes
/// already in memory with [`PolicySources::from_bytes`]; diagnostics render
/// against the same sources, so they quote the lines that were compiled.
///
/// ```
/// use std::path::Path;
/// use m1nd_policy::{Law, PolicyFile, PolicySources, compile};
///
/// let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../policy");
/// let real = PolicySources::read_dir(&dir, "policy");
/// // The same policy with one deny entry misspelled.
/// let denied = real.text(PolicyFile::Deny).replacen("\"learn\"", "\"lern\"", 1);
/// let sources = PolicySources::from_bytes("policy", |file| match file {
///     PolicyFile::Deny => Some(denied.as_bytes()),
///     other => Some(real.text(other).as_bytes()),
/// });
///
/// let problems = compile(&sources).unwrap_err();
/// let misspelt = problems.iter().find(|d| d.law == Law::M002).expect("the misspelling");
/// // `learn` writes by the catalog, so it is now a verb the list lags (M021).
/// assert!(problems.iter().any(|d| d.law == Law::M021));
/// let message = misspelt.render(&sources);
/// assert!(message.starts_with("[M002] the deny list names `lern`"), "{message}");
/// assert!(message.contains("--> policy/read_only_denied.toml:"));
/// assert!(message.contains("did you mean `learn`?"));
/// ```
#[derive(Clone, Debug)]
pub struct PolicySources {
    files: [SourceFile; PolicyFile::EVERY.len()],
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

/// One file read as a policy file is (regular files only, capped, UTF-8):
/// for a file that sits beside policies, such as a fleet's `fleet.toml`.
pub fn read_text(path: &Path) -> Result<String, ReadProblem> {
    read_file(path).and_then(check_size).and_then(|bytes| decode(bytes).0)
}

/// How diagnostics name `file` in the directory shown as `dir`.
pub fn join_display(dir: &str, file: &str) -> String {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() || dir == "." { file.to_owned() } else { format!("{dir}/{file}") }
}

/// Refuse anything but a regular file before opening it, check the opened
/// handle again (the name may have been swapped in between), then read at
/// most the cap plus one byte.
fn read_file(path: &Path) -> Result<Vec<u8>, ReadProblem> {
    let unreadable = |e: std::io::Error| ReadProblem::Unreadable(e.to_string());
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ReadProblem::Missing),
        Err(e) => return Err(unreadable(e)),
        Ok(meta) => regular(&meta)?,
    }
    let file = File::open(path).map_err(unreadable)?;
    regular(&file.metadata().map_err(unreadable)?)?;
    read_capped(file)
}

/// A regular file no larger than the cap, by what its metadata says.
fn regular(meta: &Metadata) -> Result<(), ReadProblem> {
    if !meta.is_file() {
        return Err(ReadProblem::NotAFile { kind: kind_of(meta) });
    }
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(ReadProblem::TooLarge { bytes: Some(meta.len()) });
    }
    Ok(())
}

/// At most `MAX_FILE_BYTES + 1` bytes: one byte past the cap proves the file too large.
fn read_capped(reader: impl Read) -> Result<Vec<u8>, ReadProblem> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadProblem::Unreadable(e.to_string()))?;
    if bytes.len() > MAX_FILE_BYTES { Err(ReadProblem::TooLarge { bytes: None }) } else { Ok(bytes) }
}

fn kind_of(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "something other than a regular file"
}

fn check_size(bytes: Vec<u8>) -> Result<Vec<u8>, ReadProblem> {
    if bytes.len() > MAX_FILE_BYTES {
        Err(ReadProblem::TooLarge { bytes: Some(bytes.len() as u64) })
    } else {
        Ok(bytes)
    }
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

/// The location of a spanned value in a file.
pub fn loc<T>(file: PolicyFile, value: &toml::Spanned<T>) -> Loc {
    Loc::new(file, value.span())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_deny_file_as_the_user_wrote_it() {
        assert_eq!(crate::deny::DENY_FILE, PolicyFile::Deny.file_name());
    }

    #[test]
    fn line_col_counts_characters_not_bytes() {
        let text = "a = 1\nné = \"x\"\n";
        assert_eq!(line_col(text, 0), (1, 1));
        let x = text.find('x').unwrap();
        assert_eq!(line_col(text, x), (2, 7));
    }

    #[test]
    fn reading_stops_one_byte_past_the_cap() {
        // An endless reader, as a `/proc` file or a device is: the cap ends it.
        assert_eq!(read_capped(std::io::repeat(b'a')), Err(ReadProblem::TooLarge { bytes: None }));
        let at_cap = vec![b'a'; MAX_FILE_BYTES];
        assert_eq!(read_capped(at_cap.as_slice()).map(|b| b.len()), Ok(MAX_FILE_BYTES));
    }

    #[cfg(unix)]
    #[test]
    fn non_regular_files_are_refused_before_they_are_opened() {
        let dir = std::env::temp_dir().join(format!("m1nd-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("tools.toml");
        let _ = std::fs::remove_file(&fifo);
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
        assert!(made.success());
        // Opening a FIFO blocks until a writer comes; refusing first never opens it.
        assert_eq!(read_file(&fifo), Err(ReadProblem::NotAFile { kind: "a FIFO" }));
        assert_eq!(read_file(Path::new("/dev/zero")), Err(ReadProblem::NotAFile { kind: "a character device" }));
        assert_eq!(read_file(&dir), Err(ReadProblem::NotAFile { kind: "a directory" }));
        std::fs::remove_dir_all(&dir).unwrap();
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
