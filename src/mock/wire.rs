//! The providers' real SSE wire formats, generated from a script step.
use super::script::Step;
use serde_json::{json, Value};

/// The wire protocol, chosen from the request path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Anthropic,
    OpenAi,
    Responses,
}

impl Wire {
    pub fn from_path(path: &str) -> Option<Wire> {
        let p = path.split('?').next().unwrap_or(path).trim_end_matches('/');
        if p.ends_with("/messages") {
            Some(Wire::Anthropic)
        } else if p.ends_with("/chat/completions") {
            Some(Wire::OpenAi)
        } else if p.ends_with("/responses") {
            Some(Wire::Responses)
        } else {
            None
        }
    }

    /// The provider's error body for an HTTP fault.
    pub fn error_body(&self, status: u16, message: &str) -> String {
        let kind = match status {
            429 => "rate_limit_error",
            529 => "overloaded_error",
            400 => "invalid_request_error",
            401 => "authentication_error",
            s if s >= 500 => "api_error",
            _ => "error",
        };
        match self {
            Wire::Anthropic => {
                json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
            }
            _ => json!({"error": {"message": message, "type": kind, "code": null}}).to_string(),
        }
    }
}

/// One thing the server writes: an SSE event, or a pause.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    Sse(String),
    Pause(u64),
}

fn sse(name: Option<&str>, data: &Value) -> Frame {
    match name {
        Some(n) => Frame::Sse(format!("event: {n}\ndata: {data}\n\n")),
        None => Frame::Sse(format!("data: {data}\n\n")),
    }
}

/// Split `s` into pieces of `n` characters (one piece when `n` is 0 or unset).
pub fn pieces(s: &str, n: Option<usize>) -> Vec<String> {
    match n {
        Some(n) if n > 0 && !s.is_empty() => {
            let chars: Vec<char> = s.chars().collect();
            chars.chunks(n).map(|c| c.iter().collect()).collect()
        }
        _ => vec![s.to_string()],
    }
}

/// All frames for a step: content, then (unless `cut`) the terminal events; a `stall_ms`
/// pause sits between the two, `delay_ms` pauses between events.
pub fn frames(wire: Wire, step: &Step) -> Vec<Frame> {
    let (body, terminal) = match wire {
        Wire::Anthropic => anthropic(step),
        Wire::OpenAi => openai(step),
        Wire::Responses => responses(step),
    };
    let mut all = body;
    if step.stall_ms > 0 {
        // After the content, before the terminal events: the client has received data
        // and then sees no byte for `stall_ms`.
        all.push(Frame::Pause(step.stall_ms));
    }
    if !step.cut {
        all.extend(terminal);
    }
    with_delays(all, step.delay_ms)
}

/// `frames` with a pause of `delay_ms` between each two (a slow stream); as they are for 0.
pub fn with_delays(frames: Vec<Frame>, delay_ms: u64) -> Vec<Frame> {
    if delay_ms == 0 {
        return frames;
    }
    let mut out = Vec::with_capacity(frames.len() * 2);
    for (i, f) in frames.into_iter().enumerate() {
        if i > 0 {
            out.push(Frame::Pause(delay_ms));
        }
        out.push(f);
    }
    out
}

fn anthropic(step: &Step) -> (Vec<Frame>, Vec<Frame>) {
    let u = step.usage();
    let mut f = vec![sse(
        Some("message_start"),
        &json!({"type":"message_start","message":{"id":"msg_mock","type":"message","role":"assistant","model":"mock","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":u.input,"cache_creation_input_tokens":u.cache_creation,"cache_read_input_tokens":u.cache_read,"output_tokens":1}}}),
    )];
    if step.sse_error {
        let msg = step.message.as_deref().unwrap_or("Overloaded");
        f.push(sse(
            Some("error"),
            &json!({"type":"error","error":{"type":"overloaded_error","message":msg}}),
        ));
        return (f, Vec::new());
    }
    f.push(sse(Some("ping"), &json!({"type":"ping"})));
    let mut idx = 0;
    let mut block = |f: &mut Vec<Frame>, start: Value, deltas: Vec<Value>| {
        f.push(sse(
            Some("content_block_start"),
            &json!({"type":"content_block_start","index":idx,"content_block":start}),
        ));
        for d in deltas {
            f.push(sse(
                Some("content_block_delta"),
                &json!({"type":"content_block_delta","index":idx,"delta":d}),
            ));
        }
        f.push(sse(
            Some("content_block_stop"),
            &json!({"type":"content_block_stop","index":idx}),
        ));
        idx += 1;
    };
    if let Some(t) = &step.thinking {
        let mut d: Vec<Value> = pieces(t, step.chunk)
            .into_iter()
            .map(|p| json!({"type":"thinking_delta","thinking":p}))
            .collect();
        d.push(json!({"type":"signature_delta","signature":"bW9jaw=="}));
        block(&mut f, json!({"type":"thinking","thinking":""}), d);
    }
    if let Some(q) = &step.web_search {
        for (start, d) in super::web_search::anthropic_blocks(q) {
            block(&mut f, start, d);
        }
    }
    if let Some(t) = &step.text {
        let d = pieces(t, step.chunk)
            .into_iter()
            .map(|p| json!({"type":"text_delta","text":p}))
            .collect();
        block(&mut f, json!({"type":"text","text":""}), d);
    }
    for (i, tc) in step.tool_calls.iter().enumerate() {
        let d = pieces(&step.args(i), step.chunk)
            .into_iter()
            .map(|p| json!({"type":"input_json_delta","partial_json":p}))
            .collect();
        block(
            &mut f,
            json!({"type":"tool_use","id":step.call_id(i),"name":tc.name,"input":{}}),
            d,
        );
    }
    let terminal = vec![
        sse(
            Some("message_delta"),
            &json!({"type":"message_delta","delta":{"stop_reason":step.stop_reason(),"stop_sequence":null},"usage":{"output_tokens":u.output}}),
        ),
        sse(Some("message_stop"), &json!({"type":"message_stop"})),
    ];
    (f, terminal)
}

