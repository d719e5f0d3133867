//! What every clone of one guarded server shares: the policy, the session's
//! mode and guard, and the latest view of what the inner handler offers.
//!
//! The view is rebuilt from a fresh listing of the inner handler whenever a
//! client lists tools *and before every call*: in process a listing costs no
//! round trip, so, unlike the gateway's (which re-lists on a timer), the
//! view a call is checked against is never older than the call. A listing
//! equal to the last one keeps its view instead of checking every tool again.
//! The latest view also answers what needs no request (`get_tool`, the
//! attested definitions digest in `get_info`); before any listing it is the
//! view of the tools the guard was built with.

use std::sync::{Arc, Mutex};

use m1nd_policy::SessionMode;
use m1nd_policy::gateway::surfaces::{Listed, SurfaceView};
use m1nd_policy::gateway::{self, Gateway, View};
use m1nd_policy::guard::Guard;
use rmcp::model::{PaginatedRequestParams, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use crate::neutralise;

/// How far one listing of the inner handler may go, as the gateway bounds
/// an upstream's: pages followed, and items kept.
pub(crate) const MAX_PAGES: usize = 100;
pub(crate) const MAX_ITEMS: usize = 10_000;

/// One view of the inner handler's tools, and what a session lists of it.
pub(crate) struct Served {
    /// The listing the view was built from.
    listed: Vec<Value>,
    pub(crate) view: View,
    /// The offered tools, escaped, as rmcp values.
    pub(crate) tools: Vec<Tool>,
}

/// The shared state of one guarded server.
pub(crate) struct State {
    pub(crate) gateway: &'static Gateway,
    pub(crate) guard: Guard<'static>,
    pub(crate) mode: SessionMode,
    /// Whoever built the guard asked for read-only (as `--read-only` does for the gateway).
    pub(crate) asked_read_only: bool,
    /// The policy's digest, as `m1nd policy digest DIR` prints it: attested.
    pub(crate) digest: String,
    /// The listing the guard was built with, its first view's.
    pub(crate) first: Vec<Value>,
    tools: Mutex<Arc<Served>>,
    surfaces: Mutex<Arc<(Listed, SurfaceView)>>,
}

impl State {
    /// The state of a session of `gateway`, its view first built from `listed`.
    pub(crate) fn new(gateway: &'static Gateway, asked_read_only: bool, listed: Vec<Value>) -> Self {
        let mode = gateway.mode.with_command_line(asked_read_only);
        let guard = Guard::for_gateway(gateway, mode.is_read_only());
        let first = Served::new(gateway, &guard, listed.clone(), &View::default());
        Self {
            gateway,
            guard,
            mode,
            asked_read_only,
            digest: m1nd_policy::policy::gateway_digest(gateway),
            first: listed,
            tools: Mutex::new(Arc::new(first)),
            surfaces: Mutex::default(),
        }
    }

    /// The latest view of the tools.
    pub(crate) fn served(&self) -> Arc<Served> {
        self.tools.lock().map(|s| Arc::clone(&s)).unwrap_or_else(|poisoned| Arc::clone(&poisoned.into_inner()))
    }

    /// The view of `listed`: the latest one if the listing is unchanged,
    /// else a new one, which becomes the latest.
    pub(crate) fn view_of(&self, listed: Vec<Value>) -> Arc<Served> {
        let old = self.served();
        if old.listed == listed {
            return old;
        }
        let fresh = Arc::new(Served::new(self.gateway, &self.guard, listed, &old.view));
        let mut latest = self.tools.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *latest = Arc::clone(&fresh);
        fresh
    }

    /// The latest view of the prompts, resources and templates.
    pub(crate) fn surfaces(&self) -> Arc<(Listed, SurfaceView)> {
        self.surfaces.lock().map(|s| Arc::clone(&s)).unwrap_or_else(|poisoned| Arc::clone(&poisoned.into_inner()))
    }

    /// The view of `listed` surfaces, which becomes the latest.
    pub(crate) fn surfaces_of(&self, listed: Listed) -> Arc<(Listed, SurfaceView)> {
        let old = self.surfaces();
        if old.0 == listed {
            return old;
        }
        let view = SurfaceView::new(self.gateway, &listed);
        for hidden in view.hidden().iter().filter(|h| !old.1.hidden().contains(h)) {
            tracing::warn!("{hidden}");
        }
        let fresh = Arc::new((listed, view));
        let mut latest = self.surfaces.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *latest = Arc::clone(&fresh);
        fresh
    }

    /// The digest of every definition served now, as attested.
    pub(crate) fn definitions_digest(&self) -> String {
        let served = self.served();
        let surfaces = self.surfaces();
        let attested = surfaces.1.attested();
        let tools = served.view.offered().iter().map(|o| (&*o.verb, &*o.definition));
        gateway::definitions_digest(tools.chain(attested.iter().map(|(name, digest)| (name.as_str(), *digest))))
    }
}

impl Served {
    /// The view of `listed`; says on stderr what it hides that `old` did not.
    fn new(gateway: &Gateway, guard: &Guard<'_>, listed: Vec<Value>, old: &View) -> Self {
        let view = View::new(gateway, guard, &listed);
        for hidden in view.hidden().iter().filter(|h| !old.hidden().contains(h)) {
            tracing::warn!("{hidden}");
        }
        let tools = view
            .offered()
            .iter()
            .filter_map(|o| {
                let mut json = o.tool.clone();
                neutralise::listed(&format!("tool `{}`", o.verb), &mut json);
                serde_json::from_value(json).ok()
            })
            .collect();
        Self { listed, view, tools }
    }
}

/// Every tool the inner handler lists, as JSON, page by page within the bounds.
pub(crate) async fn list_tools<S: ServerHandler>(
    inner: &S,
    context: &RequestContext<RoleServer>,
) -> Result<Vec<Value>, McpError> {
    let items = pages("tools/list", |params| {
        let context = context.clone();
        async move {
            let page = inner.list_tools(Some(params), context).await?;
            Ok((page.tools, page.next_cursor))
        }
    })
    .await?;
    Ok(json(items))
}

/// Every item of one paginated listing of the inner handler, one page at a
/// time from `page`, within [`MAX_PAGES`] and [`MAX_ITEMS`].
pub(crate) async fn pages<T, F, Fut>(method: &str, mut page: F) -> Result<Vec<T>, McpError>
where
    F: FnMut(PaginatedRequestParams) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), McpError>>,
{
    let mut items = Vec::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let (more, next) =
            page(PaginatedRequestParams::default().with_cursor(cursor)).await.map_err(neutralise::error)?;
        if items.len() + more.len() > MAX_ITEMS {
            return Err(too_long(method, &format!("more than {MAX_ITEMS} items")));
        }
        items.extend(more);
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(items),
        }
    }
    Err(too_long(method, &format!("more than {MAX_PAGES} pages")))
}

fn too_long(method: &str, what: &str) -> McpError {
    McpError::internal_error(format!("{method}: the server's handler listed {what}; nothing is served"), None)
}

/// Each item as JSON, the form the policy's views read.
pub(crate) fn json<T: serde::Serialize>(items: Vec<T>) -> Vec<Value> {
    items.iter().filter_map(|t| serde_json::to_value(t).ok()).collect()
}
