//! The scripted model server itself: raw HTTP/SSE output, request recording, `when`
//! matching, keep-alive reuse by the provider client.

use crate::support::provider::*;
use crate::support::Mock;
use bash_agent::mock::Server;
use bash_agent::provider::{ProviderKind, StreamEvent};
use bash_agent::util::cancel::Cancel;
use std::io::{Read, Write};
use std::net::TcpStream;

/// One raw HTTP/1.1 exchange with `Connection: close`; returns the whole response.
fn raw(url: &str, path: &str, body: &str) -> String {
    let addr = url.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAuthorization: Bearer sk-raw-secret\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn speaks_real_sse_per_path() {
    let mock = Mock::start(r#"[{"text": "hi", "repeat": true}]"#);
    let a = raw(&mock.url, "/v1/messages", "{}");
    assert!(a.starts_with("HTTP/1.1 200 OK\r\n"), "{a}");
    assert!(a.contains("Content-Type: text/event-stream\r\n"));
    assert!(a.contains("event: message_start\ndata: {\"type\":\"message_start\""));
    assert!(a.contains("\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}"));
    assert!(a.contains("event: message_stop\n"));
    let o = raw(&mock.url, "/v1/chat/completions", "{}");
    assert!(o.contains("data: {\"id\":\"chatcmpl-mock\""), "{o}");
    assert!(o.contains("\"finish_reason\":\"stop\""));
    assert!(o.contains("data: [DONE]\n\n"));
    let r = raw(&mock.url, "/responses", "{}");
    assert!(r.contains("event: response.output_text.delta\n"), "{r}");
    assert!(r.contains("event: response.completed\n"));
    let n = raw(&mock.url, "/nowhere", "{}");
    assert!(n.starts_with("HTTP/1.1 404"), "{n}");
}

#[test]
fn records_each_request_as_one_json_line() {
    let mock = Mock::start(r#"[{"text": "a", "repeat": true}]"#);
    raw(&mock.url, "/v1/messages", r#"{"b":1,"a":[2]}"#);
    raw(&mock.url, "/v1/messages", "not json");
    let text = std::fs::read_to_string(&mock.record).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0]
            .starts_with("{\"path\":\"/v1/messages\",\"target\":\"/v1/messages\",\"headers\":{"),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].ends_with(",\"body\":{\"b\":1,\"a\":[2]}}"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("\"authorization\":\"<redacted>\""));
    assert!(lines[0].contains("\"content-type\":\"application/json\""));
    assert!(!text.contains("sk-raw-secret"));
    assert!(
        lines[1].ends_with(",\"body\":\"not json\"}"),
        "{}",
        lines[1]
    );
}

#[test]
fn when_steps_match_by_body_substring() {
    let mock = Mock::start(
        r#"[{"when": "tool_result", "text": "after tool"}, {"text": "first"}, {"text": "fallback", "repeat": true}]"#,
    );
    let cfg = mock.cfg(ProviderKind::Claude);
    let say = |msgs: &[String]| {
        let (ev, _) = run(&cfg, msgs, &fast_opts(), &Cancel::new());
        match &ev[0] {
            StreamEvent::Text(t) => t.clone(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(say(&[user("hello")]), "first");
    let with_result = vec![
        user("hello"),
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{}}]}"#
            .to_string(),
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}"#
            .to_string(),
    ];
    assert_eq!(say(&with_result), "after tool");
    assert_eq!(say(&with_result), "fallback");
    assert_eq!(say(&[user("again")]), "fallback");
}

#[test]
fn client_reuses_the_connection() {
    let server = Server::start(r#"[{"text": "x", "repeat": true}]"#, None, 0).unwrap();
    for kind in KINDS {
        let mut cfg = Mock::cfg_for(&server.url, kind);
        cfg.api_key = "k".into();
        for _ in 0..2 {
            let (ev, _) = run(&cfg, &[user("x")], &fast_opts(), &Cancel::new());
            assert_eq!(ev.last(), Some(&StreamEvent::Stop("end_turn".into())));
        }
    }
    assert_eq!(server.request_count(), 6);
    assert_eq!(
        server.connection_count(),
        1,
        "keep-alive connection not reused"
    );
}

/// The example script of the README (section "The scripted model server") works as described.
#[test]
fn readme_example_script() {
    let mock = Mock::start(
        r#"[
  {"thinking": "I should read it.", "tool_calls": [{"name": "Read", "input": {"path": "notes.txt"}}]},
  {"when": "call_0", "status": 429, "retry_after": 0},
  {"when": "call_0", "text": "The notes say hello.", "usage": {"input": 120, "output": 8}}
]"#,
    );
    let cfg = mock.cfg(ProviderKind::OpenAi);
    let mut msgs = vec![user("what do the notes say?")];
    let (ev, _) = run(&cfg, &msgs, &fast_opts(), &Cancel::new());
    assert_eq!(ev[0], StreamEvent::Thinking("I should read it.".into()));
    assert_eq!(
        ev[1],
        StreamEvent::ToolCall {
            name: "Read".into(),
            id: "call_0".into(),
            input_raw: r#"{"path":"notes.txt"}"#.into()
        }
    );
    msgs.push(r#"{"role":"assistant","content":[{"type":"thinking","thinking":"I should read it."},{"type":"text","text":""},{"type":"tool_use","id":"call_0","name":"Read","input":{"path":"notes.txt"}}]}"#.into());
    msgs.push(r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_0","content":"hello"}]}"#.into());
    let (ev, info) = run(&cfg, &msgs, &fast_opts(), &Cancel::new());
    assert_eq!(info.retries, 1);
    assert_eq!(ev[0], StreamEvent::Retry);
    assert_eq!(ev[1], StreamEvent::Text("The notes say hello.".into()));
    assert_eq!(ev.last(), Some(&StreamEvent::Stop("end_turn".into())));
}
