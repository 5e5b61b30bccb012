//! One test per rule of the strict Anthropic mode, named after the rule.
use super::*;
use crate::mock::script::Script;

fn strict() -> Strict {
    Strict::from_script(r#"{"strict":"anthropic","steps":[]}"#).unwrap()
}

fn body(model: &str, extra: Value) -> Value {
    let mut b = json!({"model": model, "max_tokens": 32000, "stream": true,
        "messages": [{"role":"user","content":"hi"}]});
    if let (Some(o), Value::Object(e)) = (b.as_object_mut(), extra) {
        o.extend(e);
    }
    b
}

fn refusal(s: &Strict, b: &Value) -> Refusal {
    s.check(&b.to_string(), &[]).unwrap_err()
}

fn step(json: &str) -> Step {
    Script::parse(&format!("[{json}]"))
        .unwrap()
        .take("")
        .unwrap()
}

/// The SSE data of the frames, parsed.
fn events(frames: &[Frame]) -> Vec<Value> {
    frames
        .iter()
        .filter_map(|f| match f {
            Frame::Sse(s) => s
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .and_then(|d| serde_json::from_str(d).ok()),
            Frame::Pause(_) => None,
        })
        .collect()
}

/// The assistant message a client builds from the frames (thinking blocks as streamed).
fn assistant_from(frames: &[Frame]) -> Value {
    let mut blocks: Vec<Value> = Vec::new();
    for e in events(frames) {
        match e["type"].as_str() {
            Some("content_block_start") => blocks.push(e["content_block"].clone()),
            Some("content_block_delta") => {
                let b = blocks.last_mut().unwrap();
                let d = &e["delta"];
                let (key, piece) = match d["type"].as_str().unwrap() {
                    "thinking_delta" => ("thinking", &d["thinking"]),
                    "signature_delta" => ("signature", &d["signature"]),
                    "text_delta" => ("text", &d["text"]),
                    _ => ("partial", &d["partial_json"]),
                };
                let prev = b[key].as_str().unwrap_or("").to_string();
                b[key] = json!(prev + piece.as_str().unwrap());
            }
            _ => {}
        }
    }
    for b in &mut blocks {
        if let Some(p) = b.as_object_mut().unwrap().remove("partial") {
            b["input"] = serde_json::from_str(p.as_str().unwrap()).unwrap();
        }
    }
    json!({"role": "assistant", "content": blocks})
}

#[test]
fn unknown_or_retired_model_is_404_not_found() {
    let s = strict();
    for m in [
        "claude-nonexistent-1",
        "claude-sonnet-4-20250514",
        "gpt-5.5",
    ] {
        let r = refusal(&s, &body(m, json!({})));
        assert_eq!((r.status, r.kind), (404, "not_found_error"), "{m}");
        assert_eq!(r.message, format!("model: {m}"));
    }
    assert!(s
        .check(&body("claude-sonnet-5-5", json!({})).to_string(), &[])
        .is_ok());
}

#[test]
fn thinking_type_the_model_does_not_accept_is_400() {
    let s = strict();
    let r = refusal(
        &s,
        &body(
            "claude-opus-4-7",
            json!({"thinking":{"type":"enabled","budget_tokens":2000}}),
        ),
    );
    assert_eq!(r.status, 400);
    assert!(r
        .message
        .starts_with("thinking.type.enabled is not supported for this model."));
    let r = refusal(
        &s,
        &body("claude-opus-5-5", json!({"thinking":{"type":"disabled"}})),
    );
    assert!(r
        .message
        .starts_with("thinking.type.disabled is not supported"));
    let r = refusal(
        &s,
        &body("claude-haiku-4-5", json!({"thinking":{"type":"adaptive"}})),
    );
    assert!(r
        .message
        .starts_with("thinking.type.adaptive is not supported"));
}

#[test]
fn effort_on_a_model_without_effort_is_400() {
    let r = refusal(
        &strict(),
        &body(
            "claude-haiku-4-5",
            json!({"output_config":{"effort":"high"}}),
        ),
    );
    assert_eq!(
        r.message,
        "This model does not support the effort parameter."
    );
}

#[test]
fn effort_value_the_model_does_not_take_is_400() {
    let r = refusal(
        &strict(),
        &body(
            "claude-sonnet-4-6",
            json!({"output_config":{"effort":"xhigh"}}),
        ),
    );
    assert!(
        r.message
            .starts_with("output_config.effort: Input should be"),
        "{}",
        r.message
    );
}

#[test]
fn enabled_thinking_needs_a_budget_below_max_tokens() {
    let s = strict();
    let t = |b: Value| body("claude-haiku-4-5", json!({"thinking": b}));
    let r = refusal(&s, &t(json!({"type":"enabled"})));
    assert_eq!(r.message, "thinking.enabled.budget_tokens: Field required");
    let r = refusal(&s, &t(json!({"type":"enabled","budget_tokens":100})));
    assert!(r.message.contains("greater than or equal to 1024"));
    let r = refusal(&s, &t(json!({"type":"enabled","budget_tokens":32000})));
    assert!(r
        .message
        .starts_with("`max_tokens` must be greater than `thinking.budget_tokens`"));
    assert!(s
        .check(
            &t(json!({"type":"enabled","budget_tokens":16000})).to_string(),
            &[]
        )
        .is_ok());
}

#[test]
fn max_tokens_over_the_models_max_output_is_400() {
    let mut b = body("claude-haiku-4-5", json!({}));
    b["max_tokens"] = json!(100_000);
    let r = refusal(&strict(), &b);
    assert!(
        r.message.starts_with("max_tokens: 100000 > 64000"),
        "{}",
        r.message
    );
}

#[test]
fn unsigned_thinking_is_400_signature_field_required() {
    let b = body(
        "claude-sonnet-5-5",
        json!({"messages":[
        {"role":"user","content":"hi"},
        {"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"}]},
        {"role":"user","content":"more"}]}),
    );
    let r = refusal(&strict(), &b);
    assert_eq!(
        r.message,
        "messages.1.content.0.thinking.signature: Field required"
    );
}

