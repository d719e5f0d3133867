//! The plain-text skin: the same view as a card a human reads in a terminal
//! or a chat, with an ASCII fallback for surfaces that mangle Unicode.

use std::fmt::Write;

use super::json::level_name;
use super::view::{EntryText, View};

/// Which characters the card may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charset {
    Unicode,
    /// A cut's `…` becomes `...`; every other non-ASCII character becomes `?`.
    Ascii,
}

/// Render the card.
pub fn render(view: &View, charset: Charset) -> String {
    let dot = match charset {
        Charset::Unicode => " · ",
        Charset::Ascii => " - ",
    };
    let arrow = match charset {
        Charset::Unicode => "\u{2192}",
        Charset::Ascii => "->",
    };
    let mut out = String::new();
    // Moved state is said first, before anything the human might act on.
    if view.state_moved {
        let _ = writeln!(out, "! state moved");
    }
    if let Some(note) = &view.note {
        let _ = writeln!(out, "! {note}");
    }
    let _ = writeln!(out, "{}{dot}{}", view.title, level_name(view.level));
    if let Some(subject) = &view.subject {
        let _ = writeln!(out, "  {subject}");
    }
    match (&view.door, &view.door_link) {
        (Some(door), Some(link)) => {
            let _ = writeln!(out, "  > {door} {arrow} {link}");
        }
        (Some(door), None) => {
            let _ = writeln!(out, "  > {door}");
        }
        _ => {}
    }
    if let Some(listing) = &view.listing {
        let _ = writeln!(out, "  {}", listing.sentence());
    }
    for (field, value) in &view.facts {
        let _ = writeln!(out, "  {field}: {value}");
    }
    for entry in &view.entries {
        let number = entry.select.split('@').next().unwrap_or(&entry.select);
        let text = match &entry.text {
            EntryText::Label(l) => l.clone(),
            EntryText::Data(d) => format!("[{d}]"),
        };
        match entry.mark {
            Some(mark) => writeln!(out, "{number:>6}  {text} ({mark})"),
            None => writeln!(out, "{number:>6}  {text}"),
        }
        .unwrap_or_default();
    }
    if let Some(back) = &view.back {
        let _ = writeln!(out, "{back:>6}  back");
    }
    let _ = write!(out, "{}{dot}{}{dot}sv {}", view.menu_sig, view.state_sig, view.store_version);
    match charset {
        Charset::Unicode => out,
        // A cut's ellipsis stays a visible cut, not a question mark.
        Charset::Ascii => out.replace('…', "...").chars().map(|c| if c.is_ascii() { c } else { '?' }).collect(),
    }
}
