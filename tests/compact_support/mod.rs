//! Test support for the compaction tests: a tiny loopback server speaking the Anthropic
//! Messages SSE format from a script, recording every request body, and helpers to build
//! session folders and configs.
#![allow(dead_code)]
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One scripted response.
#[derive(Clone, Debug)]
pub enum Step {
    /// A successful stream with this text and (input, output) usage.
    Text(String, u64, u64),
    /// An HTTP error status with a JSON error body.
    Status(u16),
    /// Send the headers and `message_start`, then go silent (until the client leaves or 20 s).
    Stall,
    /// Append `line` to the file at `path` (another writer), then answer like `Text`.
    AppendThenText(std::path::PathBuf, String, String),
}

pub struct Server {
    pub url: String,
    pub requests: Arc<Mutex<Vec<String>>>,
    /// One message per request received (sent before responding).
    pub seen: mpsc::Receiver<()>,
}

pub fn serve(script: Vec<Step>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let requests = Arc::new(Mutex::new(Vec::new()));
    let (tx, seen) = mpsc::channel();
    let reqs = requests.clone();
    std::thread::spawn(move || {
        let mut steps = script.into_iter();
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let Some(body) = read_request(&conn) else {
                continue;
            };
            reqs.lock().unwrap().push(body);
            let _ = tx.send(());
            let step = steps.next().unwrap_or(Step::Status(500));
            respond(&mut conn, &step);
        }
    });
    Server {
        url,
        requests,
        seen,
    }
}

fn read_request(conn: &TcpStream) -> Option<String> {
    let mut r = BufReader::new(conn.try_clone().ok()?);
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().ok()?;
            }
        }
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).ok()?;
    String::from_utf8(body).ok()
}

fn sse(ev: &str, data: &str) -> String {
    format!("event: {ev}\ndata: {data}\n\n")
}

fn respond(conn: &mut TcpStream, step: &Step) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
    let start = |i: u64| {
        sse(
            "message_start",
            &format!(
                r#"{{"type":"message_start","message":{{"usage":{{"input_tokens":{i},"output_tokens":1}}}}}}"#
            ),
        )
    };
    match step {
        Step::Status(code) => {
            let body =
                r#"{"type":"error","error":{"type":"api_error","message":"scripted failure"}}"#;
            let _ = write!(
                conn,
                "HTTP/1.1 {code} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
        Step::Stall => {
            let _ = conn.write_all(head.as_bytes());
            let _ = conn.write_all(start(1).as_bytes());
            let _ = conn.flush();
            let _ = conn.set_read_timeout(Some(Duration::from_secs(20)));
            let mut buf = [0u8; 64];
            // Returns when the client closes the connection (cancel) or after the timeout.
            let _ = conn.read(&mut buf);
        }
        Step::AppendThenText(path, line, text) => {
            bash_agent::util::fsx::append_line(path, line).unwrap();
            respond(conn, &Step::Text(text.clone(), 1, 1));
        }
        Step::Text(text, i, o) => {
            let mut s = String::from(head);
            s.push_str(&start(*i));
            s.push_str(&sse(
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ));
            let delta = serde_json::json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":text}});
            s.push_str(&sse("content_block_delta", &delta.to_string()));
            s.push_str(&sse(
                "content_block_stop",
                r#"{"type":"content_block_stop","index":0}"#,
            ));
            s.push_str(&sse(
                "message_delta",
                &format!(r#"{{"type":"message_delta","delta":{{"stop_reason":"end_turn"}},"usage":{{"output_tokens":{o}}}}}"#),
            ));
            s.push_str(&sse("message_stop", r#"{"type":"message_stop"}"#));
            let _ = conn.write_all(s.as_bytes());
        }
    }
}

/// A provider/run config pointing at `url`.
pub fn config(url: &str, max_context: u64) -> bash_agent::config::Config {
    use bash_agent::provider::{ProviderConfig, ProviderKind};
    bash_agent::config::Config {
        provider: ProviderConfig {
            kind: ProviderKind::Claude,
            model: "test-model".into(),
            api_key: "x".into(),
            base_url: url.into(),
            max_tokens: 1000,
            effort: Some(bash_agent::provider::Effort::High),
            thinking: Some(bash_agent::provider::Thinking::Adaptive),
            verbose: false,
        },
        max_turns: 100,
        max_context,
        tool_timeout: 10,
        skills: vec![],
        output: bash_agent::config::OutputFormat::Human,
        max_result_bytes: 100_000,
        bash_mode: 0o467,
        verbose: false,
        vision: false,
    }
}

/// Conversation lines: `turns` user turns, each followed by an assistant tool call, its
/// result and a final assistant answer, with ~`pad` bytes of text per line.
pub fn conversation(turns: usize, pad: usize) -> Vec<String> {
    use bash_agent::session::conversation::{
        assistant_line, tool_results_line, user_text_line, ToolUse,
    };
    let fill = "y".repeat(pad);
    let mut out = Vec::new();
    for t in 0..turns {
        let id = format!("toolu_{t}");
        out.push(user_text_line(&format!("request {t} {fill}")));
        let tu = ToolUse {
            id: id.clone(),
            name: "Bash".into(),
            input_raw: r#"{"command":"ls"}"#.into(),
        };
        out.push(assistant_line("", &format!("calling {t}"), &[tu]));
        out.push(tool_results_line(&[(id, format!("output {t} {fill}"))]));
        out.push(assistant_line("", &format!("answer {t} {fill}"), &[]));
    }
    out
}
