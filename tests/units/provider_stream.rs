//! Round trips through `provider::stream_with` against the real mock-server binary, for
//! all three providers: exact event sequences and the golden request bodies it recorded.

use crate::support::provider::*;
use crate::support::Mock;
use bash_agent::provider::{ProviderKind, StreamEvent};
use bash_agent::session::stats::Usage;
use bash_agent::util::cancel::Cancel;

const SCRIPT: &str = r#"[
  {"thinking": "Let me look", "text": "Reading it.", "chunk": 4,
   "tool_calls": [{"name": "Read", "id": "toolu_1", "input": {"path": "a.txt"}}],
   "usage": {"input": 100, "output": 20, "cache_read": 50, "cache_creation": 7}},
  {"text": "Done: hello", "usage": {"input": 150, "output": 5}}
]"#;

const ASSISTANT: &str = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"Let me look"},{"type":"text","text":"Reading it."},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"path":"a.txt"}}]}"#;
const RESULT: &str = r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"hello"}]}"#;

fn text(s: &str) -> StreamEvent {
    StreamEvent::Text(s.into())
}
fn think(s: &str) -> StreamEvent {
    StreamEvent::Thinking(s.into())
}

fn golden_second_body(kind: ProviderKind) -> String {
    let tools_claude = TOOLS;
    match kind {
        ProviderKind::Claude => format!(
            concat!(
                r#"{{"max_tokens":1000,"messages":[{{"role":"user","content":"read a.txt"}},{},{}],"#,
                r#""model":"mock-model","output_config":{{"effort":"high"}},"stream":true,"#,
                r#""system":"You are a test.","thinking":{{"type":"adaptive"}},"tools":{}}}"#
            ),
            ASSISTANT, RESULT, tools_claude
        ),
        ProviderKind::OpenAi => concat!(
            r#"{"model":"mock-model","max_tokens":1000,"stream":true,"stream_options":{"include_usage":true},"#,
            r#""thinking":{"type":"enabled"},"reasoning_effort":"high","#,
            r#""tools":[{"type":"function","function":{"name":"Read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}],"#,
            r#""messages":[{"role":"system","content":"You are a test."},{"role":"user","content":"read a.txt"},"#,
            r#"{"role":"assistant","reasoning_content":"Let me look","content":"Reading it.","tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a.txt\"}"}}]},"#,
            r#"{"role":"tool","tool_call_id":"toolu_1","content":"hello"}]}"#
        )
        .to_string(),
        ProviderKind::Responses => concat!(
            r#"{"model":"mock-model","input":[{"role":"user","content":"read a.txt"},"#,
            r#"{"role":"assistant","content":"Reading it."},"#,
            r#"{"type":"function_call","call_id":"toolu_1","name":"Read","arguments":"{\"path\":\"a.txt\"}"},"#,
            r#"{"type":"function_call_output","call_id":"toolu_1","output":"hello"}],"#,
            r#""max_output_tokens":1000,"stream":true,"instructions":"You are a test.","reasoning":{"effort":"high"},"#,
            r#""tools":[{"type":"function","name":"Read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}"#
        )
        .to_string(),
    }
}

