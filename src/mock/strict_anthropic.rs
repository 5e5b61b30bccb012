//! The scripted server's strict Anthropic mode (a script `{"strict": "anthropic", "steps":
//! […]}`): every `/v1/messages` request is checked against the Messages API rules the
//! hosted API enforces per model, and refused with the API's own status, error type and
//! message text when it breaks one (docs/providers.md#the-strict-anthropic-server). Each
//! rule has a unit test named after it below.
//!
//! The model's limits and accepted fields come from the model table, so the server and the
//! client read the same facts; the rules themselves (what is refused, with which words)
//! are the API's documented behaviour. A valid request is answered from the script like
//! in the normal mode, but the stream is the hosted API's: thinking blocks only when the
//! request turned thinking on, each with a `signature_delta` the server remembers (a later
//! request must send the block back unmodified), a `redacted_thinking` block where the step
//! asks for one, and usage from the prompt-cache simulation in `strict_cache.rs`.
use super::script::Step;
use super::strict_cache::{Cache, Usage};
use super::strict_rules::{
    check_blocks, check_effort, check_max_tokens, check_thinking, check_tool_pairs, check_tools,
    content, current_loop_start, known_model, messages,
};
use super::wire::{pieces, Frame};
use crate::provider::models::ModelInfo;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A refusal: HTTP status, the API's error type and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub kind: &'static str,
    pub message: String,
}

impl Refusal {
    pub(super) fn bad(message: impl Into<String>) -> Refusal {
        Refusal {
            status: 400,
            kind: "invalid_request_error",
            message: message.into(),
        }
    }

    /// The API's error body.
    pub fn body(&self) -> String {
        json!({"type": "error", "error": {"type": self.kind, "message": self.message}}).to_string()
    }
}

/// A thinking block the server issued: its text and signature.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Issued {
    thinking: String,
    signature: String,
}

/// The strict mode's memory across requests.
#[derive(Debug, Default)]
pub struct Strict {
    /// signature → the thinking text it signs.
    signatures: Mutex<HashMap<String, String>>,
    /// redacted_thinking data the server issued.
    redacted: Mutex<Vec<String>>,
    /// tool_use id → the reasoning blocks that opened its message (signatures, in order;
    /// a redacted block by its data).
    opened_by: Mutex<HashMap<String, Vec<String>>>,
    cache: Cache,
    counter: AtomicU64,
}

/// What a valid request leaves for its answer.
#[derive(Debug, Clone)]
pub struct Checked {
    pub model: String,
    pub thinking: bool,
    /// The request offered the web search tool.
    pub web_search: bool,
    pub usage: Usage,
}

impl Strict {
    /// Strict mode when the script asks for it (`"strict": "anthropic"`).
    pub fn from_script(script_json: &str) -> Option<Strict> {
        let v: Value = serde_json::from_str(script_json).ok()?;
        (v.get("strict")?.as_str()? == "anthropic").then(Strict::default)
    }

    /// Check one request body against the rules; `extra` are models the script declares
    /// beyond the table ([`extra_models`]).
    pub fn check(&self, body: &str, extra: &[ModelInfo]) -> Result<Checked, Refusal> {
        let v: Value = serde_json::from_str(body)
            .map_err(|e| Refusal::bad(format!("There was an error parsing the body: {e}")))?;
        let model = v["model"].as_str().unwrap_or("").to_string();
        let row = match extra.iter().find(|m| m.id == model) {
            Some(m) => m,
            None => known_model(&model)?,
        };
        let max_tokens = v["max_tokens"]
            .as_u64()
            .ok_or_else(|| Refusal::bad("max_tokens: Field required"))?;
        check_max_tokens(row, &model, max_tokens)?;
        let thinking = check_thinking(row, &v, max_tokens)?;
        check_effort(row, &v)?;
        check_tools(&v)?;
        super::web_search::check_anthropic_tools(&v)?;
        check_blocks(&v)?;
        for (i, m) in messages(&v).iter().enumerate() {
            super::web_search::check_anthropic_blocks(i, content(m))?;
        }
        check_tool_pairs(&v)?;
        self.check_signatures(&v, thinking)?;
        let usage = self.cache.usage(&v, row.cache_min_tokens);
        Ok(Checked {
            model,
            thinking,
            web_search: super::web_search::offered(&v),
            usage,
        })
    }

