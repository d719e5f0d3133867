//! Diagnostics: what a developer meets when a law is broken.
//!
//! Every diagnostic names its law, points at the offending bytes of a policy
//! file, and ends with what to do instead. The same rendering serves the
//! `cockpit!` compile errors and `m1nd policy check`, so the two never disagree.

use std::fmt;
use std::ops::Range;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

use super::source::{Loc, PolicySources, line_col};
use crate::sanitize::escape::{Layout, escape};

/// The laws a policy must satisfy: [`Law::summary`] says each in one line,
/// the guide has a page for each, and [`Law::ALL`] lists them in the order
/// of the registry (`laws/mod.rs`), the one list of laws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Law {
    M001,
    M002,
    M003,
    M004,
    M005,
    M006,
    M007,
    M008,
    M009,
    M010,
    M011,
    M012,
    /// A human-only verb is denied, reachable from no menu entry, and served over MCP in no session.
    M013,
    /// Argument and definition pins are well-formed and name what the tool declares.
    M014,
    /// A collection's count label and the list it opens count the same items.
    M015,
    /// No two names a gateway policy declares fold to the same name.
    M016,
    /// No two upstreams behind one gateway expose names that collide after prefixing.
    M017,
    /// Text a gateway serves is visible: no invisible or control character in a summary or a reviewed definition.
    M018,
    /// The effect catalog and routes are sound: known names, every route to an MCP action of the catalog, every MCP action routed or said unrouted.
    M019,
    /// The session modes say which effects, floors and actions they allow, with a reason for everything beyond a read.
    M020,
    /// The deny list follows the effects: a verb is denied exactly when an action it reaches exceeds read-only mode.
    M021,
    /// The menu reaches no action beyond the menu's mode, judged per pinned value.
    M022,
}

impl Law {
    /// The law in one line, as SARIF's rule description shows it.
    pub const fn summary(self) -> &'static str {
        match self {
            Law::M001 => "Files are readable, valid TOML, with known keys and right types.",
            Law::M002 => "Every verb or card named is defined.",
            Law::M003 => "Nothing is defined twice.",
            Law::M004 => "No denied verb is reachable from the menu.",
            Law::M005 => "A status-only verb appears only with its argument pinned to an allowed value.",
            Law::M006 => "A door carries no executable field.",
            Law::M007 => "Root entries are argument-less reads; actions bind every required argument.",
            Law::M008 => "At most three levels: root, collection, item.",
            Law::M009 => "Slot 0 is reserved; exactly three pinned slots hold 1–3.",
            Law::M010 => {
                "Labels are static text with only the facet's numeric placeholders; door text and links are static."
            }
            Law::M011 => "A budget is declared and the worst case fits it.",
            Law::M012 => "`negative_default` is present and non-empty.",
            Law::M013 => "A human-only verb is denied, reached by no menu entry, and served over MCP in no session.",
            Law::M014 => "Argument and definition pins are well-formed and name what the tool declares.",
            Law::M015 => "A collection's count label and the list it opens count the same items.",
            Law::M016 => "No two names a gateway policy declares fold to the same name.",
            Law::M017 => "No two upstreams behind one gateway expose names that collide after prefixing.",
            Law::M018 => {
                "Text a gateway serves is visible: no invisible or control character in a summary, nor in a reviewed definition unless allowed for that field."
            }
            Law::M019 => {
                "The effect catalog and routes are sound: known effects and floors, every route to an MCP action of the catalog, every verb routed, every MCP action routed or said unrouted."
            }
            Law::M020 => {
                "Each session mode says which effects, floors and actions it allows, with a reason for everything beyond a read; the menu allows nothing read-only does not."
            }
            Law::M021 => {
                "The deny list follows the effects: a verb is denied exactly when an action it can reach exceeds read-only mode, and a status-only value reaches only what read-only allows."
            }
            Law::M022 => {
                "No menu entry, door source, item action or shown help card reaches an action beyond the menu's mode, judged per pinned argument value."
            }
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Law::M001 => "M001",
            Law::M002 => "M002",
            Law::M003 => "M003",
            Law::M004 => "M004",
            Law::M005 => "M005",
            Law::M006 => "M006",
            Law::M007 => "M007",
            Law::M008 => "M008",
            Law::M009 => "M009",
            Law::M010 => "M010",
            Law::M011 => "M011",
            Law::M012 => "M012",
            Law::M013 => "M013",
            Law::M014 => "M014",
            Law::M015 => "M015",
            Law::M016 => "M016",
            Law::M017 => "M017",
            Law::M018 => "M018",
            Law::M019 => "M019",
            Law::M020 => "M020",
            Law::M021 => "M021",
            Law::M022 => "M022",
        }
    }
}

