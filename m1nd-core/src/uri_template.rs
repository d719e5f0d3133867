//! The URI templates a gateway policy may declare, and which URIs they let
//! a session read.
//!
//! The invariant: a URI matches a declared template only if every literal
//! part is there byte for byte, and every variable is filled by one or more
//! *unreserved* characters (`A–Z a–z 0–9 - . _ ~`, RFC 3986) other than `.`
//! and `..`. So a value can never hold `/`, `%`, `?`, `#`, `\` or a dot
//! segment: a read cannot leave the part of the upstream's URI space the
//! template names through `..`, an encoded `..` or `/` (`%2e%2e`, `%2F`), a
//! query, or another case of the literal part (`DEMO://`). A value that
//! needs any other character is refused (fail closed): declare the resource
//! by its exact URI instead.
//!
//! Only RFC 6570's simple expansion of one variable (`{name}`) is supported,
//! and two variables must be separated by a literal. Templates that use an
//! operator (`{+path}`, `{/segments}`, `{?query}`), several variables in one
//! expression (`{a,b}`) or a modifier (`{a*}`, `{a:3}`) let a value carry
//! `/` or more, which a name check cannot confine: law M001 refuses them in
//! a policy, and the gateway hides an upstream template it cannot parse.

/// The longest URI a read may name: far past any real resource URI, and a
/// bound on the work one check does.
pub const MAX_URI_BYTES: usize = 4096;

/// The most variables one template may hold.
pub const MAX_VARIABLES: usize = 16;

/// A parsed URI template: literal parts and variables, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable,
}

/// Why a template cannot be declared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TemplateProblem {
    #[error("it is empty")]
    Empty,
    #[error("it is {0} bytes long (at most {MAX_URI_BYTES})")]
    TooLong(usize),
    #[error("it holds {0}, which a URI cannot")]
    Character(String),
    #[error("a `{{` is not closed")]
    Unclosed,
    #[error("a `}}` closes nothing")]
    StrayClose,
    #[error("`{{{0}}}` is not a simple `{{name}}`: operators, lists and modifiers let a value carry `/`")]
    NotSimple(String),
    #[error("two variables follow each other without a literal between them")]
    Adjacent,
    #[error("it holds more than {MAX_VARIABLES} variables")]
    TooManyVariables,
}

/// Why a URI cannot be read at all, whatever the policy declares.
pub fn uri_problem(uri: &str) -> Option<TemplateProblem> {
    if uri.is_empty() {
        return Some(TemplateProblem::Empty);
    }
    if uri.len() > MAX_URI_BYTES {
        return Some(TemplateProblem::TooLong(uri.len()));
    }
    let bad = uri.chars().find(|c| !c.is_ascii_graphic())?;
    Some(TemplateProblem::Character(if bad == ' ' { "a space".into() } else { format!("U+{:04X}", bad as u32) }))
}

impl Template {
    /// Parse `template`, or say why it cannot be declared.
    pub fn parse(template: &str) -> Result<Self, TemplateProblem> {
        if let Some(problem) = uri_problem(template) {
            return Err(problem);
        }
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                Some(i) if rest.as_bytes()[i] == b'}' => return Err(TemplateProblem::StrayClose),
                Some(i) => {
                    if i > 0 {
                        parts.push(Part::Literal(rest[..i].to_owned()));
                    }
                    let close = rest[i..].find('}').ok_or(TemplateProblem::Unclosed)? + i;
                    let name = &rest[i + 1..close];
                    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                        return Err(TemplateProblem::NotSimple(name.to_owned()));
                    }
                    if matches!(parts.last(), Some(Part::Variable)) {
                        return Err(TemplateProblem::Adjacent);
                    }
                    parts.push(Part::Variable);
                    rest = &rest[close + 1..];
                }
                None => {
                    parts.push(Part::Literal(rest.to_owned()));
                    rest = "";
                }
            }
        }
        if parts.iter().filter(|p| **p == Part::Variable).count() > MAX_VARIABLES {
            return Err(TemplateProblem::TooManyVariables);
        }
        Ok(Self { parts })
    }

    /// Whether `uri` is one this template names (see the module docs). Work
    /// is linear in the URI's length for each part.
    pub fn matches(&self, uri: &str) -> bool {
        if uri_problem(uri).is_some() {
            return false;
        }
        let bytes = uri.as_bytes();
        let n = bytes.len();
        // reach[i]: the parts so far can end exactly at byte i.
        let mut reach = vec![false; n + 1];
        reach[0] = true;
        for part in &self.parts {
            let mut next = vec![false; n + 1];
            match part {
                Part::Literal(literal) => {
                    for start in (0..=n).filter(|&i| reach[i]) {
                        if bytes[start..].starts_with(literal.as_bytes()) {
                            next[start + literal.len()] = true;
                        }
                    }
                }
                Part::Variable => variable(bytes, &reach, &mut next),
            }
            reach = next;
        }
        reach[n]
    }
}

