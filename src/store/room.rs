//! Why a write found no room: the store's size cap, a full disk, or a
//! file-size limit.
//!
//! 1. **A refusal names the cause it can be sure of, and only causes that
//!    could have refused.** SQLite reports all three the same way (`SQLITE_FULL`,
//!    or a failed write for `RLIMIT_FSIZE`), so at refusal time the store
//!    measures ([`Room::measure`]) how much room each limit leaves and
//!    [`Room::causes`] keeps every limit that leaves less than one write can
//!    need ([`ONE_WRITE_BYTES`]). Each is necessary for its cause: a full disk
//!    leaves less than the write needed free once the write rolled back, a
//!    cap refuses only a write it is that close to. When none is that close
//!    the message says so, with the numbers.
//!
//! Measuring reads metadata only (the file's length, `statvfs`,
//! `getrlimit`); it writes nothing.

use std::fmt;
use std::path::Path;

use super::state::{MAX_BATCH, MAX_CLAIM_CHARS, MAX_SOURCE_CHARS};

/// More than one write transaction can add to the file and its journal: a
/// batch of [`MAX_BATCH`] memories at the longest claim and source, 4 bytes a
/// character, counted four times over (the table's pages, the journal's copy
/// of every page touched, indexes and slack).
pub const ONE_WRITE_BYTES: u64 = 4 * MAX_BATCH as u64 * 4 * (MAX_CLAIM_CHARS + MAX_SOURCE_CHARS) as u64;

// The bound is small next to the default cap, so a roomy store is never
// "at its cap".
const _: () = assert!(ONE_WRITE_BYTES < super::DEFAULT_MAX_BYTES / 64);

/// How much room each limit left, measured when a write was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Room {
    /// The store's declared size cap (`max_bytes`).
    pub cap: u64,
    /// The length of `state.db`.
    pub used: u64,
    /// Bytes the filesystem holding the store still gives this user
    /// (`statvfs`: available blocks × fragment size); `None` if unknown.
    pub disk_free: Option<u64>,
    /// This process's file-size limit (`RLIMIT_FSIZE`, soft); `None` when
    /// there is none or it is unknown.
    pub file_size_limit: Option<u64>,
}

/// A limit that could have refused the write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    SizeCap,
    DiskFull,
    FileSizeLimit,
}

/// A refused write's causes, with the measurements that name them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoRoom {
    pub room: Room,
    pub causes: Vec<Cause>,
}

impl Room {
    /// Measure the room around the store file `path` declaring `cap` bytes.
    pub fn measure(path: &Path, cap: u64) -> Room {
        let used = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Room { cap, used, disk_free: disk_free(dir), file_size_limit: file_size_limit() }
    }

    /// Every limit that leaves less room than one write can need.
    pub fn causes(&self) -> Vec<Cause> {
        let mut causes = Vec::new();
        if self.cap.saturating_sub(self.used) < ONE_WRITE_BYTES {
            causes.push(Cause::SizeCap);
        }
        if self.disk_free.is_some_and(|free| free < ONE_WRITE_BYTES) {
            causes.push(Cause::DiskFull);
        }
        if self.file_size_limit.is_some_and(|limit| limit.saturating_sub(self.used) < ONE_WRITE_BYTES) {
            causes.push(Cause::FileSizeLimit);
        }
        causes
    }

    /// The refusal to report.
    pub fn no_room(self) -> NoRoom {
        NoRoom { causes: self.causes(), room: self }
    }
}

impl NoRoom {
    /// The refusal of a store that counts what its rows hold rather than
    /// measuring a file (PostgreSQL): `used` of `cap` bytes, the cap the cause.
    pub fn size_cap(cap: u64, used: u64) -> NoRoom {
        NoRoom { room: Room { cap, used, disk_free: None, file_size_limit: None }, causes: vec![Cause::SizeCap] }
    }

    /// Whether the process's file-size limit is among the causes: a write
    /// refused by it fails as an I/O error, not as "full", and is reported
    /// as no room only then.
    pub fn file_size_limit(&self) -> bool {
        self.causes.contains(&Cause::FileSizeLimit)
    }
}

