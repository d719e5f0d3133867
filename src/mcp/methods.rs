//! The methods this server answers, and the params each takes: what an
//! error says when a known method arrives with params it cannot read.

/// The params of the methods this server answers, for errors.
const SHAPES: &[(&str, &str)] = &[
    ("initialize", "{ protocolVersion: string, capabilities: object, clientInfo: { name, version } }"),
    ("ping", "no params or an object"),
    ("tools/list", "no params or { cursor?: string }"),
    ("tools/call", "{ name: string, arguments?: object }"),
];

/// The expected params of a method this server answers.
pub fn shape_of(method: &str) -> Option<&'static str> {
    SHAPES.iter().find(|(m, _)| *m == method).map(|(_, shape)| *shape)
}
