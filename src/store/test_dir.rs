//! Throwaway directories for store tests, removed on drop.

/// A fresh, empty directory named after the test, for readable leftovers.
pub fn test_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("m1nd-{name}-")).tempdir().expect("create test dir")
}

/// Every file of a store's directory, by name, with its bytes: what a test
/// compares to show that a refusal or a read changed nothing.
pub fn files(store: &super::Store) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(store.dir())
        .expect("list")
        .map(|e| {
            let e = e.expect("entry");
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).expect("read"))
        })
        .collect();
    out.sort();
    out
}
