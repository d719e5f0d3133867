//! `m1nd serve`: MCP over stdio.

use clap::Args;

use super::{Failure, StoreArg};
use crate::server::{self, Options};

/// The environment variable that turns read-only on.
pub const READ_ONLY_ENV: &str = "M1ND_READ_ONLY";

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Refuse every verb that writes (also: M1ND_READ_ONLY=1 or true).
    #[arg(long)]
    read_only: bool,
    #[command(flatten)]
    store: StoreArg,
}

pub fn run(args: ServeArgs) -> Result<(), Failure> {
    let from_env = read_only_from_env(std::env::var_os(READ_ONLY_ENV))?;
    let options = Options { read_only: args.read_only || from_env, store: args.store.store };
    server::run(options).map_err(Failure::usage)
}

/// `1`/`true`/`yes`/`on` turn read-only on and `0`/`false`/`no`/`off` or empty
/// leave it off (any case). Anything else stops the server rather than guess:
/// a misspelt value must not silently start a writable session.
pub fn read_only_from_env(value: Option<std::ffi::OsString>) -> Result<bool, Failure> {
    let Some(value) = value else { return Ok(false) };
    let text = value.to_string_lossy().trim().to_ascii_lowercase();
    match text.as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "" | "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(Failure::usage(format!(
            "{READ_ONLY_ENV}={:?} is not understood; use 1 or true for read-only, 0 or false for read-write",
            m1nd_core::sanitize::display(&value.to_string_lossy(), m1nd_core::sanitize::cap::VALUE)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_values() {
        let parse = |v: &str| read_only_from_env(Some(v.into())).map_err(|f| f.code);
        assert_eq!(read_only_from_env(None).map_err(|f| f.code), Ok(false));
        for on in ["1", "true", "TRUE", " True ", "yes", "on"] {
            assert_eq!(parse(on), Ok(true), "{on}");
        }
        for off in ["", "0", "false", "no", "off"] {
            assert_eq!(parse(off), Ok(false), "{off}");
        }
        assert_eq!(parse("ture"), Err(2));
    }
}
