//! Error answers to bad lines, rate-bound so that junk cannot make the
//! server talk without end.
//!
//! A token bucket allows [`ERROR_BURST`] answers at once, then
//! [`ERRORS_PER_SECOND`]. Past that, bad lines are counted instead of
//! answered, and one error (no id) says how many went unanswered, sent with
//! the next error the bucket allows or when the session closes. An answer
//! the writer's queue has no room for is counted the same way, so a peer
//! that does not read its stdout makes the server count, not buffer.

use std::time::Instant;

use rmcp::model::{ErrorData, JsonRpcMessage, RequestId};

use super::out::{Frame, Out};

/// Error answers the bucket allows at once.
pub const ERROR_BURST: usize = 64;

/// Error answers the bucket allows per second once the burst is spent.
pub const ERRORS_PER_SECOND: u32 = 16;

/// The bucket and the count of the unanswered.
pub struct ErrorAnswers {
    bucket: Bucket,
    unanswered: u64,
}

impl ErrorAnswers {
    pub fn new() -> Self {
        Self { bucket: Bucket::new(Instant::now()), unanswered: 0 }
    }

    /// Answer a bad line, if the bucket allows; otherwise count it.
    pub fn answer(&mut self, out: &Out, error: ErrorData, id: Option<RequestId>) {
        let now = Instant::now();
        if !self.bucket.take(now) {
            self.unanswered += 1;
            return;
        }
        if self.unanswered > 0 {
            let summary = self.summary();
            self.write(out, summary, None);
            if !self.bucket.take(now) {
                self.unanswered += 1;
                return;
            }
        }
        self.write(out, error, id);
    }

    /// Answer a well-formed request that is refused before it runs: every
    /// request is answered, so this is not rate-bound.
    pub fn refuse(&mut self, out: &Out, error: ErrorData, id: RequestId) {
        self.write(out, error, Some(id));
    }

    /// Say how many bad lines went unanswered, if any, as the session closes.
    pub fn close(&mut self, out: &Out) {
        if self.unanswered > 0 {
            let summary = self.summary();
            self.write(out, summary, None);
        }
    }

    fn write(&mut self, out: &Out, error: ErrorData, id: Option<RequestId>) {
        if !out.try_send(Frame::message(&JsonRpcMessage::error(error, id))) {
            self.unanswered += 1;
        }
    }

    /// The one error that stands for the bad lines that were not answered.
    fn summary(&mut self) -> ErrorData {
        let count = std::mem::take(&mut self.unanswered);
        ErrorData::invalid_request(
            format!(
                "{count} more bad lines were not answered one by one: this server answers at most {ERROR_BURST} \
                 bad lines at once and {ERRORS_PER_SECOND} per second after that"
            ),
            None,
        )
    }
}

/// A token bucket: [`ERROR_BURST`] tokens, refilled at [`ERRORS_PER_SECOND`].
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn new(now: Instant) -> Self {
        Self { tokens: ERROR_BURST as f64, at: now }
    }

    fn take(&mut self, now: Instant) -> bool {
        let elapsed = now.saturating_duration_since(self.at);
        self.at = now;
        self.tokens = (self.tokens + elapsed.as_secs_f64() * f64::from(ERRORS_PER_SECOND)).min(ERROR_BURST as f64);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_bucket_allows_a_burst_then_a_steady_rate() {
        let start = Instant::now();
        let mut bucket = Bucket::new(start);
        let burst = (0..1000).filter(|_| bucket.take(start)).count();
        assert_eq!(burst, ERROR_BURST);
        // One second later: one second's worth, not a new burst.
        let later = start + Duration::from_secs(1);
        let refilled = (0..1000).filter(|_| bucket.take(later)).count();
        assert_eq!(refilled, ERRORS_PER_SECOND as usize);
        let refill = Duration::from_millis(1000 / u64::from(ERRORS_PER_SECOND));
        assert!(!bucket.take(later + refill / 2));
        assert!(bucket.take(later + refill + refill / 2));
        // A long pause refills to the burst and no further.
        let rested = later + Duration::from_secs(3600);
        assert_eq!((0..1000).filter(|_| bucket.take(rested)).count(), ERROR_BURST);
    }
}
