//! What every downstream session of one gateway shares: the policy, the
//! upstream's connection, and the current view of what it offers; and the
//! check of a `tools/call` against them before it is forwarded.
//!
//! # Re-listing
//!
//! The view is rebuilt from a fresh `tools/list` of the upstream whenever a
//! client lists tools (before it is answered), whenever the upstream sends
//! `tools/list_changed`, and at least every `recheck` interval. So a
//! definition the upstream changes *without* saying so is hidden and refused
//! from the first re-list that sees it: the window in which calls still reach
//! the changed tool is at most the recheck interval, or until the next
//! listing, whichever comes first. Re-lists run one at a time and never on
//! the call path: a call reads the current view (an `Arc` swapped in when a
//! re-list is done) and holds no lock across the upstream round-trip, so a
//! re-list never delays a call.

use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use m1nd_policy::SessionMode;
use m1nd_policy::gateway::surfaces::{Kind, Listed, SurfaceView};
use m1nd_policy::gateway::{self, Gateway, View};
use m1nd_policy::guard::Guard;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ProgressToken, ResultType, Tool};
use rmcp::{Peer, RoleClient, RoleServer};

use super::audit::{self, Audit, Decision, Gate, Unrecorded};
use super::call_upstream::call_upstream;
use super::callers::Callers;
use super::declared::Declared;
use super::neutralise;
use super::progress::ProgressRoutes;
use super::shadow::Shadow;
use super::subscriptions::Subscriptions;
use super::upstream::{LIST_BOUNDS, Wanted, list, list_surfaces};

/// How a gateway session is set up.
#[derive(Clone, Debug)]
pub struct Options {
    /// The command line asked for read-only (`--read-only`, M1ND_READ_ONLY):
    /// hide and refuse every tool the deny list names, whatever the policy's
    /// mode. It cannot make a read-only policy read-write.
    pub read_only: bool,
    /// How long one forwarded call may take.
    pub call_timeout: Duration,
    /// List the upstream again at least this often (`None`: only when a
    /// client lists tools or the upstream says they changed).
    pub recheck: Option<Duration>,
    /// Append one line per decision here (`--audit`); see audit.rs.
    pub audit: Option<Arc<Audit>>,
    /// A candidate policy checked beside the enforced one, never obeyed
    /// (`--shadow`): its differing decisions go to `audit`; see shadow.rs.
    pub shadow: Option<&'static Gateway>,
    /// Behind a fleet: this upstream's name in `fleet.toml`, named on every
    /// audit line its policy decides.
    pub member: Option<String>,
}

/// How often the upstream is listed again when nothing else asks for it.
///
/// A re-list costs one `tools/list` round-trip in the background (see
/// docs/benchmarks.md) and never delays a call, so the interval can be
/// short; it bounds how long a definition changed without `list_changed` can
/// still be called. Ten seconds keeps that window shorter than a typical
/// agent's turn, at six listings a minute, which a rate-limited hosted
/// upstream also tolerates.
pub const DEFAULT_RECHECK: Duration = Duration::from_secs(10);

impl Default for Options {
    fn default() -> Self {
        Self {
            read_only: false,
            call_timeout: Duration::from_secs(30),
            recheck: Some(DEFAULT_RECHECK),
            audit: None,
            shadow: None,
            member: None,
        }
    }
}

/// The current view and the tools it offers as a session lists them, built
/// once per listing that differs from the last.
#[derive(Default)]
pub(super) struct Served {
    /// The upstream's listing the view was built from: a re-list that finds
    /// it unchanged keeps this view instead of checking every tool again.
    pub(super) listed: Vec<serde_json::Value>,
    pub(super) view: View,
    pub(super) tools: Vec<ServedTool>,
    /// The same for prompts, resources and templates.
    pub(super) listed_surfaces: Listed,
    pub(super) surfaces: SurfaceView,
    /// The shadow policy's view of the same listing (empty without one).
    pub(super) shadow: View,
}

/// One tool a session lists, read once from the view's offered JSON.
pub(super) struct ServedTool {
    /// rmcp's value, for rmcp's own paths (`get_tool`, a `tools/list`
    /// answered by the bare [`super::GatewayServer`]).
    pub(super) tool: Tool,
    /// The view's JSON it was read from, which keeps what rmcp's `Tool`
    /// drops (`execution`): what `tools/list` answers (see listing.rs).
    pub(super) json: serde_json::Value,
}

