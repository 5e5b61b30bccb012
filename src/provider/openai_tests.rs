//! Tests of `openai.rs`: bodies (golden, per host and model) and the stream normaliser.
use crate::provider::body::tests::{cfg, convo, TOOLS};
use crate::provider::norm::run_text;
use crate::provider::{ProviderKind, Request, StreamEvent};
use crate::session::stats::Usage;

#[test]
fn body_golden() {
    let msgs = convo();
    let req = Request {
        system: "sys",
        messages: &msgs,
        tools_json: TOOLS,
        disable_thinking: false,
    };
    let got = super::build_body(&cfg(ProviderKind::OpenAi, "adaptive"), &req);
    let want = concat!(
        r#"{"model":"m-1","max_tokens":100,"stream":true,"stream_options":{"include_usage":true},"#,
        r#""thinking":{"type":"enabled"},"reasoning_effort":"high","#,
        r#""tools":[{"type":"function","function":{"name":"Read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}],"#,
        r#""messages":[{"role":"system","content":"sys"},{"role":"user","content":"hi"},"#,
        r#"{"role":"assistant","reasoning_content":"hmm","content":"ok","tool_calls":[{"id":"t1","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a\"}"}}]},"#,
        r#"{"role":"tool","tool_call_id":"t1","content":"data"}]}"#
    );
    assert_eq!(got, want);
}

#[test]
fn body_without_thinking_or_tools() {
    let msgs = vec![r#"{"role":"user","content":"x"}"#.to_string()];
    let req = Request {
        system: "",
        messages: &msgs,
        tools_json: "",
        disable_thinking: true,
    };
    let got = super::build_body(&cfg(ProviderKind::OpenAi, "adaptive"), &req);
    assert_eq!(
        got,
        r#"{"model":"m-1","max_tokens":100,"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}"#
    );
}

fn official(model: &str, base: &str, thinking: &str) -> String {
    let msgs = convo();
    let mut c = cfg(ProviderKind::OpenAi, thinking);
    c.model = model.into();
    c.base_url = base.into();
    c.effort = None;
    let req = Request {
        system: "",
        messages: &msgs,
        tools_json: "",
        disable_thinking: false,
    };
    super::build_body(&c, &req)
}

#[test]
fn official_openai_gets_only_documented_fields() {
    let api = "https://api.openai.com/v1";
    for m in ["gpt-5.5", "gpt-5", "o3", "gpt-5-mini-2025-08-07"] {
        let b = official(m, api, "");
        assert!(b.contains(r#""max_completion_tokens":100"#), "{m}: {b}");
        assert!(!b.contains("max_tokens\""), "{m}");
        assert!(!b.contains("\"thinking\""), "{m}");
        assert!(!b.contains("reasoning_content"), "{m}");
        assert!(b.contains(r#""reasoning_effort":"high""#), "{m}");
        assert!(b.contains(r#""stream_options":{"include_usage":true}"#));
    }
    for m in ["gpt-4o", "gpt-4.1", "gpt-4o-mini"] {
        let b = official(m, api, "");
        assert!(b.contains(r#""max_tokens":100"#), "{m}");
        assert!(!b.contains("reasoning_effort"), "{m}");
        assert!(!b.contains("\"thinking\""), "{m}");
    }
    // An effort the model lacks becomes the nearest one it has.
    let mut c = cfg(ProviderKind::OpenAi, "");
    c.model = "o3".into();
    c.base_url = api.into();
    c.effort = Some(crate::options::Effort::Max);
    let req = Request {
        system: "",
        messages: &[],
        tools_json: "",
        disable_thinking: false,
    };
    assert!(super::build_body(&c, &req).contains(r#""reasoning_effort":"high""#));
    // Thinking off: no effort at all.
    assert!(!official("gpt-5.5", api, "disabled").contains("reasoning_effort"));
}

#[test]
fn deepseek_chat_gets_thinking_and_reasoning_content() {
    let b = official("deepseek-v4-flash", "https://api.deepseek.com", "");
    assert!(b.contains(r#""max_tokens":100"#));
    assert!(b.contains(r#""thinking":{"type":"enabled"},"reasoning_effort":"high""#));
    assert!(b.contains(r#""reasoning_content":"hmm""#));
    let b = official("deepseek-v4-flash", "https://api.deepseek.com", "disabled");
    assert!(b.contains(r#""thinking":{"type":"disabled"}"#));
    assert!(!b.contains("reasoning_effort"));
}

#[test]
fn stream_with_tools_and_usage() {
    let s = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"think\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\n\\n\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\nHello\\n\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"Read\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\\\"a\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":4,\"prompt_tokens_details\":{\"cached_tokens\":10}}}\n\n",
        "data: [DONE]\n\n",
    );
    let (ev, _) = run_text(ProviderKind::OpenAi, s.as_bytes());
    assert_eq!(
        ev,
        vec![
            StreamEvent::Thinking("think".into()),
            StreamEvent::Text("Hello\n".into()),
            StreamEvent::ToolInputDelta(12),
            StreamEvent::ToolCall {
                name: "Read".into(),
                id: "c1".into(),
                input_raw: "{\"path\":\"a\"}".into()
            },
            StreamEvent::Usage {
                usage: Usage {
                    input: 20,
                    output: 4,
                    cache_read: 10,
                    cache_creation: 0
                },
                speed: 0
            },
            StreamEvent::Stop("tool_use".into()),
        ]
    );
}

#[test]
fn done_without_finish_reason_is_interrupted() {
    let s = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n";
    let (ev, _) = run_text(ProviderKind::OpenAi, s.as_bytes());
    assert_eq!(
        ev.last(),
        Some(&StreamEvent::Error(
            "Stream interrupted ([DONE] without a finish_reason)".into()
        ))
    );
}

#[test]
fn deepseek_cache_hits_are_read_as_cache_reads() {
    let s = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":4,\"prompt_cache_hit_tokens\":896,\"prompt_cache_miss_tokens\":104}}\n\n",
        "data: [DONE]\n\n",
    );
    let (ev, _) = run_text(ProviderKind::OpenAi, s.as_bytes());
    let usage = ev.iter().find_map(|e| match e {
        StreamEvent::Usage { usage, .. } => Some(*usage),
        _ => None,
    });
    let u = usage.unwrap();
    assert_eq!((u.input, u.cache_read, u.output), (104, 896, 4));
}
