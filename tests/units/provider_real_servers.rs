//! What real model servers do, replayed through the scripted server byte for byte where a
//! real server cannot be made to do it on demand: LiteLLM's fragmented Anthropic tool
//! calls and its 400 for unknown parameters, llama-cpp-python's streams without usage,
//! empty 200 answers, keep-alive comments during a stall, a gateway silent until the
//! first token, and the errors a mistyped base URL produces.

use crate::support::provider::*;
use crate::support::Mock;
use bash_agent::options::{Effort, Thinking};
use bash_agent::provider::{HttpOptions, ProviderKind, StreamEvent};
use bash_agent::util::cancel::Cancel;
use std::time::Duration;

fn sse(name: &str, data: &str) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// A stream captured byte for byte under tests/fixtures, one write per SSE event (as the
/// proxy flushed them).
fn captured(file: &str) -> Vec<serde_json::Value> {
    let path = format!("{}/tests/fixtures/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .unwrap()
        .split_inclusive("\n\n")
        .map(|e| serde_json::Value::String(e.to_string()))
        .collect()
}

/// The Anthropic stream LiteLLM 1.108.7 (`/v1/messages`, `model: llamafile/…`) made of
/// llama.cpp-style chat deltas that repeat the call's id and name in every fragment: one
/// `tool_use` block per argument fragment, all with the same id and name, each closed
/// before the next opens.
fn litellm_fragmented_tool_stream() -> Vec<serde_json::Value> {
    let raw = captured("litellm-1.108.7-anthropic-tool-fragments.sse");
    let starts = raw
        .iter()
        .filter(|e| e.to_string().contains("event: content_block_start"));
    assert_eq!(starts.count(), 8);
    raw
}

/// The events of one Claude call against `raw`, and its tool calls.
fn claude_calls(raw: Vec<serde_json::Value>) -> (Vec<StreamEvent>, Vec<StreamEvent>) {
    let mock = Mock::start(&script_raw(raw));
    let (ev, _) = run(
        &mock.cfg(ProviderKind::Claude),
        &[user("run echo")],
        &fast_opts(),
        &Cancel::new(),
    );
    let calls = ev
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolCall { .. }))
        .cloned()
        .collect();
    (ev, calls)
}

fn script_raw(raw: Vec<serde_json::Value>) -> String {
    serde_json::json!([{ "raw": raw }]).to_string()
}

