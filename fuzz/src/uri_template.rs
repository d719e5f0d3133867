//! `m1nd_policy::gateway::uri_template`: the templates a gateway policy
//! declares (`Template::parse`), the URIs a session may read through them
//! (`Template::matches`), and `uri_problem`.
//!
//! The input is a template, then URIs, each after a NUL byte (each read as
//! UTF-8, lossily). Each URI is also tried as the value of every variable
//! (the template with each `{name}` replaced by it), so that matches are
//! easy to reach and values with `/`, `%`, `.` or `..` are tried in place.
//!
//! Against an oracle written here from the module's documentation, not
//! from its code (a scanner of the template's text and a memoised
//! backtracking matcher):
//! 1. `uri_problem` refuses exactly the empty, the longer than
//!    `MAX_URI_BYTES` and those with a byte that is not printable ASCII;
//! 2. a template parses exactly when it is such a URI whose every `{…}` is
//!    one name of ASCII letters, digits and `_`, with no brace otherwise, no
//!    two variables side by side, and at most `MAX_VARIABLES` of them; every
//!    refusal reads as one display-safe line;
//! 3. a URI matches exactly when it is the template with each variable
//!    replaced by one or more unreserved characters (`A-Z a-z 0-9 - . _ ~`),
//!    never `.` or `..` alone: so a match never holds `/`, `%`, `?`, `#`
//!    or a dot segment in a variable's place;
//! 4. work is bounded: a template longer than the bound, or with more
//!    variables, is refused, and a URI past the bound matches nothing.

use std::collections::HashMap;

use m1nd_policy::gateway::uri_template::{MAX_URI_BYTES, MAX_VARIABLES, Template, uri_problem};

/// The longest URI the oracle judges: its work grows with the square of
/// the length, the template's does not (longer ones are judged readable only).
const ORACLE_BYTES: usize = 1024;

/// The oracle's reading of a template: literals and variables (`None`).
type Tokens = Vec<Option<String>>;

pub fn check(data: &[u8]) {
    let mut pieces = data.split(|b| *b == 0).map(String::from_utf8_lossy);
    let Some(template) = pieces.next() else { return };
    let uris: Vec<String> = pieces.take(16).map(|u| u.into_owned()).collect();

    let expected = tokens(&template);
    let parsed = Template::parse(&template);
    match (&parsed, &expected) {
        (Ok(_), Some(_)) => {}
        (Err(problem), None) => {
            let text = problem.to_string();
            assert!(crate::is_display_safe(&text), "a refusal that is not display-safe: {text:?}");
        }
        (Ok(_), None) => panic!("{template:?} parsed, though it is no simple template"),
        (Err(problem), Some(_)) => panic!("{template:?} refused ({problem}), though it is a simple template"),
    }

    let mut tried: Vec<String> = uris.clone();
    tried.push(template.to_string());
    tried.extend(uris.iter().map(|value| fill(&template, value)));
    for uri in &tried {
        assert_eq!(uri_problem(uri).is_none(), readable(uri), "uri_problem({uri:?})");
        let (Ok(template_), Some(tokens)) = (&parsed, &expected) else { continue };
        let matched = template_.matches(uri);
        if uri.len() > ORACLE_BYTES {
            assert!(!matched || readable(uri), "{template:?} matches {uri:?}, which no read may name");
            continue;
        }
        let oracle = readable(uri) && Oracle::new(tokens, uri.as_bytes()).from(0, 0);
        assert_eq!(matched, oracle, "{template:?} matches {uri:?}: the template says {matched}, the oracle {oracle}");
        if uri.len() > MAX_URI_BYTES {
            assert!(!matched, "a URI of {} bytes matched", uri.len());
        }
    }
}

/// A URI any read may name: 1 to `MAX_URI_BYTES` bytes of printable ASCII.
fn readable(uri: &str) -> bool {
    (1..=MAX_URI_BYTES).contains(&uri.len()) && uri.bytes().all(|b| b.is_ascii_graphic())
}

/// The template's literals and variables, or `None` when it is no simple template.
fn tokens(template: &str) -> Option<Tokens> {
    if !readable(template) {
        return None;
    }
    let mut out: Tokens = Vec::new();
    let mut literal = String::new();
    let mut name: Option<String> = None;
    for c in template.chars() {
        match (&mut name, c) {
            (None, '{') => {
                if !literal.is_empty() {
                    out.push(Some(std::mem::take(&mut literal)));
                }
                name = Some(String::new());
            }
            (None, '}') => return None,
            (None, c) => literal.push(c),
            (Some(n), '}') => {
                if n.is_empty() || out.last().is_some_and(Option::is_none) {
                    return None;
                }
                out.push(None);
                name = None;
            }
            (Some(n), c) if c.is_ascii_alphanumeric() || c == '_' => n.push(c),
            (Some(_), _) => return None,
        }
    }
    if name.is_some() || out.iter().filter(|t| t.is_none()).count() > MAX_VARIABLES {
        return None;
    }
    if !literal.is_empty() {
        out.push(Some(literal));
    }
    Some(out)
}

/// The template with every `{…}` replaced by `value`.
fn fill(template: &str, value: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        match rest[open..].find('}') {
            Some(close) => {
                out.push_str(value);
                rest = &rest[open + close + 1..];
            }
            None => {
                rest = &rest[open..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether the tokens from `token` on spell the URI from byte `at` on.
struct Oracle<'a> {
    tokens: &'a Tokens,
    uri: &'a [u8],
    memo: HashMap<(usize, usize), bool>,
}

impl<'a> Oracle<'a> {
    fn new(tokens: &'a Tokens, uri: &'a [u8]) -> Self {
        Self { tokens, uri, memo: HashMap::new() }
    }

    fn from(&mut self, token: usize, at: usize) -> bool {
        if let Some(known) = self.memo.get(&(token, at)) {
            return *known;
        }
        let answer = match self.tokens.get(token) {
            None => at == self.uri.len(),
            Some(Some(literal)) => {
                self.uri[at..].starts_with(literal.as_bytes()) && self.from(token + 1, at + literal.len())
            }
            Some(None) => {
                let run = self.uri[at..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
                    .count();
                (1..=run).any(|len| {
                    let value = &self.uri[at..at + len];
                    value != b"." && value != b".." && self.from(token + 1, at + len)
                })
            }
        };
        self.memo.insert((token, at), answer);
        answer
    }
}
