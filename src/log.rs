//! What the server says on stderr: every message goes through `tracing`.
//!
//! Two formats, chosen once at start (`--log-format`):
//!
//! - **text** (the default) is for a person at a terminal: one line per
//!   event, `m1nd: <message>` (`m1nd gateway: …` from the gateway), with a
//!   `warning:` or `error:` in front of anything worse than news. Scripts
//!   that wait for `m1nd: serving MCP on http://…` keep working.
//! - **json** is for a collector: one JSON object per line, with the time,
//!   the level, the module and the message as fields. The lines that carry
//!   the tray's live login link (target
//!   [`LOGIN_LINK_TARGET`])
//!   are for the person at the terminal: they are never a JSON object, but
//!   one text line each, as in the text format, so a collector that keeps
//!   only the JSON objects never stores a link that logs in.
//!
//! Which events are shown is `M1ND_LOG` (`tracing`'s target syntax, for
//! example `m1nd=debug,rmcp=info`); by default this crate's news and
//! everyone's warnings. rmcp reports every notification at info level, which
//! is noise for an operator, so libraries start at warn.

use std::fmt;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{Targets, filter_fn};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;

/// The environment variable that chooses what is logged.
pub const LOG_ENV: &str = "M1ND_LOG";

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Why logging could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("{LOG_ENV}={value:?} is not understood ({reason}); use targets like `m1nd=debug,rmcp=warn`")]
    Filter { value: String, reason: String },
}

/// Install the process's subscriber. Call once, first thing; a second call
/// (tests that start several servers in one process) keeps the first.
pub fn init(format: LogFormat, filter: Option<&str>) -> Result<(), LogError> {
    let targets = match filter {
        Some(value) => {
            value.parse::<Targets>().map_err(|e| LogError::Filter { value: value.to_owned(), reason: e.to_string() })?
        }
        None => Targets::new().with_target("m1nd", Level::INFO).with_default(Level::WARN),
    };
    let registry = tracing_subscriber::registry().with(targets);
    let installed = match format {
        LogFormat::Text => {
            registry.with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr).event_format(Plain)).try_init()
        }
        LogFormat::Json => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(std::io::stderr)
                    .json()
                    .flatten_event(true)
                    .with_filter(filter_fn(|meta| !for_the_person(meta))),
            )
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(std::io::stderr)
                    .event_format(Plain)
                    .with_filter(filter_fn(for_the_person)),
            )
            .try_init(),
    };
    // Already installed: the first subscriber stays, which is what a second caller wants.
    let _ = installed;
    Ok(())
}

/// The `tracing` target of the lines that carry a live login link. It is
/// defined here, below the tray's login that logs it, so that the logger
/// needs nothing above it.
pub const LOGIN_LINK_TARGET: &str = "m1nd::tray::login_link";

/// Whether an event carries a live login link, which only a person reads.
fn for_the_person(meta: &tracing::Metadata<'_>) -> bool {
    meta.target() == LOGIN_LINK_TARGET
}

/// `m1nd: message key=value …`, as a person reads it.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, cx: &FmtContext<'_, S, N>, mut out: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let meta = event.metadata();
        let who = if meta.target().starts_with("m1nd::gateway") { "m1nd gateway" } else { "m1nd" };
        let level = match *meta.level() {
            Level::ERROR => "error: ",
            Level::WARN => "warning: ",
            _ => "",
        };
        write!(out, "{who}: {level}")?;
        cx.format_fields(out.by_ref(), event)?;
        writeln!(out)
    }
}