fn openai(step: &Step) -> (Vec<Frame>, Vec<Frame>) {
    let u = step.usage();
    let usage = if step.deepseek_usage {
        json!({"prompt_tokens":u.input + u.cache_read,"completion_tokens":u.output,"total_tokens":u.input + u.cache_read + u.output,"prompt_cache_hit_tokens":u.cache_read,"prompt_cache_miss_tokens":u.input})
    } else {
        json!({"prompt_tokens":u.input + u.cache_read,"completion_tokens":u.output,"total_tokens":u.input + u.cache_read + u.output,"prompt_tokens_details":{"cached_tokens":u.cache_read}})
    };
    let chunk = |delta: Value, finish: Value| {
        sse(
            None,
            &json!({"id":"chatcmpl-mock","object":"chat.completion.chunk","created":0,"model":"mock","choices":[{"index":0,"delta":delta,"finish_reason":finish}]}),
        )
    };
    if step.sse_error {
        let msg = step.message.as_deref().unwrap_or("Overloaded");
        let e = json!({"error":{"message":msg,"type":"server_error","code":"overloaded"}});
        return (vec![sse(None, &e)], Vec::new());
    }
    let mut f = vec![chunk(json!({"role":"assistant","content":""}), Value::Null)];
    if let Some(t) = &step.thinking {
        for p in pieces(t, step.chunk) {
            f.push(chunk(json!({"reasoning_content":p}), Value::Null));
        }
    }
    if let Some(t) = &step.text {
        for p in pieces(t, step.chunk) {
            f.push(chunk(json!({"content":p}), Value::Null));
        }
    }
    for (i, tc) in step.tool_calls.iter().enumerate() {
        f.push(chunk(
            json!({"tool_calls":[{"index":i,"id":step.call_id(i),"type":"function","function":{"name":tc.name,"arguments":""}}]}),
            Value::Null,
        ));
        for p in pieces(&step.args(i), step.chunk) {
            f.push(chunk(
                json!({"tool_calls":[{"index":i,"function":{"arguments":p}}]}),
                Value::Null,
            ));
        }
    }
    let finish = match step.stop_reason().as_str() {
        "end_turn" => "stop".to_string(),
        "tool_use" => "tool_calls".to_string(),
        "max_tokens" => "length".to_string(),
        other => other.to_string(),
    };
    let terminal = vec![
        chunk(json!({}), json!(finish)),
        sse(
            None,
            &json!({"id":"chatcmpl-mock","object":"chat.completion.chunk","created":0,"model":"mock","choices":[],"usage":usage}),
        ),
        Frame::Sse("data: [DONE]\n\n".into()),
    ];
    (f, terminal)
}