#[test]
fn empty_text_block_is_400_non_empty() {
    let b = body(
        "claude-sonnet-5-5",
        json!({"messages":[
        {"role":"user","content":"hi"},
        {"role":"assistant","content":[{"type":"text","text":""}]},
        {"role":"user","content":"more"}]}),
    );
    let r = refusal(&strict(), &b);
    assert_eq!(r.message, "messages: text content blocks must be non-empty");
}

#[test]
fn more_than_four_cache_control_is_400() {
    let m = json!({"type":"ephemeral"});
    let b = body(
        "claude-sonnet-5-5",
        json!({
        "system":[{"type":"text","text":"a","cache_control":m},{"type":"text","text":"b","cache_control":m}],
        "tools":[{"name":"A","input_schema":{},"cache_control":m},{"name":"B","input_schema":{},"cache_control":m}],
        "messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":m}]}]}),
    );
    let r = refusal(&strict(), &b);
    assert_eq!(
        r.message,
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    );
}

#[test]
fn tool_names_must_be_unique() {
    let b = body(
        "claude-sonnet-5-5",
        json!({"tools":[{"name":"A","input_schema":{}},{"name":"A","input_schema":{}}]}),
    );
    assert_eq!(
        refusal(&strict(), &b).message,
        "tools: Tool names must be unique."
    );
}

#[test]
fn tool_result_must_follow_tool_use() {
    let s = strict();
    let b = body(
        "claude-sonnet-5-5",
        json!({"messages":[
        {"role":"user","content":"hi"},
        {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"A","input":{}}]},
        {"role":"user","content":"next"}]}),
    );
    assert!(refusal(&s, &b)
        .message
        .contains("`tool_use` ids were found without `tool_result` blocks immediately after: t1"));
    let b = body(
        "claude-sonnet-5-5",
        json!({"messages":[
        {"role":"user","content":"hi"},
        {"role":"assistant","content":[{"type":"text","text":"x"}]},
        {"role":"user","content":[{"type":"tool_result","tool_use_id":"zz","content":"r"}]}]}),
    );
    assert!(refusal(&s, &b)
        .message
        .contains("unexpected `tool_use_id` found in `tool_result` blocks: zz"));
}

/// A tool loop against the strict server: what the server streamed goes back as it came.
fn tool_loop(s: &Strict, model: &str, thinking: Value) -> (Value, Vec<Value>) {
    let first = body(model, json!({"thinking": thinking}));
    let c = s.check(&first.to_string(), &[]).unwrap();
    assert!(c.thinking);
    let st = step(
        r#"{"thinking":"let me look","redacted_thinking":true,"tool_calls":[{"name":"Read","id":"toolu_1","input":{"path":"a"}}]}"#,
    );
    let a = assistant_from(&s.frames(&st, &c));
    let msgs = vec![
        json!({"role":"user","content":"hi"}),
        a.clone(),
        json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"data"}]}),
    ];
    (a, msgs)
}