/// The ends a variable can reach from the reachable starts in `reach`: a
/// run of one or more unreserved bytes that is not `.` or `..`.
fn variable(bytes: &[u8], reach: &[bool], next: &mut [bool]) {
    // Reachable starts seen since the current run of unreserved bytes began.
    let mut open = 0usize;
    for end in 1..=bytes.len() {
        let b = bytes[end - 1];
        if !is_unreserved(b) {
            open = 0;
            continue;
        }
        if reach[end - 1] {
            open += 1;
        }
        // Starts that would make the value exactly `.` or `..`.
        let dot = |start: usize| reach[start] && bytes[start..end].iter().all(|&c| c == b'.');
        let dots =
            (end >= 1 && dot(end - 1)) as usize + (end >= 2 && is_unreserved(bytes[end - 2]) && dot(end - 2)) as usize;
        next[end] = open > dots;
    }
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text() -> Template {
        Template::parse("demo://resource/dynamic/text/{resourceId}").unwrap()
    }

    #[test]
    fn a_simple_variable_takes_unreserved_characters() {
        let t = text();
        assert!(t.matches("demo://resource/dynamic/text/1"));
        assert!(t.matches("demo://resource/dynamic/text/a-b.c_d~e"));
        assert!(t.matches("demo://resource/dynamic/text/..."), "three dots are a name, not a dot segment");
    }

    #[test]
    fn a_uri_that_slips_past_the_literal_is_refused() {
        let t = text();
        for slip in [
            "demo://resource/dynamic/text/",
            "demo://resource/dynamic/text/..",
            "demo://resource/dynamic/text/.",
            "demo://resource/dynamic/text/../../static/document/x",
            "demo://resource/dynamic/text/%2e%2e",
            "demo://resource/dynamic/text/..%2Fsecret",
            "demo://resource/dynamic/text/%31",
            "demo://resource/dynamic/text/1/2",
            "demo://resource/dynamic/text/1?x=2",
            "demo://resource/dynamic/text/1#f",
            "demo://resource/dynamic/text/1\\..\\x",
            "DEMO://resource/dynamic/text/1",
            "demo://resource/Dynamic/text/1",
            "demo://resource/dynamic/text/1 ",
            "demo://resource/dynamic/text/\u{2024}\u{2024}",
        ] {
            assert!(!t.matches(slip), "{slip:?}");
        }
    }

    #[test]
    fn literals_around_variables_are_matched_exactly() {
        let t = Template::parse("file:///logs/{day}.{n}.txt").unwrap();
        assert!(t.matches("file:///logs/2026-12-02.3.txt"));
        assert!(t.matches("file:///logs/a.b.c.txt"), "either split of a value is fine: both stay in the directory");
        assert!(!t.matches("file:///logs/...txt"));
        assert!(!t.matches("file:///logs/a.b.txt.gz"));
        let dots = Template::parse("x:{a}/{b}").unwrap();
        assert!(!dots.matches("x:../b") && !dots.matches("x:a/..") && dots.matches("x:a/b"));
    }

    #[test]
    fn only_simple_templates_parse() {
        for (template, problem) in [
            ("x:{+path}", TemplateProblem::NotSimple("+path".into())),
            ("x:{/a}", TemplateProblem::NotSimple("/a".into())),
            ("x:{?q}", TemplateProblem::NotSimple("?q".into())),
            ("x:{a,b}", TemplateProblem::NotSimple("a,b".into())),
            ("x:{a*}", TemplateProblem::NotSimple("a*".into())),
            ("x:{}", TemplateProblem::NotSimple(String::new())),
            ("x:{a}{b}", TemplateProblem::Adjacent),
            ("x:{a", TemplateProblem::Unclosed),
            ("x:a}", TemplateProblem::StrayClose),
            ("", TemplateProblem::Empty),
            ("x: {a}", TemplateProblem::Character("a space".into())),
        ] {
            assert_eq!(Template::parse(template), Err(problem), "{template}");
        }
        assert!(Template::parse("demo://resource/static/document/architecture.md").is_ok(), "no variable at all");
    }

    #[test]
    fn work_is_bounded_by_the_uri() {
        let t = Template::parse(&"{a}-".repeat(MAX_VARIABLES)).unwrap();
        let long = "a-".repeat(MAX_URI_BYTES / 2);
        assert!(t.matches(&long), "a value may hold `-`, so the variables share the dashes");
        assert!(!t.matches(&format!("{}/", &long[..long.len() - 1])), "but never a `/`");
        assert!(!t.matches(&"a".repeat(MAX_URI_BYTES + 1)), "too long");
    }
}
