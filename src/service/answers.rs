//! The cockpit's answers for the state being served, kept while it lasts,
//! and handed out without a trip to a reader while it does.
//!
//! The composer is pure: a view is a function of the table (fixed when this
//! binary was built), the store as read and the request, and the text and
//! JSON skins are functions of the view. So while the store is the same
//! file with no commit since (its [`Mark`]), the same request gets the same
//! answer, and it is kept rather than composed, rendered and serialised
//! again. Any commit, by any process, changes the mark, which drops every
//! kept answer. Only successful answers are kept, at most [`KEPT`]; the
//! oldest goes first.
//!
//! A reader keeps an answer under the mark it read *inside* its read
//! transaction, when no commit can be under way. A caller compares that with
//! the mark of the file now ([`crate::store::Probe`]): two system calls
//! instead of a hop to a reader thread and back.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use m1nd_policy::runtime::Request;

use super::answer::Answer;
use crate::store::Mark;

/// The most answers kept for one state.
pub const KEPT: usize = 16;

/// Shared by the readers (which keep answers) and callers (which look).
#[derive(Default)]
pub struct Answers(Mutex<Kept>);

#[derive(Default)]
struct Kept {
    /// The state every kept answer was composed from.
    of: Option<Mark>,
    kept: VecDeque<(Request, Answer)>,
}

impl Answers {
    fn lock(&self) -> MutexGuard<'_, Kept> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The answer kept for `request` over the state `mark` names, if any.
    pub fn get(&self, mark: Mark, request: &Request) -> Option<Answer> {
        let kept = self.lock();
        if kept.of != Some(mark) {
            return None;
        }
        kept.kept.iter().find(|(asked, _)| asked == request).map(|(_, answer)| answer.clone())
    }

    /// The answer to `request` over the state `mark` names: the kept one, or
    /// `compose`'s, kept from now on. Composed without the lock held.
    pub fn get_or_compose<E>(
        &self,
        mark: Option<Mark>,
        request: Request,
        compose: impl FnOnce(&Request) -> Result<Answer, E>,
    ) -> Result<Answer, E> {
        if let Some(answer) = mark.and_then(|mark| self.get(mark, &request)) {
            return Ok(answer);
        }
        let answer = compose(&request)?;
        // Without a mark the state cannot be named, so nothing is kept.
        let Some(mark) = mark else { return Ok(answer) };
        let mut kept = self.lock();
        if kept.of != Some(mark) {
            kept.of = Some(mark);
            kept.kept.clear();
        }
        if !kept.kept.iter().any(|(asked, _)| *asked == request) {
            if kept.kept.len() >= KEPT {
                kept.kept.pop_front();
            }
            kept.kept.push_back((request, answer.clone()));
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::store::{Probe, Store};

    fn request(select: &str) -> Request {
        Request { select: Some(select.to_owned()), seen_store_version: None }
    }

    fn text(answer: &Answer) -> String {
        answer.result().content[0].as_text().map(|t| t.text.clone()).unwrap_or_default()
    }

    #[test]
    fn kept_per_request_and_dropped_when_the_state_moves() {
        let dir = tempfile::Builder::new().prefix("m1nd-answers-").tempdir().expect("dir");
        let mut store = Store::init(dir.path(), true).expect("init");
        let probe = Probe::new(&dir.path().into());
        let first = probe.mark();
        assert!(first.is_some());
        let answers = Answers::default();
        let composed = Cell::new(0);
        let compose = |request: &Request| {
            composed.set(composed.get() + 1);
            Ok::<_, ()>(Answer::text_and_value(format!("{request:?} #{}", composed.get()), serde_json::Value::Null))
        };
        let a = answers.get_or_compose(first, request("1"), compose).expect("a");
        let again = answers.get_or_compose(first, request("1"), compose).expect("again");
        assert_eq!((text(&a), composed.get()), (text(&again), 1));
        assert!(again.same(&a), "a kept answer is shared, not copied");
        assert!(answers.get(first.expect("mark"), &request("1")).is_some_and(|k| k.same(&a)));
        answers.get_or_compose(first, request("2"), compose).expect("b");
        assert_eq!(composed.get(), 2, "another request is composed");
        let seen = Request { seen_store_version: Some(1), ..request("1") };
        answers.get_or_compose(first, seen, compose).expect("seen");
        assert_eq!(composed.get(), 3, "seen_store_version is part of the request");

        store.memorize("moves the state", "test", None, None).expect("write");
        let second = probe.mark();
        assert_ne!(second, first);
        assert!(answers.get(second.expect("mark"), &request("1")).is_none());
        let moved = answers.get_or_compose(second, request("1"), compose).expect("moved");
        assert_eq!(composed.get(), 4);
        assert_ne!(text(&moved), text(&a));
        answers.get_or_compose(first, request("2"), compose).expect("old state");
        assert_eq!(composed.get(), 5, "answers of a replaced state are gone");
        answers.get_or_compose(None, request("2"), compose).expect("no mark");
        answers.get_or_compose(None, request("2"), compose).expect("no mark");
        assert_eq!(composed.get(), 7, "without a mark nothing is kept");
    }

    #[test]
    fn errors_are_not_kept_and_at_most_kept_answers_are() {
        let dir = tempfile::Builder::new().prefix("m1nd-answers-").tempdir().expect("dir");
        Store::init(dir.path(), true).expect("init");
        let mark = Probe::new(&dir.path().into()).mark();
        let answers = Answers::default();
        let composed = Cell::new(0);
        let failing = |_: &Request| {
            composed.set(composed.get() + 1);
            Err("no".to_owned())
        };
        for _ in 0..2 {
            assert!(answers.get_or_compose(mark, request("9"), failing).is_err());
        }
        assert_eq!(composed.get(), 2);

        let compose = |_: &Request| {
            composed.set(composed.get() + 1);
            Ok::<_, String>(Answer::text_and_value("x".into(), serde_json::Value::Null))
        };
        composed.set(0);
        for n in 0..=KEPT {
            answers.get_or_compose(mark, request(&n.to_string()), compose).expect("fill");
        }
        assert_eq!(answers.lock().kept.len(), KEPT);
        answers.get_or_compose(mark, request(&KEPT.to_string()), compose).expect("newest");
        assert_eq!(composed.get(), KEPT + 1, "the newest is kept");
        answers.get_or_compose(mark, request("0"), compose).expect("oldest");
        assert_eq!(composed.get(), KEPT + 2, "the oldest went first");
    }
}
