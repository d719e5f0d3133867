//! A forwarded call's progress, back to the one client that asked for it.
//!
//! One upstream connection serves every session, and each client picks its
//! own progress tokens, so two clients may pick the same one. A client's
//! token is therefore never sent upstream: rmcp gives every request it sends
//! a token of its own, unique on the connection. The promises:
//!
//! 1. A call whose request carries a progress token is forwarded by
//!    `call_upstream.rs`, which records where the progress on
//!    rmcp's token goes as soon as the request is queued, in a [`Ticket`]
//!    that lives as long as the call. (Progress the upstream sends before
//!    that, in the instant between queueing and recording, is dropped.)
//! 2. A `notifications/progress` from the upstream reaches the client whose
//!    call holds its token, carrying that client's own token, always going
//!    forward, and before the call's answer. rmcp hands each notification to
//!    a task of its own, and on a runtime of several threads two of them may
//!    run in either order: one that does not go past the progress already
//!    passed on is dropped, so the client never sees progress go back (MCP
//!    requires it to increase). And the progress the upstream sent just
//!    before answering may still be on its way when the answer arrives: the
//!    answer waits until no progress has come for [`QUIET`] (at most
//!    [`SETTLE`]) and what came has been sent (at most [`DRAIN`]; what is
//!    left then is dropped, never sent after the answer).
//! 3. A token no call in flight holds (a late, a made up or another
//!    session's) reaches no one.
//! 4. Memory and work are bounded: at most [`MAX_ROUTES`] calls have
//!    progress routed at once (a call past that is still forwarded; its
//!    progress reaches no one), and at most [`QUEUED`] notifications wait
//!    per call; beyond that they are dropped, as progress only says how far
//!    along a call is, and the next one says it again. A slow client never
//!    slows the upstream connection's other notifications.
//!
//! Logging notifications are not forwarded: a log level is set per session,
//! and one upstream connection cannot honour several.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

/// The most calls in flight whose progress is routed at once.
pub(super) const MAX_ROUTES: usize = 1024;

/// The most progress notifications waiting to reach one client.
pub(super) const QUEUED: usize = 16;

/// How long an answer waits for progress still on its way.
pub(super) const QUIET: Duration = Duration::from_millis(5);

/// The longest an answer waits for progress still on its way, however much comes.
pub(super) const SETTLE: Duration = Duration::from_millis(50);

/// The longest an answer waits for its call's progress to be sent to the client.
pub(super) const DRAIN: Duration = Duration::from_secs(1);

/// Where the progress of each call in flight goes, by the token rmcp sent.
#[derive(Debug, Default)]
pub(super) struct ProgressRoutes {
    routes: Mutex<HashMap<ProgressToken, Route>>,
}

#[derive(Debug)]
struct Route {
    queue: mpsc::Sender<ProgressNotificationParam>,
    /// Woken by each notification routed here.
    arrived: Arc<Notify>,
    /// The progress last passed on: a notification that does not go past
    /// it is dropped (see promise 2).
    last: Option<f64>,
}

/// One call's route; dropping it closes the route, [`Ticket::settle`]
/// closes it once the progress sent before the answer has been sent on.
#[derive(Debug)]
pub(super) struct Ticket {
    routes: Arc<ProgressRoutes>,
    token: ProgressToken,
    arrived: Arc<Notify>,
    sender: Option<JoinHandle<()>>,
}

impl ProgressRoutes {
    /// Route the progress sent under `sent` to `client`, under the `asked`
    /// token it chose; `None` when [`MAX_ROUTES`] calls already have one.
    pub(super) fn open(
        self: &Arc<Self>,
        client: Peer<RoleServer>,
        asked: ProgressToken,
        sent: ProgressToken,
    ) -> Option<Ticket> {
        self.open_to(asked, sent, move |progress| {
            let client = client.clone();
            async move { client.notify_progress(progress).await.is_ok() }
        })
    }

    /// [`Self::open`], with `deliver` sending each notification (false: the
    /// client is gone, stop).
    fn open_to<F, Fut>(self: &Arc<Self>, asked: ProgressToken, sent: ProgressToken, mut deliver: F) -> Option<Ticket>
    where
        F: FnMut(ProgressNotificationParam) -> Fut + Send + 'static,
        Fut: Future<Output = bool> + Send,
    {
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        if routes.len() >= MAX_ROUTES || routes.contains_key(&sent) {
            return None;
        }
        let (queue, mut waiting) = mpsc::channel::<ProgressNotificationParam>(QUEUED);
        // One sender per call keeps the upstream's order; it ends when the
        // route closes and what was queued has been sent.
        let sender = tokio::spawn(async move {
            while let Some(mut progress) = waiting.recv().await {
                progress.progress_token = asked.clone();
                if !deliver(progress).await {
                    break;
                }
            }
        });
        let arrived = Arc::new(Notify::new());
        routes.insert(sent.clone(), Route { queue, arrived: Arc::clone(&arrived), last: None });
        Some(Ticket { routes: Arc::clone(self), token: sent, arrived, sender: Some(sender) })
    }

    /// Pass the upstream's `progress` on to the call that holds its token.
    pub(super) fn forward(&self, progress: ProgressNotificationParam) {
        let mut routes = self.routes.lock().unwrap_or_else(|p| p.into_inner());
        let Some(route) = routes.get_mut(&progress.progress_token) else {
            return;
        };
        route.arrived.notify_one();
        if route.last.is_some_and(|last| progress.progress <= last) {
            return;
        }
        route.last = Some(progress.progress);
        let _ = route.queue.try_send(shown(progress));
    }

    /// How many calls have progress routed now.
    #[cfg(test)]
    fn open_routes(&self) -> usize {
        self.routes.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// The upstream's `progress` as its client gets it: the upstream's words
/// escaped like every answer of its (see neutralise.rs), all else as sent.
pub(crate) fn shown(mut progress: ProgressNotificationParam) -> ProgressNotificationParam {
    progress.message = progress.message.map(|m| super::neutralise::text(&m));
    progress
}

impl Ticket {
    /// Wait for the progress the upstream sent before its answer (see the
    /// module's promise 2), close the route, and wait until what came has
    /// been sent to the client.
    pub(super) async fn settle(mut self) {
        let _ = tokio::time::timeout(SETTLE, async {
            while tokio::time::timeout(QUIET, self.arrived.notified()).await.is_ok() {}
        })
        .await;
        self.close();
        if let Some(mut sender) = self.sender.take()
            && tokio::time::timeout(DRAIN, &mut sender).await.is_err()
        {
            // Progress sent after the answer would only mislead: stop.
            sender.abort();
        }
    }

    fn close(&self) {
        self.routes.routes.lock().unwrap_or_else(|p| p.into_inner()).remove(&self.token);
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests;