/// What the two sides share.
pub(super) struct State {
    pub(super) gateway: &'static Gateway,
    pub(super) guard: Guard<'static>,
    /// The session's mode: the policy's, made read-only by the command line.
    pub(super) mode: SessionMode,
    /// The policy's digest, as `m1nd policy digest` prints it: attested.
    pub(super) digest: String,
    pub(super) shadow: Option<Shadow>,
    pub(super) options: Options,
    pub(super) view: RwLock<Arc<Served>>,
    pub(super) upstream: Mutex<Option<Peer<RoleClient>>>,
    /// What the upstream's listings declare that rmcp's `Tool` drops.
    pub(super) declared: Arc<Declared>,
    /// Where the upstream's progress notifications go: each to the client
    /// whose call is in flight under its token.
    pub(super) progress: Arc<ProgressRoutes>,
    /// The client of each call in flight: where the upstream's requests to
    /// a client are relayed (see `callers.rs`).
    pub(super) callers: Arc<Callers>,
    /// Held by the one re-list in flight, so an older listing never replaces
    /// a newer view. Never taken on the call path.
    pub(super) relisting: tokio::sync::Mutex<()>,
    /// Every downstream session that may want `tools/list_changed`.
    pub(super) downstream: Mutex<Vec<Peer<RoleServer>>>,
    /// Which downstream sessions subscribed to which resource.
    pub(super) subscriptions: Subscriptions,
}

impl State {
    pub(super) fn new(gateway: &'static Gateway, options: Options) -> Self {
        let mode = gateway.mode.with_command_line(options.read_only);
        Self {
            gateway,
            guard: Guard::for_gateway(gateway, mode.is_read_only()),
            mode,
            digest: m1nd_policy::policy::gateway_digest(gateway),
            shadow: options.shadow.map(|shadow| Shadow::new(shadow, options.read_only)),
            options,
            view: RwLock::new(Arc::new(Served::default())),
            upstream: Mutex::new(None),
            declared: Arc::new(Declared::new(LIST_BOUNDS.tools)),
            progress: Arc::default(),
            callers: Arc::default(),
            relisting: tokio::sync::Mutex::new(()),
            downstream: Mutex::new(Vec::new()),
            subscriptions: Subscriptions::default(),
        }
    }

    pub(super) fn served(&self) -> Arc<Served> {
        self.view.read().map(|v| Arc::clone(&v)).unwrap_or_default()
    }

    /// List the upstream's tools again and re-check every one. Says on
    /// stderr what is hidden and why; tells the downstream client only when
    /// the tools it may see changed.
    pub(super) async fn refresh(&self, peer: &Peer<RoleClient>) -> bool {
        let _one_at_a_time = self.relisting.lock().await;
        let timeout = self.options.call_timeout;
        let listed = list(peer, &self.declared, timeout).await;
        let listed_surfaces = list_surfaces(peer, Wanted::declared_by(self.gateway), timeout).await;
        let (listed, listed_surfaces) = match (listed, listed_surfaces) {
            (Ok(listed), Ok(surfaces)) => (listed, surfaces),
            (Err(e), _) | (_, Err(e)) => {
                tracing::warn!("{e}; keeping the last checked list");
                return false;
            }
        };
        let old = self.served();
        if old.listed == listed && old.listed_surfaces == listed_surfaces {
            return true;
        }
        let fresh = View::new(self.gateway, &self.guard, &listed);
        let surfaces = SurfaceView::new(self.gateway, &listed_surfaces);
        for hidden in fresh.hidden().iter().filter(|h| !old.view.hidden().contains(h)) {
            tracing::warn!("{hidden}");
        }
        for hidden in surfaces.hidden().iter().filter(|h| !old.surfaces.hidden().contains(h)) {
            tracing::warn!("{hidden}");
        }
        let tools_changed = fresh.offered() != old.view.offered();
        let changed = |kind| surfaces.served(kind) != old.surfaces.served(kind);
        let prompts_changed = changed(Kind::Prompt);
        let resources_changed = changed(Kind::Resource) || changed(Kind::Template);
        let tools = fresh
            .offered()
            .iter()
            .filter_map(|o| {
                let mut json = o.tool.clone();
                neutralise::listed(&format!("tool `{}`", o.verb), &mut json);
                Some(ServedTool { tool: serde_json::from_value(json.clone()).ok()?, json })
            })
            .collect();
        let shadow = self.shadow.as_ref().map(|s| s.view(&listed)).unwrap_or_default();
        if let Ok(mut view) = self.view.write() {
            *view = Arc::new(Served { listed, view: fresh, tools, listed_surfaces, surfaces, shadow });
        }
        if tools_changed || prompts_changed || resources_changed {
            let peers = self.downstream.lock().map(|d| d.clone()).unwrap_or_default();
            for peer in peers.iter().filter(|p| !p.is_transport_closed()) {
                if tools_changed {
                    let _ = peer.notify_tool_list_changed().await;
                }
                if prompts_changed {
                    let _ = peer.notify_prompt_list_changed().await;
                }
                if resources_changed {
                    let _ = peer.notify_resource_list_changed().await;
                }
            }
            // A session whose transport closed has ended: forget it.
            if let Ok(mut d) = self.downstream.lock() {
                d.retain(|p| !p.is_transport_closed());
            }
        }
        true
    }

