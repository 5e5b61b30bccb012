//! A long session's request, built by the one-pass reader and the spliced body, equals
//! what the previous builder (a full parse of every line, one body string) produced —
//! for every provider, with the lines a request must repair or clean mixed in.
use bash_agent::provider::{build_body, ProviderConfig, ProviderKind, Request};
use bash_agent::session::conversation as conv;
use serde_json::Value;

/// The previous reader, kept verbatim as the reference.
mod reference {
    use super::conv::{tool_result_ids, tool_results_line, tool_use_ids, user_text_line};
    use serde_json::Value;
    use std::path::Path;

    pub fn message_lines(path: &Path) -> Vec<String> {
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .filter(|l| matches!(serde_json::from_str::<Value>(l), Ok(Value::Object(_))))
            .map(str::to_string)
            .collect();
        let turns = lines
            .iter()
            .rev()
            .take_while(|l| user_turn_text(l).is_some())
            .count();
        if let Some(at) = lines.len().checked_sub(turns + 1) {
            if serde_json::from_str::<Value>(&lines[at]).is_ok_and(|v| !tool_use_ids(&v).is_empty())
            {
                lines.remove(at);
            }
        }
        let mut lines = repair(lines);
        let mut texts = Vec::new();
        while let Some(t) = lines.last().and_then(|l| user_turn_text(l)) {
            texts.push(t);
            lines.pop();
        }
        if !texts.is_empty() {
            texts.reverse();
            lines.push(user_text_line(&texts.join("\n\n")));
        }
        lines
    }

    fn user_turn_text(line: &str) -> Option<String> {
        let v: Value = serde_json::from_str(line).ok()?;
        if v.get("role").and_then(Value::as_str) != Some("user") {
            return None;
        }
        v.get("content").and_then(Value::as_str).map(String::from)
    }

    fn lost(ids: Vec<String>) -> String {
        let r: Vec<(String, String)> = ids
            .into_iter()
            .map(|id| {
                (
                    id,
                    "Error: tool result lost (the run was interrupted)".into(),
                )
            })
            .collect();
        tool_results_line(&r)
    }

    fn repair(lines: Vec<String>) -> Vec<String> {
        let mut out = Vec::new();
        let mut pending: Vec<String> = Vec::new();
        for l in lines {
            let v: Value = serde_json::from_str(&l).unwrap_or(Value::Null);
            let results = tool_result_ids(&v);
            if !pending.is_empty() {
                let missing: Vec<String> = pending
                    .iter()
                    .filter(|id| !results.contains(id))
                    .cloned()
                    .collect();
                if !missing.is_empty() && results.is_empty() {
                    out.push(lost(missing));
                }
                pending.clear();
            }
            pending = tool_use_ids(&v);
            out.push(l);
        }
        if !pending.is_empty() {
            out.push(lost(pending));
        }
        out
    }
}

/// A session of `n` turns with every kind of line the reader meets.
fn long_session(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let t = conv::ToolUse {
            id: format!("toolu_{i}"),
            name: "Bash".into(),
            input_raw: format!(r#"{{"command": "echo {i} \"q\" é"}}"#),
        };
        s.push_str(&conv::user_text_line(&format!("task {i}: fix \"it\" ✓\n")));
        s.push('\n');
        s.push_str(&conv::assistant_line(
            if i % 3 == 0 { "" } else { "thinking…" },
            if i % 5 == 0 { "" } else { "ok" },
            std::slice::from_ref(&t),
        ));
        s.push('\n');
        match i % 7 {
            // results lost (crash): the reader adds them
            0 => {}
            // corrupt line and a blank one, CRLF ending
            1 => s.push_str("{\"role\":\"user\",\"content\":[\n\n"),
            2 => {
                s.push_str(&conv::tool_results_line(&[(
                    t.id.clone(),
                    "out\r\n".into(),
                )]));
                s.push_str("\r\n");
            }
            // a line whose typed read falls back to the full parse
            3 => {
                s.push_str(&conv::tool_results_line(&[(t.id.clone(), "x".into())]));
                s.push_str("\n{\"role\":\"user\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"dup\"}]}\n");
            }
            _ => {
                s.push_str(&conv::tool_results_line(&[(
                    t.id.clone(),
                    format!("result {i}"),
                )]));
                s.push('\n');
            }
        }
        s.push_str(&conv::assistant_line("", &format!("done {i}"), &[]));
        s.push('\n');
    }
    // A dangling tail: tool calls without results, then two user turns never answered.
    let t = conv::ToolUse {
        id: "toolu_tail".into(),
        name: "Read".into(),
        input_raw: "{}".into(),
    };
    s.push_str(&conv::assistant_line("", "", &[t]));
    s.push('\n');
    s.push_str("{\"role\":\"user\",\"content\":\"again\"}\n  {\"role\":\"user\", \"content\":\"and again\"}\n");
    s
}

fn cfg(kind: ProviderKind, base: &str) -> ProviderConfig {
    ProviderConfig {
        kind,
        model: "m-1".into(),
        api_key: String::new(),
        base_url: base.into(),
        max_tokens: 1000,
        effort: None,
        thinking: None,
        verbose: false,
    }
}

/// The previous Claude body: one string, every (cleaned) line appended between the
/// fields, which are those of an empty request.
fn reference_claude_body(c: &ProviderConfig, req: &Request) -> String {
    let strict = c.base_url.contains("://api.anthropic.com");
    let msgs: Vec<String> = req
        .messages
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            if strict {
                bash_agent::provider::body::strict_anthropic_line(l)
            } else {
                l.to_string()
            }
        })
        .collect();
    let empty = build_body(
        c.kind,
        c,
        &Request {
            messages: &[],
            ..req.clone()
        },
    );
    let (head, tail) = empty.split_once("\"messages\":[]").unwrap();
    format!("{head}\"messages\":[{}]{tail}", msgs.join(","))
}

#[test]
fn long_session_request_equals_the_previous_builder() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("conversation.jsonl");
    std::fs::write(&p, long_session(600)).unwrap();
    let new = conv::message_lines(&p);
    let old = reference::message_lines(&p);
    assert_eq!(new.len(), old.len());
    assert_eq!(new, old);
    let tools = bash_agent::tools::TOOLS_JSON;
    for (kind, base) in [
        (ProviderKind::Claude, "http://127.0.0.1:9/v1"),
        (ProviderKind::Claude, "https://api.anthropic.com/v1"),
        (ProviderKind::OpenAi, "http://127.0.0.1:9/v1"),
        (ProviderKind::Responses, "https://api.deepseek.com"),
    ] {
        let c = cfg(kind, base);
        let req = |m| Request {
            system: "sys",
            messages: m,
            tools_json: tools,
            disable_thinking: false,
        };
        let body = build_body(kind, &c, &req(&new));
        assert_eq!(body, build_body(kind, &c, &req(&old)), "{kind:?} {base}");
        assert!(serde_json::from_str::<Value>(&body).is_ok());
        if kind == ProviderKind::Claude {
            // Byte for byte against the previous one-string builder where no cache
            // breakpoint moves a line (docs/providers.md#prompt-caching).
            if !base.contains("anthropic.com") {
                assert_eq!(body, reference_claude_body(&c, &req(&old)), "{base}");
            } else {
                let v: Value = serde_json::from_str(&body).unwrap();
                assert_eq!(v["messages"].as_array().unwrap().len(), old.len());
            }
            if !base.contains("anthropic.com") {
                // Unchanged lines go out as their stored bytes.
                assert!(body.contains(&format!(",{},", old[3])));
            }
        }
    }
}
