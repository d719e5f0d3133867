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

/// Run `init` on `racers` threads released at once, and say which of them
/// created the store: `init` either creates one or is refused because one
/// exists (any other failure fails the test). Racing inits make one store.
pub fn racing_inits(
    racers: usize,
    init: impl Fn(usize) -> Result<super::Store, super::StoreError> + Sync,
) -> Vec<bool> {
    let start = std::sync::Barrier::new(racers);
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..racers)
            .map(|n| {
                let (start, init) = (&start, &init);
                scope.spawn(move || {
                    start.wait();
                    match init(n) {
                        Ok(_) => true,
                        Err(super::StoreError::AlreadyExists { .. }) => false,
                        Err(e) => panic!("init failed: {e}"),
                    }
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().expect("racer")).collect()
    })
}
