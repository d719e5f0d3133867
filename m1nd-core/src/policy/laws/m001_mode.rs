//! M001 (after parsing): a gateway policy's `mode` names a session mode, and
//! only a gateway policy has one.
//!
//! `mode = "read-only"` or `mode = "read-write"` in tools.toml says what a
//! gateway session is (see [`crate::mode`]). Any other value is refused with
//! the nearest one, rather than read as either. m1nd's own server takes its
//! mode from the command line, so a cockpit policy that declares one is
//! refused rather than left unread.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::profile::Profile;
use super::super::source::PolicyFile;
use crate::mode::SessionMode;
use crate::names::{did_you_mean, suggest};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let Some(mode) = &cx.raw.tools.mode else { return };
    let written = mode.get_ref();
    let keys = SessionMode::ALL.map(SessionMode::key);
    let both = format!("`mode = \"{}\"` or `mode = \"{}\"`", keys[0], keys[1]);
    if cx.raw.profile == Profile::Cockpit {
        out.push(
            Diagnostic::new(Law::M001, loc(PolicyFile::Tools, mode), "a cockpit policy declares no `mode`")
                .label("m1nd's own server does not read this")
                .help("remove it: `m1nd serve` is read-only with `--read-only` (or M1ND_READ_ONLY=1); `mode` is for gateway policies"),
        );
    } else if SessionMode::from_key(written).is_none() {
        let near = suggest(&written.to_ascii_lowercase().replace('_', "-"), keys);
        out.push(
            Diagnostic::new(Law::M001, loc(PolicyFile::Tools, mode), format!("`{written}` is not a session mode"))
                .label("the gateway would not know what a session may do")
                .help(did_you_mean(near.map(|k| format!("mode = \"{k}\"")).as_deref(), "", || format!("write {both}"))),
        );
    }
}