#[test]
fn tool_loop_assistant_message_must_start_with_its_signed_thinking() {
    let s = strict();
    let thinking = json!({"type":"adaptive"});
    let (a, msgs) = tool_loop(&s, "claude-sonnet-4-6", thinking.clone());
    assert_eq!(a["content"][0]["type"], "thinking");
    assert_eq!(a["content"][1]["type"], "redacted_thinking");
    // Sent back verbatim: accepted.
    let ok = body(
        "claude-sonnet-4-6",
        json!({"thinking": thinking, "messages": msgs}),
    );
    s.check(&ok.to_string(), &[]).unwrap();
    // Thinking dropped: the API's refusal.
    let mut stripped = msgs.clone();
    stripped[1]["content"] = json!([a["content"][2]]);
    let bad = body(
        "claude-sonnet-4-6",
        json!({"thinking": thinking, "messages": stripped}),
    );
    let r = refusal(&s, &bad);
    assert!(r.message.starts_with("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`."), "{}", r.message);
    // Only the redacted block dropped: incomplete, refused too.
    let mut partial = msgs.clone();
    partial[1]["content"] = json!([a["content"][0], a["content"][2]]);
    let bad = body(
        "claude-sonnet-4-6",
        json!({"thinking": thinking, "messages": partial}),
    );
    assert!(refusal(&s, &bad)
        .message
        .contains("sent back complete, unmodified and in order"));
    // Outside the current tool loop (a new user text after it), no block is required.
    let mut later = stripped.clone();
    later.push(json!({"role":"assistant","content":[{"type":"text","text":"done"}]}));
    later.push(json!({"role":"user","content":"next question"}));
    let ok = body(
        "claude-sonnet-4-6",
        json!({"thinking": thinking, "messages": later}),
    );
    s.check(&ok.to_string(), &[]).unwrap();
}

#[test]
fn a_modified_thinking_block_is_400_invalid_signature() {
    let s = strict();
    let (_, mut msgs) = tool_loop(&s, "claude-opus-5-5", json!({"type":"adaptive"}));
    msgs[1]["content"][0]["thinking"] = json!("let me look again");
    let bad = body(
        "claude-opus-5-5",
        json!({"thinking":{"type":"adaptive"}, "messages": msgs}),
    );
    assert_eq!(
        refusal(&s, &bad).message,
        "messages.1.content.0: Invalid `signature` in `thinking` block"
    );
}

#[test]
fn no_thinking_is_streamed_when_the_request_turned_it_off() {
    let s = strict();
    let c = s
        .check(&body("claude-sonnet-5-5", json!({})).to_string(), &[])
        .unwrap();
    assert!(!c.thinking);
    let a = assistant_from(&s.frames(&step(r#"{"thinking":"t","text":"hi"}"#), &c));
    assert_eq!(a["content"].as_array().unwrap().len(), 1);
    // Opus 5.5 thinks adaptively without a thinking field.
    let c = s
        .check(&body("claude-opus-5-5", json!({})).to_string(), &[])
        .unwrap();
    assert!(c.thinking);
}

#[test]
fn usage_reports_the_cache_simulation() {
    let s = strict();
    let m = json!({"type":"ephemeral"});
    let sys = "s".repeat(8000);
    let b = body(
        "claude-sonnet-5-5",
        json!({"system":[{"type":"text","text":sys,"cache_control":m}]}),
    );
    let u1 = s.check(&b.to_string(), &[]).unwrap().usage;
    assert!(u1.creation >= 2000 && u1.read == 0, "{u1:?}");
    let u2 = s.check(&b.to_string(), &[]).unwrap().usage;
    assert_eq!((u2.read, u2.creation), (u1.creation, 0));
    let c = s.check(&b.to_string(), &[]).unwrap();
    let ev = events(&s.frames(&step(r#"{"text":"hi"}"#), &c));
    assert_eq!(
        ev[0]["message"]["usage"]["cache_read_input_tokens"],
        json!(u1.creation)
    );
}

#[test]
fn faults_apply_in_strict_mode_too() {
    let s = strict();
    let c = s
        .check(&body("claude-sonnet-5-5", json!({})).to_string(), &[])
        .unwrap();
    let ev = events(&s.frames(&step(r#"{"sse_error":true}"#), &c));
    assert_eq!(ev.last().unwrap()["error"]["type"], "overloaded_error");
    let f = s.frames(&step(r#"{"text":"a","delay_ms":5,"cut":true}"#), &c);
    assert!(f.contains(&Frame::Pause(5)));
    assert!(!events(&f).iter().any(|e| e["type"] == "message_stop"));
}

#[test]
fn extra_members_on_a_thinking_block_are_400_extra_inputs() {
    let b = body(
        "claude-sonnet-5-5",
        json!({"messages":[
        {"role":"user","content":"hi"},
        {"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"S","responses_reasoning":{"host":"api.openai.com","items":[]}},{"type":"text","text":"ok"}]},
        {"role":"user","content":"more"}]}),
    );
    let r = refusal(&strict(), &b);
    assert_eq!(
        r.message,
        "messages.1.content.0.thinking.responses_reasoning: Extra inputs are not permitted"
    );
}