fn round_trip(kind: ProviderKind) {
    let mock = Mock::start(SCRIPT);
    let cfg = mock.cfg(kind);
    let cancel = Cancel::new();
    let opts = fast_opts();

    let mut msgs = vec![user("read a.txt")];
    let (mut ev, info) = run(&cfg, &msgs, &opts, &cancel);
    let cache_creation = if kind == ProviderKind::Claude { 7 } else { 0 };
    if kind == ProviderKind::Responses {
        // The reasoning item (encrypted content) comes after the reasoning text.
        let r = ev.remove(3);
        assert!(
            matches!(&r, StreamEvent::Reasoning(j) if j.contains("\"encrypted_content\"")),
            "{r:?}"
        );
    }
    // Anthropic signs its thinking block: the signature comes when the block ends.
    let signed: Vec<StreamEvent> = if kind == ProviderKind::Claude {
        vec![StreamEvent::ThinkingSignature("bW9jaw==".into())]
    } else {
        Vec::new()
    };
    assert_eq!(
        ev,
        [
            vec![think("Let "), think("me l"), think("ook")],
            signed,
            vec![
                text("Read"),
                text("ing "),
                text("it."),
                StreamEvent::ToolCall {
                    name: "Read".into(),
                    id: "toolu_1".into(),
                    input_raw: r#"{"path":"a.txt"}"#.into()
                },
                StreamEvent::Usage {
                    usage: Usage {
                        input: 100,
                        output: 20,
                        cache_read: 50,
                        cache_creation
                    },
                    speed: 0
                },
                StreamEvent::Stop("tool_use".into()),
            ],
        ]
        .concat(),
        "{kind:?}"
    );
    assert_eq!(info.retries, 0);
    assert!(info.first_token_ms.is_some());
    assert!(info.elapsed_ms >= info.first_token_ms.unwrap_or(0));

    msgs.push(ASSISTANT.into());
    msgs.push(RESULT.into());
    let (ev, _) = run(&cfg, &msgs, &opts, &cancel);
    assert_eq!(
        ev,
        vec![
            text("Done: hello"),
            StreamEvent::Usage {
                usage: Usage {
                    input: 150,
                    output: 5,
                    cache_read: 0,
                    cache_creation: 0
                },
                speed: 0
            },
            StreamEvent::Stop("end_turn".into()),
        ],
        "{kind:?}"
    );

    let recs = mock.records();
    assert_eq!(recs.len(), 2);
    assert_eq!(
        recs[1]["body"].to_string(),
        golden_second_body(kind),
        "{kind:?}"
    );
    let path = recs[0]["path"].as_str().unwrap();
    let h = &recs[0]["headers"];
    assert_eq!(
        h["user-agent"],
        format!("bash-agent/{}", env!("CARGO_PKG_VERSION"))
    );
    assert_eq!(h["content-type"], "application/json");
    match kind {
        ProviderKind::Claude => {
            assert_eq!(path, "/v1/messages");
            assert_eq!(h["x-api-key"], "<redacted>");
            assert_eq!(h["anthropic-version"], "2023-06-01");
            assert_eq!(h["x-app"], "cli");
        }
        ProviderKind::OpenAi => {
            assert_eq!(path, "/chat/completions");
            assert_eq!(h["authorization"], "<redacted>");
        }
        ProviderKind::Responses => {
            assert_eq!(path, "/responses");
            assert_eq!(h["authorization"], "<redacted>");
        }
    }
    let raw = std::fs::read_to_string(&mock.record).unwrap();
    assert!(
        !raw.contains("sk-test-secret"),
        "API key leaked into the record"
    );
}

#[test]
fn round_trip_claude() {
    round_trip(ProviderKind::Claude);
}

#[test]
fn round_trip_openai() {
    round_trip(ProviderKind::OpenAi);
}

#[test]
fn round_trip_responses() {
    round_trip(ProviderKind::Responses);
}

#[test]
fn no_key_sends_no_auth_and_thinking_off_omits_fields() {
    let mock = Mock::start(r#"[{"text": "hi", "repeat": true}]"#);
    for kind in KINDS {
        let mut cfg = mock.cfg(kind);
        cfg.api_key.clear();
        cfg.thinking = Some(bash_agent::options::Thinking::Disabled);
        let (ev, _) = run(&cfg, &[user("x")], &fast_opts(), &Cancel::new());
        assert_eq!(ev.last(), Some(&StreamEvent::Stop("end_turn".into())));
    }
    let recs = mock.records();
    assert_eq!(recs.len(), 3);
    for r in &recs {
        assert!(r["headers"].get("authorization").is_none());
        assert!(r["headers"].get("x-api-key").is_none());
        let body = r["body"].to_string();
        for f in ["thinking", "output_config", "reasoning"] {
            assert!(!body.contains(&format!("\"{f}\"")), "{body}");
        }
    }
}
