//! Numbers on the command line, refused with the flag's name when no server
//! could run with them.

use std::time::Duration;

use super::Failure;

/// A flag's count, refused unless it is at least 1.
pub fn at_least_one(n: usize, flag: &str) -> Result<usize, Failure> {
    if n == 0 {
        return Err(Failure::usage(format!("{flag} must be at least 1")));
    }
    Ok(n)
}

/// A flag's number of seconds, refused unless it is finite and positive.
pub fn positive_seconds(seconds: f64, flag: &str) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|t| !t.is_zero())
        .ok_or_else(|| Failure::usage(format!("{flag} must be a positive number of seconds")))
}