impl fmt::Display for Law {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One broken law, with where and what instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub law: Law,
    /// Lower-case, one line, without the code.
    pub title: String,
    /// The offending bytes; `None` only when a file has no text at all.
    pub at: Option<Loc>,
    /// The file the diagnostic is about when `at` is `None`.
    pub file: Option<super::source::PolicyFile>,
    /// A short note under the primary span.
    pub label: String,
    /// Related places, such as the deny-list entry that denies a verb.
    pub related: Vec<(Loc, String)>,
    /// What to do instead.
    pub help: String,
}

/// A diagnostic's own text quotes the policy (verb, card and argument names),
/// which may hold a line break, a tab, a terminal escape or an invisible
/// character. Through the one sanitiser, each text stays the one line its
/// field promises, so a policy cannot forge a line of its own diagnostic.
/// A fleet's diagnostics (`gateway::fleet`) quote `fleet.toml` through it too.
pub(crate) fn one_line(text: impl Into<String>) -> String {
    crate::sanitize::display(&text.into(), crate::sanitize::cap::MESSAGE)
}

impl Diagnostic {
    pub fn new(law: Law, at: Loc, title: impl Into<String>) -> Self {
        let file = Some(at.file);
        Self {
            law,
            title: one_line(title),
            at: Some(at),
            file,
            label: String::new(),
            related: Vec::new(),
            help: String::new(),
        }
    }

    /// A diagnostic about a whole file (missing, not a file).
    pub fn whole_file(law: Law, file: super::source::PolicyFile, title: impl Into<String>) -> Self {
        Self {
            law,
            title: one_line(title),
            at: None,
            file: Some(file),
            label: String::new(),
            related: Vec::new(),
            help: String::new(),
        }
    }

    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = one_line(label);
        self
    }

    pub fn related(mut self, at: Loc, note: impl Into<String>) -> Self {
        self.related.push((at, one_line(note)));
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = one_line(help);
        self
    }

    /// `display:line:col` of the primary position.
    pub fn position(&self, sources: &PolicySources) -> String {
        match (self.line_col(sources), self.file) {
            (Some((line, col)), Some(file)) => format!("{}:{line}:{col}", sources.file(file).display),
            (None, Some(file)) => sources.file(file).display.clone(),
            _ => String::new(),
        }
    }

    /// 1-based line and column of the primary position, when there is one.
    pub fn line_col(&self, sources: &PolicySources) -> Option<(usize, usize)> {
        self.at.as_ref().map(|at| line_col(sources.text(at.file), at.span.start))
    }

    /// The first line: `[M004] slot 4 reads …`.
    pub fn headline(&self) -> String {
        format!("[{}] {}", self.law, self.title)
    }

    /// The full rendering: headline, `--> file:line:col`, the offending line,
    /// related places, then `= help: …`. Plain ASCII, no colour.
    pub fn render(&self, sources: &PolicySources) -> String {
        fn place<'a>(sources: &'a PolicySources, at: &Loc, note: &'a str) -> Place<'a> {
            Place { path: &sources.file(at.file).display, text: sources.text(at.file), span: at.span.clone(), note }
        }
        let primary = match (&self.at, self.file) {
            (Some(at), _) => Some(Where::At(place(sources, at, &self.label))),
            (None, Some(file)) => Some(Where::File(&sources.file(file).display)),
            (None, None) => None,
        };
        let related: Vec<Place<'_>> = self.related.iter().map(|(loc, note)| place(sources, loc, note)).collect();
        render_report(&self.headline(), primary, &related, &self.help)
    }
}

/// One place a report points at: a file as diagnostics name it, its text,
/// the offending bytes, and a note under them.
pub struct Place<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub span: Range<usize>,
    pub note: &'a str,
}

