//! The seeds of what flows rather than what is declared: rmcp's event streams (`sse`), an
//! upstream's stdout and a client's bodies (`tap`), an upstream's answers (`upstream`), and a
//! `state.json` imported into SQLite (`store_sqlite`).

use super::*;

/// One SSE event holding `data`, each of its lines a `data:` line.
fn event(fields: &str, data: &str, end: &str) -> String {
    let lines: String = data.split('\n').map(|l| format!("data: {l}{end}")).collect();
    format!("{fields}{lines}{end}")
}

pub(super) fn sse(seeds: &mut Seeds) {
    let result = |id: Value| json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{"name": "rmcp"}]}}).to_string();
    let keep_alive = "id: 0\nretry: 3000\ndata: \n\n:\n\n";
    let mut streams = vec![
        "id: 0\nretry: 3000\ndata: \n\n:\n\ndata: {\"id\":1}\n\nid: 7\ndata: {\"id\":3}\n\n: keep-alive\n\n".to_owned(),
        "data: x\n\ndata: partial".to_owned(),
    ];
    for id in [json!(0), json!(1), json!(3), json!("1"), json!(1.0), json!(null)] {
        let answer = result(id.clone());
        streams.push(format!("{keep_alive}{}: keep-alive\n\n", event("id: 7\n", &answer, "\n")));
        streams.push(format!("{}{}", event("id: 7\r\n", &answer, "\r\n"), event("", &answer, "\r\n")));
        let pretty =
            serde_json::to_string_pretty(&serde_json::from_str::<Value>(&answer).expect("JSON")).expect("JSON");
        streams.push(event("event: message\n", &pretty, "\n"));
        let other = json!({"jsonrpc": "2.0", "id": id, "result": {"tools": "none"}}).to_string();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}).to_string();
        streams.push(format!("{}{}{}", event("", &other, "\n"), event("", &note, "\n"), event("", &answer, "\n")));
        streams.push(format!("{}\n\r\n{}", event("", &answer, "\n").trim_end(), event("", &answer, "\r\n")));
    }
    for (i, stream) in streams.iter().enumerate() {
        for cut in [0u8, 1, 7, 200] {
            let mut input = vec![cut, (i % 5) as u8];
            input.extend_from_slice(stream.as_bytes());
            seeds.put("sse", &input);
        }
    }
}

pub(super) fn tap(seeds: &mut Seeds) {
    let listing = |tools: Value| format!("{}\n", json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}));
    let mut upstream = vec![
        listing(json!([{"name": "echo", "execution": {"taskSupport": "optional"}}, {"name": "add"}])),
        listing(json!([{"name": "echo"}])),
        listing(json!([{"name": "long", "description": "x".repeat(200), "execution": {"taskSupport": "required"}}])),
        "not json at all, though it says \"tools\"\n".to_owned(),
        format!("{}\n", json!({"jsonrpc": "2.0", "method": "x", "params": {"tools": [{"name": "a", "execution": 1}]}})),
        format!("{}\n", json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [], "tools": "no"}})),
        format!("{}\n", json!({"jsonrpc": "2.0", "id": 3, "result": {"prompts": []}})),
        listing(json!((0..12).map(|i| json!({"name": format!("t{i}"), "execution": i})).collect::<Vec<_>>())),
        "junk without a newline".to_owned(),
    ];
    upstream.push(upstream[..3].concat());
    let bodies = [
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": "a", "method": "initialize", "params": {"protocolVersion": "2025-06-18",
            "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "id": 1.0, "method": "tools/list", "params": {}}),
        json!([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]),
    ];
    upstream.extend(bodies.iter().map(Value::to_string));
    upstream.push("[1, 2".to_owned());
    for (i, written) in upstream.iter().enumerate() {
        for cut in [0u8, 5, 255] {
            let mut input = vec![i as u8, cut];
            input.extend_from_slice(written.as_bytes());
            seeds.put("tap", &input);
        }
    }
}

/// Invisible and control characters an upstream may hide in its text: a TAG
/// block sentence, RLO, ZWSP, ESC, BEL, a line separator, NEL; with TAB, LF
/// and CR, which pass.
const HIDDEN: &str = "Echo text.\u{E0049}\u{E0067}\u{202E}txt.exe\u{200B}\u{1B}[2J\u{7}\u{2028}\u{85}\tcol\r\nline";

pub(super) fn upstream_answers(seeds: &mut Seeds) {
    let mut texts: Vec<String> = vec!["plain".to_owned(), HIDDEN.to_owned()];
    texts.extend(HOSTILE.iter().map(|h| (*h).to_owned()));
    for text in &texts {
        let answers = [
            json!({"content": [{"type": "text", "text": text}], "structuredContent": {text.as_str(): [text, 1, true]}, "isError": false}),
            json!({"description": text, "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}),
            json!({"contents": [{"uri": "file:///a.txt", "mimeType": "text/plain", "text": text}, {"uri": "file:///b.bin", "blob": "AAEC"}]}),
            json!({"completion": {"values": [text, "b"], "total": 2, "hasMore": false}}),
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": 10, "systemPrompt": text}),
            json!({"mode": "form", "message": text, "requestedSchema": {"type": "object", "properties": {"name": {"type": "string", "title": text, "description": text}}}}),
            json!({"code": -32000, "message": text, "data": {"why": text}}),
            json!({"progressToken": 1, "progress": 0.5, "total": 1.0, "message": text}),
        ];
        for (kind, answer) in answers.iter().enumerate() {
            let mut input = vec![kind as u8];
            input.extend(serde_json::to_vec(answer).expect("JSON"));
            seeds.put("upstream", &input);
        }
    }
    let meta = json!({"content": [], "_meta": {"io.m1nd/escaped": 99, "k\u{200B}": "v\u{202E}"}});
    let mut input = vec![0];
    input.extend(serde_json::to_vec(&meta).expect("JSON"));
    seeds.put("upstream", &input);
}

pub(super) fn store_sqlite(repo: &Path, seeds: &mut Seeds) {
    let demo = std::fs::read(repo.join("src/store/demo.json")).expect("src/store/demo.json");
    seeds.put("store_sqlite", &demo);
    let mut state: Value = serde_json::from_slice(&demo).expect("the demo seed is JSON");
    let mut hostile = HOSTILE.iter().cycle();
    for list in state.as_object_mut().expect("an object").values_mut() {
        let Some(items) = list.as_array_mut() else { continue };
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            for key in ["title", "label", "text", "summary", "note", "agent"] {
                if let Some(field) = item.get_mut(key).filter(|f| f.is_string()) {
                    *field = json!(hostile.next().expect("cycles"));
                }
            }
        }
    }
    seeds.json("store_sqlite", &state);
}
