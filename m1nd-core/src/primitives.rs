//! The values every compiled type is built from, one floor below both the
//! deny list and the table so that neither has to import the other.

use std::borrow::Cow;

/// Static or owned text.
pub type Str = Cow<'static, str>;
/// Static or owned list.
pub type List<T> = Cow<'static, [T]>;

/// A fixed argument: what a card passes to its verb, and what a status-only
/// rule looks at to decide whether a read-only session may make the call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Argument {
    pub name: Str,
    pub value: Str,
}