fn responses(step: &Step) -> (Vec<Frame>, Vec<Frame>) {
    let u = step.usage();
    let ev = |name: &str, mut v: Value| {
        v["type"] = json!(name);
        sse(Some(name), &v)
    };
    let mut f = vec![ev(
        "response.created",
        json!({"response":{"id":"resp_mock","object":"response","status":"in_progress","output":[]}}),
    )];
    if step.sse_error {
        let msg = step.message.as_deref().unwrap_or("Overloaded");
        f.push(ev(
            "error",
            json!({"code":"server_is_overloaded","message":msg}),
        ));
        return (f, Vec::new());
    }
    let mut out_idx = 0;
    if let Some(t) = &step.thinking {
        f.push(ev(
            "response.output_item.added",
            json!({"output_index":out_idx,"item":{"type":"reasoning","id":"rs_0","summary":[]}}),
        ));
        for p in pieces(t, step.chunk) {
            f.push(ev(
                "response.reasoning_text.delta",
                json!({"item_id":"rs_0","output_index":out_idx,"content_index":0,"delta":p}),
            ));
        }
        // The item as a stateless client must send it back (strict_openai.rs checks it).
        f.push(ev(
            "response.output_item.done",
            json!({"output_index":out_idx,"item":{"type":"reasoning","id":reasoning_id(step),"summary":[],"encrypted_content":encrypted_for(step),"status":"completed"}}),
        ));
        out_idx += 1;
    }
    if let Some(q) = &step.web_search {
        let (added, done) = super::web_search::responses_item(q);
        f.push(ev(
            "response.output_item.added",
            json!({"output_index":out_idx,"item":added}),
        ));
        f.push(ev(
            "response.output_item.done",
            json!({"output_index":out_idx,"item":done}),
        ));
        out_idx += 1;
    }
    if let Some(t) = &step.text {
        f.push(ev("response.output_item.added", json!({"output_index":out_idx,"item":{"type":"message","id":"msg_0","role":"assistant","content":[]}})));
        for p in pieces(t, step.chunk) {
            f.push(ev(
                "response.output_text.delta",
                json!({"item_id":"msg_0","output_index":out_idx,"content_index":0,"delta":p}),
            ));
        }
        f.push(ev(
            "response.output_text.done",
            json!({"item_id":"msg_0","output_index":out_idx,"content_index":0,"text":t}),
        ));
        out_idx += 1;
    }
    for (i, tc) in step.tool_calls.iter().enumerate() {
        let item_id = format!("fc_{i}");
        let args = step.args(i);
        f.push(ev("response.output_item.added", json!({"output_index":out_idx,"item":{"type":"function_call","id":item_id,"call_id":step.call_id(i),"name":tc.name,"arguments":"","status":"in_progress"}})));
        for p in pieces(&args, step.chunk) {
            f.push(ev(
                "response.function_call_arguments.delta",
                json!({"item_id":item_id,"output_index":out_idx,"delta":p}),
            ));
        }
        f.push(ev(
            "response.function_call_arguments.done",
            json!({"item_id":item_id,"output_index":out_idx,"arguments":args}),
        ));
        f.push(ev("response.output_item.done", json!({"output_index":out_idx,"item":{"type":"function_call","id":item_id,"call_id":step.call_id(i),"name":tc.name,"arguments":args,"status":"completed"}})));
        out_idx += 1;
    }
    let usage = json!({"input_tokens":u.input + u.cache_read,"input_tokens_details":{"cached_tokens":u.cache_read},"output_tokens":u.output,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":u.input + u.cache_read + u.output});
    let terminal = if step.stop_reason() == "max_tokens" {
        vec![ev(
            "response.incomplete",
            json!({"response":{"id":"resp_mock","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":usage}}),
        )]
    } else {
        vec![ev(
            "response.completed",
            json!({"response":{"id":"resp_mock","status":"completed","usage":usage}}),
        )]
    };
    (f, terminal)
}

/// The id of a step's reasoning item: derived from its text, so each call's differs.
pub fn reasoning_id(step: &Step) -> String {
    format!("rs_{:08x}", fnv(step.thinking.as_deref().unwrap_or("")))
}

/// The opaque "encrypted" reasoning of a step: a fixed prefix the strict mode recognises.
pub fn encrypted_for(step: &Step) -> String {
    format!(
        "{ENCRYPTED_PREFIX}{:08x}",
        fnv(step.thinking.as_deref().unwrap_or(""))
    )
}

pub const ENCRYPTED_PREFIX: &str = "gAAAAmock-";

fn fnv(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::norm::run_text;
    use crate::provider::{ProviderKind, StreamEvent};

    fn render(frames: &[Frame]) -> String {
        frames
            .iter()
            .filter_map(|f| match f {
                Frame::Sse(s) => Some(s.as_str()),
                Frame::Pause(_) => None,
            })
            .collect()
    }

    /// The generated streams round-trip through our own normalisers.
    #[test]
    fn round_trip_all_wires() {
        let step: Step = serde_json::from_str(
            r#"{"thinking":"th","text":"Hello world","tool_calls":[{"name":"Read","id":"t1","input":{"path":"a"}}],"chunk":3,"usage":{"input":7,"output":3}}"#,
        )
        .unwrap();
        for (w, k) in [
            (Wire::Anthropic, ProviderKind::Claude),
            (Wire::OpenAi, ProviderKind::OpenAi),
            (Wire::Responses, ProviderKind::Responses),
        ] {
            let (ev, _) = run_text(k, render(&frames(w, &step)).as_bytes());
            let text: String = ev
                .iter()
                .filter_map(|e| match e {
                    StreamEvent::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            assert_eq!(text, "Hello world", "{w:?}");
            assert!(ev.contains(&StreamEvent::ToolCall {
                name: "Read".into(),
                id: "t1".into(),
                input_raw: "{\"path\":\"a\"}".into()
            }));
            assert_eq!(
                ev.last(),
                Some(&StreamEvent::Stop("tool_use".into())),
                "{w:?}"
            );
        }
    }

    #[test]
    fn paths() {
        assert_eq!(Wire::from_path("/v1/messages"), Some(Wire::Anthropic));
        assert_eq!(Wire::from_path("/chat/completions?x=1"), Some(Wire::OpenAi));
        assert_eq!(Wire::from_path("/responses"), Some(Wire::Responses));
        assert_eq!(Wire::from_path("/nope"), None);
    }
}
