//! The cockpit's answers for the state being served, kept while it lasts.
//!
//! The composer is pure: a view is a function of the table (fixed when this
//! binary was built), the store as read and the request, and the text and JSON
//! skins are functions of the view. So while a read finds the same state (the
//! same file at the same `store_version`, its [`Stamp`]), the same request
//! gets the same answer, and it is kept rather than composed, rendered and
//! converted again. Every write bumps `store_version` in its own transaction,
//! so any write, by any process, is a new stamp, which drops every kept
//! answer. Only successful answers are kept, at most [`KEPT`] of them; the
//! oldest goes first.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use m1nd::store::Stamp;
use m1nd_core::runtime::Request;
use rmcp::model::CallToolResult;

/// The most answers kept for one snapshot.
pub const KEPT: usize = 16;

#[derive(Default)]
pub struct Answers(Mutex<Kept>);

#[derive(Default)]
struct Kept {
    /// The state every kept answer was composed from.
    of: Option<Stamp>,
    answers: VecDeque<(Request, CallToolResult)>,
}

impl Kept {
    fn is_of(&self, stamp: Stamp) -> bool {
        self.of == Some(stamp)
    }
}

impl Answers {
    /// The answer to `request` over the state `stamp` names: the kept one,
    /// or `compose`'s.
    pub fn get_or_compose(
        &self,
        stamp: Stamp,
        request: Request,
        compose: impl FnOnce(&Request) -> Result<CallToolResult, String>,
    ) -> Result<CallToolResult, String> {
        {
            let kept = self.lock();
            if kept.is_of(stamp)
                && let Some((_, answer)) = kept.answers.iter().find(|(asked, _)| *asked == request)
            {
                return Ok(answer.clone());
            }
        }
        // Composed without the lock held; kept under the state it came from.
        let answer = compose(&request)?;
        let mut kept = self.lock();
        if !kept.is_of(stamp) {
            kept.of = Some(stamp);
            kept.answers.clear();
        }
        if kept.answers.len() >= KEPT {
            kept.answers.pop_front();
        }
        kept.answers.push_back((request, answer.clone()));
        Ok(answer)
    }

    fn lock(&self) -> MutexGuard<'_, Kept> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use m1nd::store::Store;
    use rmcp::model::ContentBlock;

    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::Builder::new().prefix("m1nd-answers-").tempdir().expect("create dir");
        let store = Store::init(dir.path(), true).expect("init");
        (dir, store)
    }

    fn stamp(store: &Store) -> Stamp {
        store.snapshot().expect("snapshot").stamp()
    }

    fn request(select: &str) -> Request {
        Request { select: Some(select.to_owned()), seen_store_version: None }
    }

    fn text(result: &CallToolResult) -> String {
        result.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default()
    }

    #[test]
    fn kept_per_request_and_dropped_when_the_state_moves() {
        let (dir, mut store) = store();
        let first = stamp(&store);
        assert_eq!(stamp(&Store::open(dir.path()).expect("open")), first, "the same state, the same stamp");
        let answers = Answers::default();
        let composed = Cell::new(0);
        let compose = |request: &Request| {
            composed.set(composed.get() + 1);
            Ok(CallToolResult::success(vec![ContentBlock::text(format!("{request:?} #{}", composed.get()))]))
        };
        let a = answers.get_or_compose(first, request("1"), compose).expect("a");
        let again = answers.get_or_compose(first, request("1"), compose).expect("again");
        assert_eq!((text(&a), composed.get()), (text(&again), 1));
        answers.get_or_compose(first, request("2"), compose).expect("b");
        assert_eq!(composed.get(), 2, "another request is composed");
        let seen = Request { seen_store_version: Some(1), ..request("1") };
        answers.get_or_compose(first, seen, compose).expect("seen");
        assert_eq!(composed.get(), 3, "seen_store_version is part of the request");

        store.memorize("moves the state", "test", None, None).expect("write");
        let second = stamp(&store);
        assert_ne!(second, first);
        let moved = answers.get_or_compose(second, request("1"), compose).expect("moved");
        assert_eq!(composed.get(), 4);
        assert_ne!(text(&moved), text(&a));
        answers.get_or_compose(first, request("2"), compose).expect("old state");
        assert_eq!(composed.get(), 5, "answers of a replaced state are gone");
    }

    #[test]
    fn errors_are_not_kept_and_at_most_kept_answers_are() {
        let (_dir, store) = store();
        let stamp = stamp(&store);
        let answers = Answers::default();
        let composed = Cell::new(0);
        let failing = |_: &Request| {
            composed.set(composed.get() + 1);
            Err("no".to_owned())
        };
        for _ in 0..2 {
            assert!(answers.get_or_compose(stamp, request("9"), failing).is_err());
        }
        assert_eq!(composed.get(), 2);

        let compose = |_: &Request| {
            composed.set(composed.get() + 1);
            Ok(CallToolResult::success(vec![ContentBlock::text("x")]))
        };
        composed.set(0);
        for n in 0..=KEPT {
            answers.get_or_compose(stamp, request(&n.to_string()), compose).expect("fill");
        }
        assert_eq!(answers.lock().answers.len(), KEPT);
        answers.get_or_compose(stamp, request(&KEPT.to_string()), compose).expect("newest");
        assert_eq!(composed.get(), KEPT + 1, "the newest is kept");
        answers.get_or_compose(stamp, request("0"), compose).expect("oldest");
        assert_eq!(composed.get(), KEPT + 2, "the oldest went first");
    }
}