fn errors(ev: &[StreamEvent]) -> Vec<&str> {
    ev.iter()
        .filter_map(|e| match e {
            StreamEvent::Error(m) => Some(m.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn litellm_tool_use_fragments_sharing_an_id_are_one_call() {
    let (ev, calls) = claude_calls(litellm_fragmented_tool_stream());
    assert_eq!(
        calls,
        vec![StreamEvent::ToolCall {
            name: "Bash".into(),
            id: "call_abc".into(),
            input_raw: r#"{"command": "echo hi"}"#.into(),
        }],
        "{ev:?}"
    );
    assert_eq!(ev.last(), Some(&StreamEvent::Stop("tool_use".into())));
}

/// LiteLLM 1.108.7 on `/v1/messages` in front of llama-cpp-python, captured byte for byte:
/// after the fragment that completes the arguments it opens and closes one more block with
/// the same id and no fragment. That block is not a second (empty) call.
#[test]
fn litellm_trailing_empty_block_of_the_same_id_is_no_second_call() {
    let (ev, calls) = claude_calls(captured(
        "litellm-1.108-anthropic-tool-trailing-empty-block.sse",
    ));
    assert_eq!(
        calls,
        vec![StreamEvent::ToolCall {
            name: "Bash".into(),
            id: "call__0_Bash_cmpl-1e611468-bf85-464e-ad39-0585e024ccd9".into(),
            input_raw: r#"{"command": "echo hello"}"#.into(),
        }],
        "{ev:?}"
    );
}

#[test]
fn two_calls_with_different_ids_stay_two() {
    let mut raw = vec![sse(
        "message_start",
        r#"{"type":"message_start","message":{"usage":{"input_tokens":3}}}"#,
    )];
    for (i, id) in ["a", "b"].iter().enumerate() {
        raw.push(sse("content_block_start", &format!(r#"{{"type":"content_block_start","index":{i},"content_block":{{"type":"tool_use","id":"{id}","name":"Read","input":{{}}}}}}"#)));
        raw.push(sse("content_block_delta", &format!(r#"{{"type":"content_block_delta","index":{i},"delta":{{"type":"input_json_delta","partial_json":"{{\"path\":\"{id}\"}}"}}}}"#)));
        raw.push(sse(
            "content_block_stop",
            &format!(r#"{{"type":"content_block_stop","index":{i}}}"#),
        ));
    }
    raw.push(sse(
        "message_delta",
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#,
    ));
    raw.push(sse("message_stop", r#"{"type":"message_stop"}"#));
    let mock = Mock::start(&script_raw(
        raw.into_iter().map(serde_json::Value::String).collect(),
    ));
    let (ev, _) = run(
        &mock.cfg(ProviderKind::Claude),
        &[user("x")],
        &fast_opts(),
        &Cancel::new(),
    );
    let ids: Vec<&str> = ev
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCall { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["a", "b"]);
}

#[test]
fn default_flags_send_no_reasoning_fields_to_a_local_server() {
    let mock = Mock::start(r#"[{"text": "hi", "repeat": true}]"#);
    for kind in KINDS {
        let mut cfg = mock.cfg(kind);
        cfg.effort = None;
        cfg.thinking = None;
        let (ev, _) = run(&cfg, &[user("x")], &fast_opts(), &Cancel::new());
        assert_eq!(ev.last(), Some(&StreamEvent::Stop("end_turn".into())));
    }
    for r in mock.records() {
        let body = r["body"].to_string();
        for f in ["thinking", "output_config", "reasoning_effort", "reasoning"] {
            assert!(!body.contains(&format!("\"{f}\"")), "{body}");
        }
    }
}

/// LiteLLM 1.108.7's message for reasoning fields its `llamafile/` backend lacks.
const LITELLM_400: &str = "litellm.UnsupportedParamsError: llamafile does not support parameters: ['reasoning_effort', 'thinking'], for model=smollm2. To drop these, set `litellm.drop_params=True` or for proxy:\n\n`litellm_settings:\n drop_params: true`\n. \n If you want to use these params dynamically send allowed_openai_params=['reasoning_effort', 'thinking'] in your request.\n\nLiteLLM: model group 'smollm2' failed with the error above. No fallback was attempted.";

#[test]
fn unsupported_parameter_400_is_retried_once_without_optional_fields_and_remembered() {
    for kind in KINDS {
        let script = serde_json::json!([
            {"status": 400, "message": LITELLM_400},
            {"text": "first"},
            {"text": "second"}
        ])
        .to_string();
        let mock = Mock::start(&script);
        let mut cfg = mock.cfg(kind);
        cfg.effort = Some(Effort::High);
        cfg.thinking = Some(Thinking::Enabled);
        let (ev, info) = run(&cfg, &[user("x")], &fast_opts(), &Cancel::new());
        assert!(errors(&ev).is_empty(), "{kind:?}: {ev:?}");
        assert!(!ev.contains(&StreamEvent::Retry), "{kind:?}: {ev:?}");
        assert_eq!(info.retries, 0);
        let (ev2, _) = run(&cfg, &[user("y")], &fast_opts(), &Cancel::new());
        assert_eq!(ev2.last(), Some(&StreamEvent::Stop("end_turn".into())));
        let recs = mock.records();
        assert_eq!(recs.len(), 3, "{kind:?}: the later call goes lean at once");
        let has_reasoning = |i: usize| {
            let b = recs[i]["body"].to_string();
            [
                "\"thinking\"",
                "\"reasoning_effort\"",
                "\"reasoning\"",
                "\"output_config\"",
            ]
            .iter()
            .any(|f| b.contains(f))
        };
        assert!(has_reasoning(0), "{kind:?}");
        assert!(!has_reasoning(1), "{kind:?}");
        assert!(!has_reasoning(2), "{kind:?}");
    }
}

#[test]
fn a_400_for_other_reasons_is_not_retried() {
    let mock =
        Mock::start(r#"[{"status": 400, "message": "prompt is too long"}, {"text": "never"}]"#);
    let (ev, _) = run(
        &mock.cfg(ProviderKind::OpenAi),
        &[user("x")],
        &fast_opts(),
        &Cancel::new(),
    );
    assert_eq!(errors(&ev).len(), 1);
    assert_eq!(mock.records().len(), 1);
}

#[test]
fn a_stream_without_usage_gets_an_estimate() {
    // llama-cpp-python 0.3: chat chunks, a finish_reason, [DONE], and no usage at all.
    let chunk = |c: &str, fin: &str| {
        format!(
            "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"smollm2\",\"choices\":[{{\"index\":0,\"delta\":{c},\"logprobs\":null,\"finish_reason\":{fin}}}]}}\r\n\r\n"
        )
    };
    let raw = vec![
        chunk(r#"{"role":"assistant"}"#, "null"),
        chunk(
            r#"{"content":"Hello there, how can I help you today?"}"#,
            "null",
        ),
        chunk("{}", "\"stop\""),
        "data: [DONE]\r\n\r\n".to_string(),
    ];
    let mock = Mock::start(&script_raw(
        raw.into_iter().map(serde_json::Value::String).collect(),
    ));
    let (ev, info) = run(
        &mock.cfg(ProviderKind::OpenAi),
        &[user("hello")],
        &fast_opts(),
        &Cancel::new(),
    );
    let usage = ev
        .iter()
        .find_map(|e| match e {
            StreamEvent::Usage { usage, .. } => Some(*usage),
            _ => None,
        })
        .expect("a usage event");
    assert!(info.usage_estimated);
    assert!(usage.input > 0 && usage.output > 0, "{usage:?}");
    // "Hello there, how can I help you today?" is 38 bytes: about 10 tokens.
    assert_eq!(usage.output, 10);
}

#[test]
fn reported_usage_is_not_marked_estimated() {
    let mock = Mock::start(r#"[{"text": "hi", "usage": {"input": 7, "output": 2}}]"#);
    let (_, info) = run(
        &mock.cfg(ProviderKind::OpenAi),
        &[user("x")],
        &fast_opts(),
        &Cancel::new(),
    );
    assert!(!info.usage_estimated);
}

#[test]
fn an_empty_200_is_reported_in_each_providers_words() {
    for kind in KINDS {
        let mock = Mock::start(r#"[{"raw": []}]"#);
        let (ev, _) = run(&mock.cfg(kind), &[user("x")], &fast_opts(), &Cancel::new());
        let e = errors(&ev);
        assert_eq!(e.len(), 1, "{kind:?}: {ev:?}");
        assert!(
            e[0].contains("the server sent an empty response"),
            "{}",
            e[0]
        );
        let terminal = match kind {
            ProviderKind::Claude => "message_stop",
            ProviderKind::OpenAi => "[DONE]",
            ProviderKind::Responses => "response.completed",
        };
        assert!(e[0].contains(terminal), "{kind:?}: {}", e[0]);
        if kind != ProviderKind::Claude {
            assert!(!e[0].contains("message_stop"), "{kind:?}: {}", e[0]);
        }
    }
}

#[test]
fn http_errors_name_the_url_and_a_hint() {
    let mock = Mock::start(r#"[{"status": 404, "message": "Not Found", "repeat": true}]"#);
    let mut cfg = mock.cfg(ProviderKind::Claude);
    cfg.base_url = mock.url.clone(); // without /v1
    let (ev, _) = run(&cfg, &[user("x")], &fast_opts(), &Cancel::new());
    assert_eq!(
        errors(&ev),
        [format!(
            "HTTP 404: Not Found (POST {}/messages; Anthropic base URLs end in /v1)",
            mock.url
        )
        .as_str()]
    );
    let mock = Mock::start(r#"[{"status": 400, "message": "No connected db."}]"#);
    let (ev, _) = run(
        &mock.cfg(ProviderKind::OpenAi),
        &[user("x")],
        &fast_opts(),
        &Cancel::new(),
    );
    let e = errors(&ev);
    assert!(e[0].contains("check the API key"), "{}", e[0]);
}

#[test]
fn keep_alive_comments_and_pings_do_not_reset_the_stall_timer() {
    let mut raw: Vec<serde_json::Value> = vec![
        sse(
            "message_start",
            r#"{"type":"message_start","message":{"usage":{"input_tokens":3}}}"#,
        )
        .into(),
        sse(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        )
        .into(),
        sse(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"begun"}}"#,
        )
        .into(),
    ];
    // Far longer than the stall limit in keep-alives, each well inside it.
    for i in 0..40 {
        raw.push(50.into());
        raw.push(if i % 2 == 0 {
            ": ping\n\n".into()
        } else {
            sse("ping", r#"{"type": "ping"}"#).into()
        });
    }
    raw.push(sse("message_stop", r#"{"type":"message_stop"}"#).into());
    let mock = Mock::start(&script_raw(raw));
    let opts = HttpOptions {
        stall: Duration::from_millis(400),
        ..fast_opts()
    };
    let (ev, info) = run(
        &mock.cfg(ProviderKind::Claude),
        &[user("x")],
        &opts,
        &Cancel::new(),
    );
    assert_eq!(ev[0], StreamEvent::Text("begun".into()));
    assert_eq!(
        errors(&ev),
        ["Stream interrupted (no message_stop received): no content for 0.4 s (BASH_AGENT_STALL_MS sets the limit)"]
    );
    assert_eq!(info.retries, 0, "an answer that had begun is never resent");
    assert_eq!(mock.records().len(), 1);
}

#[test]
fn a_silent_gateway_meets_the_first_byte_limit_and_is_not_resent() {
    let mock = Mock::start(r#"[{"text": "late", "head_delay_ms": 3000}, {"text": "never"}]"#);
    let opts = HttpOptions {
        first_byte: Duration::from_millis(300),
        stall: Duration::from_millis(100),
        ..fast_opts()
    };
    let (ev, info) = run(
        &mock.cfg(ProviderKind::OpenAi),
        &[user("x")],
        &opts,
        &Cancel::new(),
    );
    let e = errors(&ev);
    assert_eq!(e.len(), 1, "{ev:?}");
    assert!(
        e[0].starts_with("no response from POST ") && e[0].contains("within 0.3 s"),
        "{}",
        e[0]
    );
    assert_eq!(info.retries, 0);
    assert_eq!(mock.records().len(), 1);
}

#[test]
fn a_slow_first_byte_inside_the_limit_is_waited_for() {
    // Slower than the stall limit, inside the first-byte limit: a CPU prefill.
    let mock = Mock::start(r#"[{"text": "worth the wait", "head_delay_ms": 600}]"#);
    let opts = HttpOptions {
        first_byte: Duration::from_secs(20),
        stall: Duration::from_millis(200),
        ..fast_opts()
    };
    let (ev, info) = run(
        &mock.cfg(ProviderKind::Claude),
        &[user("x")],
        &opts,
        &Cancel::new(),
    );
    assert_eq!(
        ev.last(),
        Some(&StreamEvent::Stop("end_turn".into())),
        "{ev:?}"
    );
    assert_eq!(info.retries, 0);
}

#[test]
fn verbose_says_when_optional_fields_are_dropped() {
    // The -v note goes to stderr of the real binary.
    let mock = Mock::start(
        &serde_json::json!([{"status": 400, "message": LITELLM_400}, {"text": "ok"}]).to_string(),
    );
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bash-agent"))
        .current_dir(cwd.path())
        .env("BASH_AGENT_HOME", home.path())
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("DEEPSEEK_API_KEY")
        .args([
            "-v",
            "-p",
            "openai",
            "--base-url",
            &mock.url,
            "--effort",
            "low",
            "hi",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("does not support an optional field") && err.contains("retrying without"),
        "{err}"
    );
}
