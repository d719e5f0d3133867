//! The lister against a small crate written to a temporary directory: it lists
//! what another crate can reach, under the path it reaches it by, and each
//! kind of API change moves the listing while private changes do not.

use super::crate_tree::Crate;
use super::listing;

/// The fixture crate: each file's path under `src/` and its text.
fn fixture() -> Vec<(&'static str, String)> {
    let files: [(&str, &str); 6] = [
        (
            "lib.rs",
            r#"
pub mod open;
mod closed;
#[path = "elsewhere/moved.rs"]
pub mod moved;
pub mod inline {
    pub fn in_block() {}
    mod deeper;
    pub use self::deeper::Deep;
}
#[cfg(test)]
pub mod tests_only { pub fn never() {} }
#[cfg(feature = "extra")]
pub mod extra { pub fn gated() {} }
pub use closed::{Exported, Other as Renamed};
pub use crate::closed::globbed::*;
pub use serde_json::Value;
#[doc(hidden)]
pub fn __for_macros() {}
#[macro_export]
macro_rules! shout { () => {} }
"#,
        ),
        (
            "open.rs",
            r#"
/// Documentation is not API.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Open<T> { pub visible: Vec<T>, kept: u8 }
impl<T> Open<T> {
    pub fn new() -> Self { Self { visible: Vec::new(), kept: 0 } }
    fn private(&self) {}
    pub const LIMIT: usize = 3;
}
impl<T> std::fmt::Display for Open<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { Ok(()) }
}
#[non_exhaustive]
pub enum Choice { A, B(u8), C { x: String } }
pub trait Speak {
    type Out;
    const N: u8;
    fn speak(&self) -> String;
    fn loud(&self) -> String { self.speak() }
}
impl Speak for u8 { type Out = (); const N: u8 = 1; fn speak(&self) -> String { String::new() } }
pub fn with_sig<'a, T: Clone>(a: &'a str, mut b: Vec<T>) -> Result<&'a str, String> where T: Default { Ok(a) }
pub(crate) fn crate_only() {}
mod sub { pub fn up() {} }
pub use super::closed::Exported as AlsoExported;
thread_local! { pub static LOCAL: u8 = 0; }
"#,
        ),
        (
            "closed.rs",
            r#"
pub struct Exported;
pub struct Other(pub u32, u8);
pub fn not_reexported() {}
pub mod globbed { pub fn from_glob() {} pub const G: u8 = 1; }
"#,
        ),
        ("elsewhere/moved.rs", "pub static MOVED: &str = \"x\";\n"),
        (
            "inline/deeper.rs",
            "pub struct Deep;\nimpl Deep { pub fn go(&self) {} }\nimpl super::super::open::Speak for Deep {}\n",
        ),
        ("unused.rs", "pub fn not_a_module() {}\n"),
    ];
    files.iter().map(|(path, text)| (*path, text.to_string())).collect()
}

/// The fixture's listing, after replacing `from` with `to` in file `file`.
fn listing(edit: Option<(&str, &str, &str)>) -> String {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (path, mut text) in fixture() {
        if let Some((file, from, to)) = edit
            && file == path
        {
            assert!(text.contains(from), "{file} has no `{from}`");
            text = text.replacen(from, to, 1);
        }
        let path = dir.path().join("src").join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the fixture's folders");
        std::fs::write(&path, text).expect("write the fixture");
    }
    listing::list(&Crate::load(&dir.path().join("src/lib.rs"), "fixture"))
}

