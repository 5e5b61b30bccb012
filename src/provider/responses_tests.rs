//! Tests of `responses.rs`: bodies (golden, per host and model) and the stream normaliser.
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
    let got = super::build_body(&cfg(ProviderKind::Responses, "enabled"), &req);
    let want = concat!(
        r#"{"model":"m-1","input":[{"role":"user","content":"hi"},"#,
        r#"{"role":"assistant","content":"ok"},"#,
        r#"{"type":"function_call","call_id":"t1","name":"Read","arguments":"{\"path\":\"a\"}"},"#,
        r#"{"type":"function_call_output","call_id":"t1","output":"data"}],"#,
        r#""max_output_tokens":100,"stream":true,"instructions":"sys","reasoning":{"effort":"high"},"#,
        r#""tools":[{"type":"function","name":"Read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}]}"#
    );
    assert_eq!(got, want);
}

#[test]
fn official_responses_is_stateless_and_replays_reasoning() {
    let msgs = vec![
        r#"{"role":"user","content":"hi"}"#.to_string(),
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"","responses_reasoning":{"host":"api.openai.com","items":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"}]}},{"type":"text","text":""},{"type":"tool_use","id":"c1","name":"Read","input":{}}]}"#.to_string(),
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"x"}]}"#.to_string(),
    ];
    let req = Request {
        system: "",
        messages: &msgs,
        tools_json: "",
        disable_thinking: false,
    };
    let mut c = cfg(ProviderKind::Responses, "");
    c.model = "gpt-5.5".into();
    c.base_url = "https://api.openai.com/v1".into();
    c.effort = None;
    let b = super::build_body(&c, &req);
    assert!(b.contains(r#""store":false"#), "{b}");
    assert!(
        b.contains(r#""reasoning":{"effort":"high"},"include":["reasoning.encrypted_content"]"#)
    );
    let rs = b.find(r#""type":"reasoning""#).unwrap();
    let fc = b.find(r#""type":"function_call""#).unwrap();
    assert!(rs < fc, "reasoning item before its function call: {b}");
    // Another host cannot read the items: not sent.
    c.base_url = "https://api.deepseek.com".into();
    c.model = "deepseek-v4-flash".into();
    let b = super::build_body(&c, &req);
    assert!(!b.contains("rs_1") && !b.contains("store") && !b.contains("include"));
    // gpt-4o takes no reasoning field.
    c.base_url = "https://api.openai.com/v1".into();
    c.model = "gpt-4o".into();
    let b = super::build_body(&c, &req);
    assert!(
        !b.contains("\"reasoning\":{") && !b.contains("include") && b.contains("\"store\":false")
    );
}

#[test]
fn stream_with_tool() {
    let s = concat!(
        "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{}}\n\n",
        "event: response.reasoning_text.delta\ndata: {\"type\":\"response.reasoning_text.delta\",\"delta\":\"r\"}\n\n",
        "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":1,\"delta\":\"\\nOK\"}\n\n",
        "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":2,\"item\":{\"type\":\"function_call\",\"id\":\"fc\",\"call_id\":\"c9\",\"name\":\"Read\",\"arguments\":\"\"}}\n\n",
        "event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc\",\"delta\":\"{\\\"p\\\":1}\"}\n\n",
        "data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":9,\"input_tokens_details\":{\"cached_tokens\":4},\"output_tokens\":3}}}\n\n",
    );
    let (ev, _) = run_text(ProviderKind::Responses, s.as_bytes());
    assert_eq!(
        ev,
        vec![
            StreamEvent::Thinking("r".into()),
            StreamEvent::Text("OK".into()),
            StreamEvent::ToolInputDelta(7),
            StreamEvent::ToolCall {
                name: "Read".into(),
                id: "c9".into(),
                input_raw: "{\"p\":1}".into()
            },
            StreamEvent::Usage {
                usage: Usage {
                    input: 5,
                    output: 3,
                    cache_read: 4,
                    cache_creation: 0
                },
                speed: 0
            },
            StreamEvent::Stop("tool_use".into()),
        ]
    );
}

#[test]
fn failed_and_cut() {
    let s = "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"error\":{\"message\":\"boom\"}}}\n\n";
    let (ev, _) = run_text(ProviderKind::Responses, s.as_bytes());
    assert_eq!(ev, vec![StreamEvent::Error("boom".into())]);
    let s = "event: response.output_text.delta\ndata: {\"delta\":\"x\"}\n\n";
    let (ev, _) = run_text(ProviderKind::Responses, s.as_bytes());
    assert_eq!(
        ev.last(),
        Some(&StreamEvent::Error(
            "Stream interrupted (no response.completed received)".into()
        ))
    );
}