impl fmt::Display for NoRoom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Room { cap, used, disk_free, file_size_limit } = self.room;
        if self.causes.is_empty() {
            let free = disk_free.map_or("an unknown number of".to_owned(), |b| b.to_string());
            let limit = file_size_limit.map_or("none".to_owned(), |b| format!("{b} bytes"));
            return write!(
                f,
                "SQLite found no room, yet neither the size cap ({cap} bytes, {used} used), the disk ({free} bytes \
                 free) nor a file-size limit ({limit}) is within one write of full: the disk may have filled and \
                 emptied meanwhile; retry"
            );
        }
        let sentences: Vec<String> = self
            .causes
            .iter()
            .map(|cause| match cause {
                Cause::SizeCap => format!(
                    "size cap: the store declares at most {cap} bytes and holds {used}; raise the cap with `{}` \
                     (or free room by deleting what it no longer needs)",
                    crate::invocation::m1nd("store set-max-bytes BYTES")
                ),
                Cause::DiskFull => format!(
                    "disk full: the filesystem holding the store has {} bytes free; free space there (or move the \
                     store to a larger disk), then retry",
                    disk_free.unwrap_or(0)
                ),
                Cause::FileSizeLimit => format!(
                    "file-size limit: this process may not grow a file past {} bytes (RLIMIT_FSIZE, `ulimit -f`) and \
                     the store holds {used}; raise the limit (`ulimit -f`, systemd `LimitFSIZE=`) and restart it",
                    file_size_limit.unwrap_or(0)
                ),
            })
            .collect();
        f.write_str(&sentences.join("; or "))
    }
}

#[cfg(unix)]
fn disk_free(dir: &Path) -> Option<u64> {
    let stat = rustix::fs::statvfs(dir).ok()?;
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

#[cfg(not(unix))]
fn disk_free(_dir: &Path) -> Option<u64> {
    None
}

#[cfg(unix)]
fn file_size_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Fsize).current
}

#[cfg(not(unix))]
fn file_size_limit() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    fn room(cap: u64, used: u64, disk_free: Option<u64>, file_size_limit: Option<u64>) -> Room {
        Room { cap, used, disk_free, file_size_limit }
    }

    #[test]
    fn each_limit_is_named_only_when_it_is_within_one_write() {
        // The cap is reached, the disk is roomy: the size cap.
        let cap = room(256 * 1024, 250 * 1024, Some(40 * GIB), None).no_room();
        assert_eq!(cap.causes, [Cause::SizeCap]);
        let text = cap.to_string();
        assert!(text.starts_with("size cap: the store declares at most 262144 bytes"), "{text}");
        assert!(text.contains("store set-max-bytes"), "{text}");
        assert!(!text.contains("disk full"), "{text}");

        // The cap is far, the disk has a few KiB left: the disk.
        let disk = room(GIB, 10 << 20, Some(12 * 1024), None).no_room();
        assert_eq!(disk.causes, [Cause::DiskFull]);
        let text = disk.to_string();
        assert!(text.starts_with("disk full: the filesystem holding the store has 12288 bytes free"), "{text}");
        assert!(!text.contains("size cap"), "{text}");

        // RLIMIT_FSIZE at the file's length: the file-size limit.
        let fsize = room(GIB, 80 * 1024, Some(40 * GIB), Some(80 * 1024)).no_room();
        assert_eq!(fsize.causes, [Cause::FileSizeLimit]);
        assert!(fsize.file_size_limit());
        assert!(fsize.to_string().contains("RLIMIT_FSIZE"), "{fsize}");

        // Both within reach: both are said, the cap first.
        let both = room(256 * 1024, 200 * 1024, Some(4096), None).no_room();
        assert_eq!(both.causes, [Cause::SizeCap, Cause::DiskFull]);
        assert!(both.to_string().contains("; or disk full"), "{both}");

        // Nothing close: no cause is invented.
        let none = room(GIB, 1 << 20, Some(40 * GIB), Some(u64::MAX)).no_room();
        assert!(none.causes.is_empty());
        assert!(none.to_string().contains("neither the size cap"), "{none}");
        assert!(!none.file_size_limit());
    }

    #[test]
    fn measuring_reads_the_file_and_the_filesystem() {
        let dir = super::super::test_dir::test_dir("room");
        let path = dir.path().join("f");
        std::fs::write(&path, vec![0u8; 5000]).expect("write");
        let room = Room::measure(&path, GIB);
        assert_eq!(room.used, 5000);
        assert_eq!(room.cap, GIB);
        #[cfg(unix)]
        assert!(room.disk_free.is_some_and(|b| b > 0), "{room:?}");
    }
}