/// Where a report's error is: some bytes of a file, or a whole file.
pub enum Where<'a> {
    At(Place<'a>),
    File(&'a str),
}

/// The one rendering of every report (a policy's diagnostics, and a fleet's
/// in [`crate::gateway::fleet`]): `headline`, `--> file:line:col` and the
/// offending line, the `related` places, then `= help: …`. Plain ASCII, no
/// colour.
pub fn render_report(headline: &str, primary: Option<Where<'_>>, related: &[Place<'_>], help: &str) -> String {
    let shown_primary = match &primary {
        Some(Where::At(place)) => Some(Shown::of(place)),
        _ => None,
    };
    let shown_related: Vec<Shown<'_>> = related.iter().map(Shown::of).collect();
    let mut group = Group::with_title(Level::ERROR.no_name().primary_title(headline));
    match (&primary, &shown_primary) {
        (Some(Where::At(place)), Some(shown)) => group = group.element(snippet(place, shown, AnnotationKind::Primary)),
        (Some(Where::File(path)), _) => group = group.element(annotate_snippets::Origin::path(*path)),
        _ => {}
    }
    for (place, shown) in related.iter().zip(&shown_related) {
        group = group.element(snippet(place, shown, AnnotationKind::Context));
    }
    let mut report = vec![group];
    if !help.is_empty() {
        report.push(Group::with_title(Level::HELP.secondary_title(help)));
    }
    let rendered = Renderer::plain().render(&report);
    // The renderer prints the nameless level as a leading ": "; drop it so
    // the first line is exactly the headline, as rustc shows it after `error: `.
    rendered.strip_prefix(": ").map(str::to_owned).unwrap_or(rendered)
}

/// A place's text as a report quotes it: every character a reader would not
/// see written `\u{XXXX}` (law M018; a policy file, or a reviewed definition
/// written by hand, may hold them raw), lines kept, and the span moved to the
/// same characters. Columns count the escaped text, as shown.
struct Shown<'a> {
    text: std::borrow::Cow<'a, str>,
    span: Range<usize>,
}

impl<'a> Shown<'a> {
    fn of(place: &Place<'a>) -> Self {
        let text = place.text;
        let start = floor_boundary(text, place.span.start.min(text.len()));
        let end = floor_boundary(text, place.span.end.clamp(start, text.len()));
        let shown = escape(text, Layout::Keep);
        if matches!(shown, std::borrow::Cow::Borrowed(_)) {
            return Self { text: shown, span: start..end };
        }
        let shown_start = escape(&text[..start], Layout::Keep).len();
        let shown_end = shown_start + escape(&text[start..end], Layout::Keep).len();
        Self { text: shown, span: shown_start..shown_end }
    }
}

/// The largest char boundary of `text` at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn snippet<'a>(
    place: &'a Place<'a>,
    shown: &'a Shown<'a>,
    kind: AnnotationKind,
) -> Snippet<'a, annotate_snippets::Annotation<'a>> {
    let note = if place.note.is_empty() { None } else { Some(place.note) };
    Snippet::source(&*shown.text).path(place.path).annotation(kind.span(shown.span.clone()).label(note))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sanitize::escape::has_unseen;

    #[test]
    fn a_quoted_line_shows_what_it_hides_and_points_at_it() {
        let text = "[verbs.echo]\nsummary = \"Echo\u{200B}\u{E0049}\"\n";
        let start = text.find('"').expect("quoted");
        let place = Place { path: "tools.toml", text, span: start..text.len() - 1, note: "here" };
        let shown = render_report("[M018] hidden", Some(Where::At(place)), &[], "");
        assert!(!has_unseen(&shown, Layout::Keep), "{shown:?}");
        assert!(shown.contains("--> tools.toml:2:11"), "{shown}");
        assert!(shown.contains("2 | summary = \"Echo\\u{200B}\\u{E0049}\""), "{shown}");
        let caret = format!("  | {}{} here", " ".repeat(10), "^".repeat("\"Echo\\u{200B}\\u{E0049}\"".len()));
        assert!(shown.contains(&caret), "{shown}");
    }
}
