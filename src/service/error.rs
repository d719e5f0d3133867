//! What can go wrong between a front end and the store, as types, and what
//! each kind of failure means to the caller.
//!
//! [`ErrorKind`] is the one place a failure becomes an HTTP status or a
//! JSON-RPC error code: adapters ask the error for its kind and never decide
//! a status themselves, so a caller's mistake (a bad reference, a malformed
//! act, a stale version) is a 4xx wherever it arrives, and only the store's
//! own trouble is a 5xx.

pub use crate::error_kind::ErrorKind;
use m1nd_policy::Verb;
use m1nd_policy::guard::{Guard, Refused};
use m1nd_policy::runtime::CockpitError;

use super::arguments::ArgumentError;
use super::dispatch;
use crate::store::StoreError;
use crate::store::tray::ActRefused;

/// Why the service could not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The guard refused the call, before anything else looked at it.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// A verb the table knows that this server does not implement.
    #[error("`{verb}` is a known verb, but this server does not implement it; it serves {served}")]
    NotServed { verb: String, served: String },
    /// The call's arguments are not what the verb takes.
    #[error(transparent)]
    Arguments(#[from] ArgumentError),
    /// The cockpit cannot answer this reference.
    #[error("cockpit: {0}")]
    Cockpit(#[from] CockpitError),
    /// A read verb failed.
    #[error("{verb}: {source}")]
    Read { verb: &'static str, source: StoreError },
    /// A write was refused and changed nothing.
    #[error("`{verb}` changed nothing: {source}")]
    Write { verb: &'static str, source: StoreError },
    /// The store could not be opened or read.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A tray act was refused; nothing was written.
    #[error(transparent)]
    Act(#[from] ActRefused),
    /// A thread of the store could not be started.
    #[error("cannot start the store's threads: {0}")]
    Thread(std::io::Error),
    /// A queue is full (or closed): the call was not run.
    #[error(transparent)]
    Queue(#[from] super::fair::QueueFull),
    /// The store's threads have stopped (the server is going down).
    #[error("the call could not be run: the server's store threads have stopped")]
    Stopped,
    /// A thread of the store dropped the job without an answer.
    #[error("the call failed before it was answered; nothing is known to have changed")]
    Dropped,
}

impl ServiceError {
    /// What this failure means to the caller.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ServiceError::Refused(_) => ErrorKind::Forbidden,
            ServiceError::NotServed { .. } => ErrorKind::NotFound,
            ServiceError::Arguments(_) | ServiceError::Cockpit(_) => ErrorKind::Invalid,
            ServiceError::Read { source, .. } | ServiceError::Write { source, .. } | ServiceError::Store(source) => {
                store_kind(source)
            }
            ServiceError::Act(refused) => act_kind(refused),
            ServiceError::Thread(_) | ServiceError::Stopped | ServiceError::Dropped => ErrorKind::Unavailable,
            ServiceError::Queue(_) => ErrorKind::Busy,
        }
    }

    /// The failure's code on an audit line: the guard's own
    /// ([`Refused::code`]), the served-verb and argument checks' (argument
    /// codes spelt as the gateway's), and for anything that failed after the
    /// call was let through, its [`ErrorKind`]'s key.
    pub fn code(&self) -> &'static str {
        match self {
            ServiceError::Refused(refused) => refused.code(),
            ServiceError::NotServed { .. } => "not-served",
            ServiceError::Arguments(ArgumentError::Unknown { .. }) => "undeclared-argument",
            ServiceError::Arguments(ArgumentError::Untyped { .. }) => "untyped-argument",
            ServiceError::Arguments(ArgumentError::Value { .. }) => "argument-value",
            ServiceError::Arguments(ArgumentError::Missing { .. }) => "missing-argument",
            ServiceError::Arguments(ArgumentError::NoSet { .. }) => "argument-set",
            ServiceError::Arguments(ArgumentError::Untypable { .. }) => "untypable-arguments",
            _ => self.kind().key(),
        }
    }

    /// Whether this failure's text may echo an argument's value (a wrong
    /// value, a reference the cockpit cannot follow, a version the store is
    /// not at), so that an audit trail that omits values omits the text too.
    /// Unsure is yes.
    pub fn echoes_a_value(&self) -> bool {
        match self {
            ServiceError::Refused(refused) => refused.echoes_a_value(),
            ServiceError::NotServed { .. }
            | ServiceError::Arguments(
                ArgumentError::Unknown { .. }
                | ArgumentError::Untyped { .. }
                | ArgumentError::Missing { .. }
                | ArgumentError::Untypable { .. },
            )
            | ServiceError::Queue(_)
            | ServiceError::Thread(_)
            | ServiceError::Stopped
            | ServiceError::Dropped => false,
            ServiceError::Arguments(ArgumentError::Value { .. } | ArgumentError::NoSet { .. })
            | ServiceError::Cockpit(_)
            | ServiceError::Read { .. }
            | ServiceError::Write { .. }
            | ServiceError::Store(_)
            | ServiceError::Act(_) => true,
        }
    }

    /// A verb the table knows that [`dispatch`] does not serve, naming what it does.
    pub(super) fn not_served(verb: &Verb, guard: &Guard<'_>) -> Self {
        let served: Vec<&str> = dispatch::served_verbs().filter(|v| guard.shows(v)).map(|v| &*v.name).collect();
        ServiceError::NotServed { verb: verb.name.to_string(), served: served.join(", ") }
    }
}

fn store_kind(e: &StoreError) -> ErrorKind {
    match e {
        StoreError::BadArgument(_) | StoreError::ImportMissing { .. } => ErrorKind::Invalid,
        StoreError::Conflict { .. } | StoreError::AlreadyExists { .. } => ErrorKind::Conflict,
        StoreError::Full { .. } | StoreError::DatabaseFull { .. } => ErrorKind::Full,
        StoreError::NotFound { .. }
        | StoreError::Busy { .. }
        | StoreError::Moved { .. }
        | StoreError::HotJournal { .. }
        | StoreError::Io { .. }
        | StoreError::Sql { .. }
        | StoreError::Interrupted
        | StoreError::Unavailable { .. }
        | StoreError::OutcomeUnknown { .. }
        | StoreError::NotOnPostgres { .. }
        | StoreError::Stopped => ErrorKind::Unavailable,
        StoreError::Corrupt { .. } | StoreError::NotRegular { .. } => ErrorKind::Internal,
    }
}

fn act_kind(refused: &ActRefused) -> ErrorKind {
    match refused {
        ActRefused::Unknown { .. } => ErrorKind::NotFound,
        ActRefused::NotWaiting { .. } | ActRefused::StateMoved { .. } => ErrorKind::Conflict,
        ActRefused::FutureVersion { .. } | ActRefused::VersionZero => ErrorKind::Invalid,
        ActRefused::Store(e) => store_kind(e),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use m1nd_policy::runtime::{self, Request};

    use super::*;
    use crate::store::tray::Act;

    #[test]
    fn a_callers_mistake_is_never_a_server_error() {
        let table = m1nd_policy::runtime::MemoryReader::default();
        let bad_select = runtime::cockpit(
            &crate::COCKPIT,
            &table,
            &Request { select: Some("9.9.9.9".into()), seen_store_version: None },
        )
        .expect_err("four numbers");
        let callers: Vec<ServiceError> = vec![
            ServiceError::Cockpit(bad_select),
            ServiceError::Arguments(ArgumentError::Missing { verb: "memorize".into(), name: "claim".into() }),
            ServiceError::Act(ActRefused::VersionZero),
            ServiceError::Act(ActRefused::FutureVersion { seen: 9, actual: 3 }),
            ServiceError::Act(ActRefused::StateMoved { act: Act::Stamp, now: "0".repeat(64) }),
            ServiceError::Act(ActRefused::Unknown { act: Act::Ratify }),
            ServiceError::Write { verb: "memorize", source: StoreError::Conflict { expected: 1, actual: 2 } },
            ServiceError::Write { verb: "memorize", source: StoreError::BadArgument("empty claim".into()) },
        ];
        for e in callers {
            let status = e.kind().http_status();
            assert!((400..500).contains(&status), "{e} is the caller's mistake but answers {status}");
        }
        let path = PathBuf::from("/tmp/s/state.db");
        let servers: Vec<ServiceError> = vec![
            ServiceError::Store(StoreError::Busy { path: path.clone() }),
            ServiceError::Store(StoreError::NotFound { path: path.clone() }),
            ServiceError::Act(ActRefused::Store(StoreError::Moved { path: path.clone() })),
            ServiceError::Write {
                verb: "persist",
                source: StoreError::Full { path: path.clone(), why: crate::store::Room::measure(&path, 1).no_room() },
            },
            ServiceError::Stopped,
        ];
        for e in servers {
            assert!(e.kind().http_status() >= 500, "{e}");
        }
    }

    #[test]
    fn messages_keep_their_words() {
        let e = ServiceError::Write { verb: "memorize", source: StoreError::Conflict { expected: 3, actual: 4 } };
        assert_eq!(
            e.to_string(),
            "`memorize` changed nothing: state moved: expected store_version 3, the store is at 4; re-read and retry"
        );
        let refused = Guard::new(&crate::COCKPIT, true).check("learn", None).expect_err("denied");
        assert_eq!(ServiceError::from(refused.clone()).to_string(), refused.to_string());
    }
}
