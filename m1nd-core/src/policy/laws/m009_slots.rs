//! M009: slot 0 is reserved for "back / re-serve root"; slots are numbered
//! 1–9 (one keystroke); exactly three are pinned, and they hold slots 1–3.

use super::super::context::{Context, loc};
use super::super::diagnostic::{Diagnostic, Law};
use super::super::source::{Loc, PolicyFile};

pub fn check(cx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let mut pinned = Vec::new();
    for slot in cx.slots() {
        let n = *slot.n.get_ref();
        if n == 0 {
            out.push(
                Diagnostic::new(
                    Law::M009,
                    loc(PolicyFile::Cockpit, &slot.n),
                    "slot 0 is reserved for \"back / re-serve root\"",
                )
                .help("number this slot from 1 to 9"),
            );
        } else if !(1..=9).contains(&n) {
            out.push(
                Diagnostic::new(
                    Law::M009,
                    loc(PolicyFile::Cockpit, &slot.n),
                    format!("slot number {n} is outside 1..=9"),
                )
                .help("a slot is one keystroke: number it from 1 to 9"),
            );
        }
        let is_pinned = slot.pinned.as_ref().is_some_and(|p| *p.get_ref());
        if is_pinned {
            pinned.push((n, slot.pinned.as_ref().map(|p| loc(PolicyFile::Cockpit, p))));
            if n != 0 && !(1..=3).contains(&n) {
                out.push(
                    Diagnostic::new(
                        Law::M009,
                        loc(PolicyFile::Cockpit, &slot.n),
                        format!("slot {n} is pinned, but the pinned trio holds slots 1–3"),
                    )
                    .help("move this slot to 1, 2 or 3, or unpin it"),
                );
            }
        } else if (1..=3).contains(&n) {
            out.push(
                Diagnostic::new(
                    Law::M009,
                    loc(PolicyFile::Cockpit, &slot.n),
                    format!("slot {n} is not pinned, but slots 1–3 hold the permanent trio"),
                )
                .help("add `pinned = true`: the trio's numbers never change, only their labels do"),
            );
        }
    }
    if pinned.len() != 3 {
        let at = pinned.get(3).and_then(|(_, l)| l.clone()).unwrap_or_else(|| Loc::new(PolicyFile::Cockpit, 0..0));
        out.push(
            Diagnostic::new(Law::M009, at, format!("{} slots are pinned; exactly three must be", pinned.len()))
                .help("pin the permanent trio (tray, map, missions, say) as slots 1, 2 and 3 with `pinned = true`"),
        );
    }
}