/// Every item under the path another crate names it by: re-exports (renamed,
/// grouped, through `super::` and `crate::`, globbed) with their definitions,
/// `#[path]` and inline modules, members, impls and derives, `cfg` and
/// `doc(hidden)` marked; another crate's item as the `use` line.
#[test]
fn lists_what_another_crate_reaches() {
    let listed = listing(None);
    let expected = "\
pub struct fixture::Exported  // unit
pub const fixture::G: u8
pub struct fixture::Renamed  // tuple, has private fields
pub fixture::Renamed::0: u32
pub use serde_json::Value as fixture::Value
#[doc(hidden)] pub fn fixture::__for_macros()
#[cfg(feature = \"extra\")] pub mod fixture::extra
#[cfg(feature = \"extra\")] pub fn fixture::extra::gated()
pub fn fixture::from_glob()
pub mod fixture::inline
pub struct fixture::inline::Deep  // unit
impl Speak for fixture::inline::Deep
impl fixture::inline::Deep { pub fn go(&self) }
pub fn fixture::inline::in_block()
pub mod fixture::moved
pub static fixture::moved::MOVED: &str
pub mod fixture::open
fixture::open: thread_local! { .. }  // what it writes is not listed
pub struct fixture::open::AlsoExported  // unit
pub enum fixture::open::Choice  // #[non_exhaustive]
pub fixture::open::Choice::A
pub fixture::open::Choice::B(u8)
pub fixture::open::Choice::C { x: String }
pub struct fixture::open::Open<T>  // #[non_exhaustive], has private fields
impl Clone for fixture::open::Open
impl Debug for fixture::open::Open
impl Display for fixture::open::Open
impl<T> fixture::open::Open<T> { pub const LIMIT: usize }
impl<T> fixture::open::Open<T> { pub fn new() -> Self }
pub fixture::open::Open::visible: Vec<T>
pub trait fixture::open::Speak
impl fixture::open::Speak for u8
const fixture::open::Speak::N: u8
type fixture::open::Speak::Out
fn fixture::open::Speak::loud(&self) -> String  // provided
fn fixture::open::Speak::speak(&self) -> String
pub fn fixture::open::with_sig<'a, T: Clone>(a: &'a str, b: Vec<T>) -> Result<&'a str, String> where T: Default
macro_rules! fixture::shout
";
    assert_eq!(listed, expected, "\n{listed}");
}

#[test]
fn leaves_out_what_another_crate_cannot_reach() {
    let listed = listing(None);
    for private in ["not_reexported", "crate_only", "never", "up()", "fn private", "not_a_module", "kept"] {
        assert!(!listed.contains(private), "`{private}` is not public, yet listed:\n{listed}");
    }
}

#[test]
fn a_new_pub_fn_changes_the_listing() {
    let listed = listing(Some(("open.rs", "pub(crate) fn crate_only", "pub fn added() {}\npub(crate) fn crate_only")));
    assert_ne!(listed, listing(None));
    assert!(listed.contains("pub fn fixture::open::added()\n"), "{listed}");
}

#[test]
fn a_changed_signature_changes_the_listing() {
    let listed = listing(Some(("open.rs", "-> Result<&'a str, String>", "-> Result<&'a str, ()>")));
    assert_ne!(listed, listing(None));
    assert!(listed.contains("-> Result<&'a str, ()> where T: Default\n"), "{listed}");
}

#[test]
fn a_module_made_pub_adds_its_items() {
    let listed = listing(Some(("lib.rs", "mod closed;", "pub mod closed;")));
    assert!(listed.contains("pub fn fixture::closed::not_reexported()\n"), "{listed}");
    assert!(!listing(None).contains("not_reexported"));
}

#[test]
fn private_changes_leave_the_listing_alone() {
    let baseline = listing(None);
    for (file, from, to) in [
        ("open.rs", "fn private(&self) {}", "fn private(&self, _extra: u8) {}"),
        ("open.rs", "mod sub { pub fn up() {} }", "mod sub { pub fn up() {} pub fn down() {} }"),
        ("closed.rs", "pub fn not_reexported() {}", "pub fn not_reexported(_: u8) {}"),
        ("open.rs", "mut b: Vec<T>", "b: Vec<T>"),
        ("open.rs", "/// Documentation is not API.", "/// Nor is a reworded comment."),
    ] {
        assert_eq!(listing(Some((file, from, to))), baseline, "{file}: `{from}` -> `{to}` changed the listing");
    }
}
