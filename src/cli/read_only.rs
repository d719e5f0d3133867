//! Read-only from the environment: `M1ND_READ_ONLY`, which `m1nd serve` and
//! `m1nd gateway` both honour beside `--read-only`.

use super::Failure;

/// The environment variable that turns read-only on.
pub const READ_ONLY_ENV: &str = "M1ND_READ_ONLY";

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
            m1nd_policy::sanitize::display(&value.to_string_lossy(), m1nd_policy::sanitize::cap::VALUE)
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
