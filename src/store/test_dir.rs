//! Throwaway directories for store tests, removed on drop.

/// A fresh, empty directory named after the test, for readable leftovers.
pub fn test_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("m1nd-{name}-")).tempdir().expect("create test dir")
}