    /// Every signed block must be one the server issued, unmodified; when thinking is on,
    /// an assistant message of the current tool loop (after the last user text) whose
    /// tool calls came with reasoning must start with that reasoning, complete.
    fn check_signatures(&self, v: &Value, thinking: bool) -> Result<(), Refusal> {
        let sigs = self.signatures.lock().unwrap_or_else(|p| p.into_inner());
        let redacted = self.redacted.lock().unwrap_or_else(|p| p.into_inner());
        let opened = self.opened_by.lock().unwrap_or_else(|p| p.into_inner());
        let msgs = messages(v);
        let loop_start = current_loop_start(msgs);
        for (i, m) in msgs.iter().enumerate() {
            if m["role"] != "assistant" {
                continue;
            }
            let blocks = content(m);
            for (j, b) in blocks.iter().enumerate() {
                match b["type"].as_str() {
                    Some("thinking") => {
                        let sig = b["signature"].as_str().ok_or_else(|| {
                            Refusal::bad(format!(
                                "messages.{i}.content.{j}.thinking.signature: Field required"
                            ))
                        })?;
                        if sigs.get(sig).map(String::as_str) != b["thinking"].as_str() {
                            return Err(Refusal::bad(format!(
                                "messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
                            )));
                        }
                    }
                    Some("redacted_thinking") => {
                        let d = b["data"].as_str().unwrap_or("");
                        if !redacted.iter().any(|r| r == d) {
                            return Err(Refusal::bad(format!(
                                "messages.{i}.content.{j}: Invalid `data` in `redacted_thinking` block"
                            )));
                        }
                    }
                    _ => {}
                }
            }
            if !thinking || i < loop_start {
                continue;
            }
            let want = blocks
                .iter()
                .filter(|b| b["type"] == "tool_use")
                .find_map(|b| opened.get(b["id"].as_str().unwrap_or("")));
            let Some(want) = want else { continue };
            let got: Vec<&str> = blocks
                .iter()
                .take_while(|b| b["type"] == "thinking" || b["type"] == "redacted_thinking")
                .map(|b| {
                    b["signature"]
                        .as_str()
                        .or_else(|| b["data"].as_str())
                        .unwrap_or("")
                })
                .collect();
            if got.len() < want.len() || got[..want.len()] != want[..] {
                if !got.is_empty() {
                    // Stricter than the API, which cannot tell a dropped block: the
                    // client must send the loop's reasoning back complete.
                    return Err(Refusal::bad(format!(
                        "messages.{i}.content: the thinking and redacted_thinking blocks of the current tool loop must be sent back complete, unmodified and in order (strict mock rule)"
                    )));
                }
                let first = blocks
                    .first()
                    .and_then(|b| b["type"].as_str())
                    .unwrap_or("nothing");
                return Err(Refusal::bad(format!(
                    "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{first}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
                )));
            }
        }
        Ok(())
    }

