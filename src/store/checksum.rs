//! Page checksums: every page of `state.db` ends in an 8-byte checksum of
//! the rest of the page, written with the page and verified whenever the
//! page is read.
//!
//! 1. **Every connection goes through the checksum layer.** [`register`]
//!    installs the store's own page-checksum VFS shim (src/store/checksum_vfs.c,
//!    compiled by build.rs) as the default VFS, once per process, and every
//!    place that opens a connection calls it first.
//! 2. **A page that does not match its checksum is never an answer.** The
//!    read fails with `SQLITE_IOERR_DATA`, which the store reports as
//!    [`StoreError::Corrupt`] naming the file and the checksum
//!    ([`is_checksum_fault`]); nothing read from that page reaches a caller.
//! 3. **A store this build creates has checksums from its first page**: 8
//!    reserved bytes per page, set on the empty database before the first
//!    table ([`reserve`]). A store made before has none until `m1nd store
//!    add-checksums` rewrites it in place (see [`super::Store::add_checksums`]).
//!
//! The shim only acts on a database whose header reserves exactly 8 bytes
//! per page; on any other it passes reads and writes through unchanged, so
//! a store without checksums keeps working as before.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use rusqlite::{Connection, ffi};

/// The bytes at the end of each page that hold its checksum.
pub const RESERVED_BYTES: u8 = 8;

/// Offset of "bytes of unused reserved space at the end of each page" in
/// the SQLite file header.
pub const RESERVED_BYTES_OFFSET: usize = 20;

unsafe extern "C" {
    /// Defined in src/store/checksum_vfs.c: registers the shim as the default
    /// VFS (wrapping the previous default) and `verify_checksum()` as an
    /// auto-extension; a SQLite result code.
    fn m1nd_checksum_vfs_register() -> c_int;
}

/// Install the checksum layer as SQLite's default VFS, once per process.
/// Returns SQLite's result code of the one registration.
pub fn register() -> Result<(), c_int> {
    static REGISTERED: OnceLock<c_int> = OnceLock::new();
    // SAFETY: the registration takes no arguments and only calls SQLite's
    // thread-safe VFS and auto-extension registries; OnceLock makes it run
    // once even when threads race to open stores.
    let rc = *REGISTERED.get_or_init(|| unsafe { m1nd_checksum_vfs_register() });
    if rc == ffi::SQLITE_OK { Ok(()) } else { Err(rc) }
}

/// Ask for [`RESERVED_BYTES`] per page on `conn`'s main database. On an
/// empty database (before the first table) that is the page layout it is
/// created with; on one that has pages, it takes effect at the next VACUUM.
/// Nothing is written by the call itself.
pub fn reserve(conn: &Connection) -> rusqlite::Result<()> {
    let mut n: c_int = c_int::from(RESERVED_BYTES);
    // SAFETY: `conn.handle()` is a live connection for the call's duration;
    // SQLITE_FCNTL_RESERVE_BYTES reads and writes one `int` through the pointer,
    // which points at `n` on this stack frame.
    let rc = unsafe {
        ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            ffi::SQLITE_FCNTL_RESERVE_BYTES,
            (&raw mut n).cast::<c_void>(),
        )
    };
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some("cannot reserve checksum bytes".to_owned())))
    }
}

/// Whether `e` is the checksum layer refusing a page whose bytes no longer
/// match the checksum written with them.
pub fn is_checksum_fault(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _) if f.extended_code == ffi::SQLITE_IOERR_DATA)
}