    /// Re-list through the connected upstream, if there is one.
    pub(super) async fn relist(&self) {
        let peer = self.upstream.lock().ok().and_then(|u| u.clone());
        if let Some(peer) = peer {
            self.refresh(&peer).await;
        }
    }

    /// Check and forward one call. `spelled` is the name as the client wrote
    /// it, for the audit trail: `request.name` itself, or behind a fleet, the
    /// prefixed name the fleet resolved to `request.name`.
    /// Decide a call and, if allowed, forward it. `client` made it: while
    /// it is in flight, the upstream's requests to a client may go to it
    /// (see `callers.rs`). `asker` is the progress token its request
    /// carried, if any: the upstream's progress on this call goes back to
    /// it (see `progress.rs`).
    pub(super) async fn call(
        &self,
        request: CallToolRequestParams,
        session: &str,
        spelled: &str,
        client: Peer<RoleServer>,
        asker: Option<ProgressToken>,
    ) -> CallToolResult {
        let served = self.served();
        let checked =
            gateway::check(self.gateway, &self.guard, &served.view, &request.name, request.arguments.as_ref());
        let audit = self.options.audit.as_deref();
        let arguments = audit.and_then(|a| a.arguments(request.arguments.as_ref()));
        let line = |decision| audit::Record {
            arguments: arguments.clone(),
            own: audit::Upstream { upstream: self.options.member.as_deref(), ..Default::default() },
            ..audit::Record::new(session, spelled, decision, &self.digest)
        };
        // The shadow policy only watches: a decision of its that differs is recorded, never obeyed.
        if let Some(shadow) = &self.shadow {
            let call = (&*request.name, request.arguments.as_ref());
            if let Err(told) = shadow.watch(audit, line(Decision::Shadow), &served.shadow, call, &checked) {
                return error(told.to_string());
            }
        }
        let forward = match checked {
            Ok(forward) => forward,
            Err(refused) => {
                return refuse(audit, line(Decision::Refused), audit::code(&refused), refused.to_string());
            }
        };
        let definition = served.view.offered().iter().find(|o| o.upstream == forward.upstream).map(|o| &*o.definition);
        let resolved = |decision| line(decision).resolved(&forward.verb, &forward.upstream, definition);
        let Some(peer) = self.upstream.lock().ok().and_then(|u| u.clone()) else {
            let told = "the upstream is not connected".to_owned();
            return refuse(audit, resolved(Decision::Refused), "not-connected", told);
        };
        // Fail closed: a call is forwarded only once its decision is recorded.
        if let Some(audit) = audit
            && let Err(e) = audit.write(&resolved(Decision::Forwarded))
        {
            let what = format!("`{}`", forward.verb);
            return error(Unrecorded::Before { what, gate: Gate::Forward, error: e }.to_string());
        }
        let params = CallToolRequestParams::new(forward.upstream.clone()).with_arguments(forward.arguments.clone());
        let timeout = self.options.call_timeout;
        let started = std::time::Instant::now();
        let asker = asker.map(|asked| (client.clone(), asked));
        let in_flight = self.callers.enter(client);
        let answered = call_upstream(&self.progress, &peer, params, asker, timeout).await;
        drop(in_flight);
        let latency_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
        let result = match answered {
            // An upstream of an older protocol leaves `resultType` out; a
            // 2026-07-28 client needs it, and the call did complete.
            Ok(Ok(mut result)) => {
                result.result_type = Some(ResultType::COMPLETE);
                neutralise::answer("tools/call", result).unwrap_or_else(|e| error(e.message))
            }
            Ok(Err(e)) => error(neutralise::text(&format!("`{}`: the upstream did not answer: {e}", forward.verb))),
            Err(_) => error(format!(
                "`{}`: the upstream did not answer within {} s; the call may or may not have run there",
                forward.verb,
                timeout.as_secs()
            )),
        };
        if let Some(audit) = audit {
            let line = audit::Record {
                latency_ms,
                is_error: Some(result.is_error == Some(true)),
                ..resolved(Decision::Answered)
            };
            if let Err(e) = audit.write(&line) {
                let what = format!("`{}`", forward.verb);
                return error(Unrecorded::Answer { what, gate: Gate::Forward, error: e }.to_string());
            }
        }
        result
    }
}

/// Refuse with `told`, once the refusal is in the audit trail (if there is one).
fn refuse(audit: Option<&Audit>, line: audit::Record<'_>, code: &'static str, told: String) -> CallToolResult {
    if let Some(audit) = audit {
        let line = audit::Record { code: Some(code), reason: Some(told.clone()), ..line };
        if let Err(e) = audit.write(&line) {
            return error(Unrecorded::Refusal { told, error: e }.to_string());
        }
    }
    error(told)
}

fn error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.into())])
}
