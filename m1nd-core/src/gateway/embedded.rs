//! A gateway policy compiled into a binary by `gateway!`.
//!
//! The macro runs every law at compile time, so a policy that breaks one
//! does not build, and on success embeds the policy's text. The table is
//! lowered from that text on first use (about a millisecond, once): the same
//! `compile_gateway` that checked it, on the same bytes, so it is the table
//! the laws passed.

use std::sync::OnceLock;

use crate::gateway_table::Gateway;
use crate::policy::{PolicyFile, PolicySources, compile_gateway};

/// How many files a policy directory may hold.
pub const FILES: usize = PolicyFile::EVERY.len();

/// The text of a gateway policy, proven lawful when the crate was built.
pub struct Embedded {
    display: &'static str,
    /// Each file's text, in [`PolicyFile::EVERY`] order.
    files: [Option<&'static str>; FILES],
    table: OnceLock<Result<Gateway, String>>,
}

impl Embedded {
    /// Used by `gateway!` expansions only, after every law passed.
    #[doc(hidden)]
    pub const fn __from_checked_policy(display: &'static str, files: [Option<&'static str>; FILES]) -> Self {
        Self { display, files, table: OnceLock::new() }
    }

    /// The value `gateway!` emits next to its compile errors. Never served.
    #[doc(hidden)]
    pub const fn __stub() -> Self {
        Self::__from_checked_policy("", [None; FILES])
    }

    /// The policy directory as the macro call wrote it (`"policy"` for
    /// `gateway!("policy")`), for messages that name the policy's files.
    pub fn display(&self) -> &'static str {
        self.display
    }

    /// The compiled table. An error only if the embedded text no longer
    /// compiles, which the build ruled out; it is reported, never panicked on.
    pub fn gateway(&self) -> Result<&Gateway, &str> {
        let table = self.table.get_or_init(|| {
            let files = self.files;
            let sources = PolicySources::from_bytes(self.display, |f: PolicyFile| files[f as usize].map(str::as_bytes));
            compile_gateway(&sources).map_err(|problems| {
                problems.iter().map(|d| format!("error: {}", d.render(&sources))).collect::<Vec<_>>().join("\n\n")
            })
        });
        table.as_ref().map_err(String::as_str)
    }
}
