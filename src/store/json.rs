//! The JSON store's file, `state.json`, read for `m1nd store import` and for
//! the demo seed. Nothing writes this format any more; it is only read, and
//! only whole files that pass [`State::validate`] are handed on.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use super::error::StoreError;
use super::state::State;

/// The file name the JSON store used.
pub const STATE_JSON: &str = "state.json";

/// A file larger than this is refused instead of read into memory.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Read, parse and validate a `state.json`. Anything but a regular file (a
/// FIFO, a device, a directory) is refused before a byte is read.
pub fn read(path: &Path) -> Result<State, StoreError> {
    let file = open(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => StoreError::NotFound { path: path.to_owned() },
        _ => StoreError::io(path, "open", e),
    })?;
    let meta = file.metadata().map_err(|e| StoreError::io(path, "inspect", e))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file" };
        return Err(StoreError::NotRegular { path: path.to_owned(), kind });
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1).read_to_end(&mut bytes).map_err(|e| StoreError::io(path, "read", e))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(StoreError::corrupt(path, format!("the file is larger than {MAX_BYTES} bytes")));
    }
    decode(path, &bytes)
}

#[cfg(unix)]
fn open(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> io::Result<File> {
    OpenOptions::new().read(true).open(path)
}

/// Parse and validate; `path` is only named in errors.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<State, StoreError> {
    let state: State = serde_json::from_slice(bytes).map_err(|e| parse_error(path, &e))?;
    state.validate().map_err(|reason| StoreError::corrupt(path, shown(&reason.to_string())))?;
    Ok(state)
}

fn parse_error(path: &Path, e: &serde_json::Error) -> StoreError {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let reason = shown(text.strip_suffix(&position).unwrap_or(&text));
    StoreError::Corrupt { path: path.to_owned(), line: e.line(), column: e.column(), reason }
}

/// A reason that may quote the file (serde quotes an unknown field or a bad
/// value as written), with every invisible or control character escaped:
/// the file is anyone's, and the reason is printed to a terminal.
fn shown(reason: &str) -> String {
    m1nd_policy::sanitize::escape::escape(reason, m1nd_policy::sanitize::escape::Layout::Escape).into_owned()
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::super::state::FORMAT;
    use super::super::test_dir::test_dir;
    use super::*;

    #[test]
    fn parse_errors_carry_position_without_repeating_it() {
        let path = Path::new("/x/state.json");
        let err = decode(path, b"{\n  \"format\": \"m1nd-store-v1\",\n  oops").expect_err("bad");
        match err {
            StoreError::Corrupt { line, column, reason, .. } => {
                assert_eq!(line, 3);
                assert!(column > 0);
                assert!(!reason.contains("at line"), "{reason}");
            }
            other => panic!("expected Corrupt, got {other:?}"),
        }
    }

    #[test]
    fn bad_files_are_reported_with_their_path() {
        let dir = test_dir("json");
        let path = dir.path().join(STATE_JSON);
        let text = serde_json::to_string_pretty(&State::empty()).expect("encode");
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("garbage", b"\x00\xffnot json at all".to_vec()),
            ("empty", Vec::new()),
            ("truncated", text.as_bytes()[..text.len() / 2].to_vec()),
            ("wrong format", text.replace(FORMAT, "m1nd-store-v0").into_bytes()),
            ("unknown field", text.replacen("\"checkpoints\"", "\"extra\": 1,\n  \"checkpoints\"", 1).into_bytes()),
            ("not an object", b"[1, 2, 3]".to_vec()),
        ];
        for (name, bytes) in cases {
            fs::write(&path, &bytes).expect("write case");
            let err = read(&path).expect_err(name);
            assert!(matches!(err, StoreError::Corrupt { .. }), "{name}: expected Corrupt, got {err:?}");
            assert!(err.to_string().contains(&path.display().to_string()), "{name}: {err}");
        }
        fs::write(&path, &text).expect("good");
        assert_eq!(read(&path).expect("good"), State::empty());
        assert!(matches!(read(&dir.path().join("nowhere.json")), Err(StoreError::NotFound { .. })));
        assert!(matches!(read(dir.path()), Err(StoreError::NotRegular { .. })));
    }

    #[test]
    fn a_reason_that_quotes_the_file_shows_nothing_invisible() {
        let path = Path::new("/x/state.json");
        let text = serde_json::to_string(&State::empty()).expect("encode");
        let hostile = text.replacen('{', "{\"a\\u202eb\\u001b[2J\": 1,", 1);
        let said = decode(path, hostile.as_bytes()).expect_err("an unknown field").to_string();
        assert!(said.contains("\\u{202E}") && said.contains("\\u{001B}"), "{said}");
        assert!(!said.contains('\u{202E}') && !said.contains('\u{1B}'), "{said:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = test_dir("json-fifo");
        let path = dir.path().join(STATE_JSON);
        assert!(std::process::Command::new("mkfifo").arg(&path).status().expect("mkfifo").success());
        assert!(matches!(read(&path), Err(StoreError::NotRegular { .. })));
    }
}