    /// The answer's frames: the hosted API's stream for `step`.
    pub fn frames(&self, step: &Step, c: &Checked) -> Vec<Frame> {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        let mut f = vec![sse(
            "message_start",
            json!({"type":"message_start","message":{"id":format!("msg_strict_{n}"),"type":"message","role":"assistant","model":c.model,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":c.usage.input,"cache_creation_input_tokens":c.usage.creation,"cache_read_input_tokens":c.usage.read,"output_tokens":1}}}),
        )];
        if step.sse_error {
            let msg = step.message.as_deref().unwrap_or("Overloaded");
            f.push(sse(
                "error",
                json!({"type":"error","error":{"type":"overloaded_error","message":msg}}),
            ));
            return f;
        }
        let mut idx = 0;
        let mut block = |f: &mut Vec<Frame>, start: Value, deltas: Vec<Value>| {
            f.push(sse(
                "content_block_start",
                json!({"type":"content_block_start","index":idx,"content_block":start}),
            ));
            for d in deltas {
                f.push(sse(
                    "content_block_delta",
                    json!({"type":"content_block_delta","index":idx,"delta":d}),
                ));
            }
            f.push(sse(
                "content_block_stop",
                json!({"type":"content_block_stop","index":idx}),
            ));
            idx += 1;
        };
        let mut opened: Vec<String> = Vec::new();
        let mut out_bytes = 0usize;
        if c.thinking {
            if let Some(t) = &step.thinking {
                let issued = Issued {
                    thinking: t.clone(),
                    signature: signature(n, t),
                };
                let mut d: Vec<Value> = pieces(t, step.chunk)
                    .into_iter()
                    .map(|p| json!({"type":"thinking_delta","thinking":p}))
                    .collect();
                // The signature arrives in two deltas: the client must join them.
                let (a, b) = issued.signature.split_at(issued.signature.len() / 2);
                d.push(json!({"type":"signature_delta","signature":a}));
                d.push(json!({"type":"signature_delta","signature":b}));
                block(&mut f, json!({"type":"thinking","thinking":""}), d);
                out_bytes += t.len();
                self.signatures
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(issued.signature.clone(), issued.thinking);
                opened.push(issued.signature);
            }
            if step.redacted_thinking {
                let data = format!("RVNEUkVEQUNURUQ{n}");
                block(
                    &mut f,
                    json!({"type":"redacted_thinking","data":data}),
                    Vec::new(),
                );
                self.redacted
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(data.clone());
                opened.push(data);
            }
        }
        // The hosted API searches only when the request offers its tool.
        if let (Some(q), true) = (&step.web_search, c.web_search) {
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
            out_bytes += t.len();
        }
        for (i, tc) in step.tool_calls.iter().enumerate() {
            let id = step.call_id(i);
            let args = step.args(i);
            out_bytes += args.len();
            let d = pieces(&args, step.chunk)
                .into_iter()
                .map(|p| json!({"type":"input_json_delta","partial_json":p}))
                .collect();
            block(
                &mut f,
                json!({"type":"tool_use","id":id,"name":tc.name,"input":{}}),
                d,
            );
            if !opened.is_empty() {
                self.opened_by
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(id, opened.clone());
            }
        }
        let output = step
            .usage
            .map_or((out_bytes as u64).div_ceil(4).max(1), |u| u.output);
        if step.stall_ms > 0 {
            f.push(Frame::Pause(step.stall_ms));
        }
        if !step.cut {
            f.push(sse(
                "message_delta",
                json!({"type":"message_delta","delta":{"stop_reason":step.stop_reason(),"stop_sequence":null},"usage":{"output_tokens":output}}),
            ));
            f.push(sse("message_stop", json!({"type":"message_stop"})));
        }
        super::wire::with_delays(f, step.delay_ms)
    }
}

/// The models a script declares beyond the table (`"models": [rows]` in the object form,
/// each a row of `assets/models.json`): a new release the agent does not know, whose
/// rules the strict modes then enforce by exact id.
pub fn extra_models(script_json: &str) -> Vec<ModelInfo> {
    serde_json::from_str::<Value>(script_json)
        .ok()
        .and_then(|v| v.get("models").cloned())
        .and_then(|m| serde_json::from_value(m).ok())
        .unwrap_or_default()
}

fn sse(name: &str, data: Value) -> Frame {
    Frame::Sse(format!("event: {name}\ndata: {data}\n\n"))
}

/// An opaque, unforgeable-looking signature for block `n`.
fn signature(n: u64, text: &str) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (n, text).hash(&mut h);
    format!("EqQBCkYIBxgCKkA{:016x}{n}", h.finish())
}

#[cfg(test)]
#[path = "strict_anthropic_tests.rs"]
mod tests;
