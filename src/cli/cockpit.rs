//! `m1nd cockpit [REF]`: the card a human would see, from the local store;
//! `--json` prints the view, `--html` the widget with the view pasted in.
//! At a terminal a door's path (`→ /tray`) leads nowhere by itself, so the
//! text card is followed, on stderr, by a note naming the command that serves
//! it; stdout stays the card an MCP client gets.

use std::path::Path;

use clap::Args;
use m1nd::invocation;
use m1nd::service::{Options, Service, ServiceError};
use m1nd::store::Location;
use m1nd::widget;
use m1nd_policy::runtime::{Charset, Request, json, text};

use super::{Failure, StoreArg, emit};

#[derive(Debug, Args)]
pub struct CockpitArgs {
    /// A reference: nothing or `?` for the root, `N`, `N.M`, `N.M.K`, optionally `@mc_xxxxxxxx`.
    #[arg(value_name = "REF")]
    reference: Option<String>,
    /// Print the JSON view (schema m1nd-cockpit-v1) instead of the text card.
    #[arg(long, conflicts_with = "html")]
    json: bool,
    /// Print the widget (m1nd-cockpit-widget-v1) with the view embedded, for hosts without MCP Apps.
    #[arg(long)]
    html: bool,
    /// Use only ASCII in the text card.
    #[arg(long)]
    ascii: bool,
    /// The store_version you last saw; the card says so if the store moved since.
    #[arg(long, value_name = "N")]
    seen_store_version: Option<u64>,
    #[command(flatten)]
    store: StoreArg,
}

pub fn run(args: CockpitArgs) -> Result<(), Failure> {
    let at = args.store.location();
    if let Location::Dir(dir) = at {
        super::check_store_dir(dir)?;
    }
    let options = Options { readers: 1, ..Options::new(at.clone()).read_only(true) };
    let service = Service::start(options).map_err(|e| Failure::usage(e.to_string()))?;
    let request = Request { select: args.reference, seen_store_version: args.seen_store_version };
    let view = service.view_blocking(request).map_err(|e| match e {
        ServiceError::Cockpit(e) => Failure::usage(e.to_string()),
        other => Failure::usage(other.to_string()),
    })?;
    if args.html {
        emit(&widget::pasted(&json::to_value(&view)))
    } else if args.json {
        emit(&json::to_pretty(&view))
    } else {
        let charset = if args.ascii { Charset::Ascii } else { Charset::Unicode };
        emit(&text::render(&view, charset))?;
        // On stderr: stdout stays the card MCP answers, byte for byte.
        if let Some(note) = view.door_link.as_deref().and_then(|link| door_note(link, at)) {
            eprintln!("note: {note}");
        }
        Ok(())
    }
}

/// What a door's path link means at a terminal: a page of `serve --http`,
/// which must be running for the path to lead anywhere. A link that is a
/// whole URL needs no note.
fn door_note(link: &str, store: &Location) -> Option<String> {
    if !link.starts_with('/') {
        return None;
    }
    let mut serve = String::from("serve --http");
    match store {
        Location::Dir(dir) if dir != Path::new(m1nd::store::DEFAULT_DIR) => {
            serve.push_str(&format!(" --store {}", invocation::shell_word(&dir.to_string_lossy())));
        }
        Location::Dir(_) => {}
        // Never repeated: it may hold a password.
        Location::Postgres(_) => serve.push_str(" --read-only --store \"$M1ND_STORE\""),
    }
    Some(format!(
        "{link} is a page of the HTTP server: run `{}` in a terminal and open the login link it prints",
        invocation::m1nd(&serve)
    ))
}
