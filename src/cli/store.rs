//! `m1nd store ...`: move a JSON store into a new SQLite store, check a
//! store's file, add page checksums to an older store, change the size cap,
//! copy the store to a backup.
//!
//! `m1nd store check` exits 0 when the store is sound (and says whether it
//! has page checksums), 1 when it found damage (pages failing their
//! checksum, or what `PRAGMA integrity_check` reports, or a file that is not
//! a SQLite store), and 2 when it could not check (no store, an unreadable
//! file). It never writes.

use std::path::PathBuf;

use clap::Args;
use m1nd::invocation::{self, shell_word};
use m1nd::store::{Checksums, Location, Report, Store, StoreError};

use super::{Failure, MaxBytesArg, StoreArg, emit, store_failure};

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The JSON store's file (`.m1nd/state.json` before this version).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    max_bytes: MaxBytesArg,
}

pub fn import(args: ImportArgs) -> Result<(), Failure> {
    let store = Store::import_at(args.store.location(), &args.file, args.max_bytes.max_bytes).map_err(store_failure)?;
    let snapshot = store.snapshot().map_err(|e| Failure::usage(e.to_string()))?;
    let counts = snapshot.counts().map_err(|e| Failure::usage(e.to_string()))?;
    emit(&format!(
        "imported {} into {} (store_version {}): {} missions, {} blocks, {} memories, {} alerts, {} modules, \
         {} drifted nodes, {} presences; {} was only read",
        args.file.display(),
        store.path().display(),
        snapshot.version(),
        counts.missions,
        counts.blocks,
        counts.memories,
        counts.alerts,
        counts.modules,
        counts.drift,
        counts.presences,
        args.file.display(),
    ))
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    store: StoreArg,
}

/// The command that adds checksums to the store in `dir`, as the user would type it.
fn add_checksums_command(store: &StoreArg) -> String {
    invocation::m1nd(&format!("store add-checksums --store {}", shell_word(&store.store.to_string())))
}

pub fn check(args: CheckArgs) -> Result<(), Failure> {
    let report = m1nd::store::check(args.store.dir()?).map_err(|e| match e {
        StoreError::Corrupt { .. } => Failure::refused(format!("damaged: {e}")),
        other => Failure::usage(other.to_string()),
    })?;
    let text = describe(&report, &add_checksums_command(&args.store));
    if report.is_sound() { emit(&text) } else { Err(Failure::refused(text)) }
}

/// What `store check` prints for `report`.
fn describe(report: &Report, add_checksums: &str) -> String {
    let path = report.path.display();
    let mut lines = Vec::new();
    if report.is_sound() {
        lines.push(format!("ok: {path} ({} pages of {} bytes) passed integrity_check", report.pages, report.page_size));
    } else {
        lines.push(format!("damaged: {path} ({} pages of {} bytes)", report.pages, report.page_size));
        for page in &report.damaged {
            let owner = page.owner.as_deref().map_or("no table SQLite can still name".to_owned(), |o| format!("`{o}`"));
            lines.push(format!("  page {} fails its checksum (part of {owner})", page.page));
        }
        for problem in &report.problems {
            lines.push(format!("  integrity_check: {problem}"));
        }
        lines.push(
            "  the file was changed after m1nd wrote it (damage on disk, or a program without m1nd's checksum \
             layer, such as the sqlite3 shell, writing to it); reads of the damaged pages fail rather than answer. \
             Restore the store from a backup (`m1nd store backup` makes them)"
                .to_owned(),
        );
    }
    if report.has_checksums() {
        lines.push("checksums: every page has one and was checked".to_owned());
    } else {
        lines.push(format!(
            "checksums: none (the store was made before they were; {} bytes reserved per page), so damage inside a \
             row cannot be seen; add them with `{add_checksums}`",
            report.reserved
        ));
    }
    lines.join("\n")
}

#[derive(Debug, Args)]
pub struct AddChecksumsArgs {
    #[command(flatten)]
    store: StoreArg,
}

pub fn add_checksums(args: AddChecksumsArgs) -> Result<(), Failure> {
    let mut store = Store::open(args.store.dir()?).map_err(store_failure)?;
    match store.add_checksums().map_err(store_failure)? {
        Checksums::AlreadyThere => {
            emit(&format!("{} already has page checksums; nothing changed", store.path().display()))
        }
        Checksums::Added { pages } => emit(&format!(
            "added a checksum to each of the {pages} pages of {} (store_version unchanged); `{}` checks them",
            store.path().display(),
            invocation::m1nd(&format!("store check --store {}", shell_word(&args.store.store.to_string())))
        )),
    }
}

#[derive(Debug, Args)]
pub struct SetMaxBytesArgs {
    /// The new size cap, in bytes: at least what the store holds now.
    #[arg(value_name = "BYTES")]
    max_bytes: u64,
    #[command(flatten)]
    store: StoreArg,
}

pub fn set_max_bytes(args: SetMaxBytesArgs) -> Result<(), Failure> {
    let at = args.store.location();
    let mut store = Store::open_at(at).map_err(store_failure)?;
    let version = store.set_max_bytes(args.max_bytes).map_err(store_failure)?;
    // SQLite's cap is set on each connection when it opens; a database's
    // is read by every write.
    let servers = match at {
        Location::Dir(_) => "servers started before apply it when restarted",
        Location::Postgres(_) => "every server on it applies it from its next write",
    };
    emit(&format!(
        "{} now declares a size cap of {} bytes (store_version {version}); {servers}",
        store.path().display(),
        args.max_bytes
    ))
}

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// Where to write the copy: a new file (never replaced).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    store: StoreArg,
}

pub fn backup(args: BackupArgs) -> Result<(), Failure> {
    let store = Store::open(args.store.dir()?).map_err(store_failure)?;
    let report = store.backup(&args.file).map_err(store_failure)?;
    let checksums = if report.has_checksums() { "with a checksum on every page" } else { "without page checksums" };
    emit(&format!(
        "copied {} to {} ({} pages, {checksums}; checked); to restore, stop the servers and put it in place as \
         state.db in an empty store directory",
        store.path().display(),
        args.file.display(),
        report.pages
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use m1nd::store::DamagedPage;

    fn report(reserved: u8, damaged: Vec<DamagedPage>, problems: Vec<String>) -> Report {
        Report { path: PathBuf::from("/s/state.db"), page_size: 4096, pages: 9, reserved, damaged, problems }
    }

    #[test]
    fn the_report_says_ok_damaged_or_no_checksums() {
        let ok = describe(&report(8, vec![], vec![]), "m1nd store add-checksums");
        assert!(ok.starts_with("ok: /s/state.db (9 pages of 4096 bytes)"), "{ok}");
        assert!(ok.contains("every page has one"), "{ok}");
        let old = describe(&report(0, vec![], vec![]), "m1nd store add-checksums --store s");
        assert!(old.contains("checksums: none"), "{old}");
        assert!(old.contains("`m1nd store add-checksums --store s`"), "{old}");
        let damaged =
            vec![DamagedPage { page: 5, owner: Some("memories".into()) }, DamagedPage { page: 7, owner: None }];
        let bad = describe(&report(8, damaged, vec!["Tree 4 page 5: btreeInitPage() returns error".into()]), "x");
        assert!(bad.starts_with("damaged: /s/state.db"), "{bad}");
        assert!(bad.contains("page 5 fails its checksum (part of `memories`)"), "{bad}");
        assert!(bad.contains("page 7 fails its checksum (part of no table"), "{bad}");
        assert!(bad.contains("integrity_check: Tree 4 page 5"), "{bad}");
    }
}
