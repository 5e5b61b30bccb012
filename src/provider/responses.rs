//! OpenAI Responses (DeepSeek-compatible subset): body conversion (docs/providers.md)
//! and stream normaliser (Responses SSE to `StreamEvent`s, see `norm`).
use super::body::{
    image_data_url, input_as_arguments, parsed_messages, tool_parameters, tool_result_images,
    tool_result_text, tools_list,
};
use super::norm::{num, text, Flow, LeadingNewlines};
use super::outgoing::Body;
use super::reasoning_items;
use super::{ProviderConfig, Request, StreamEvent};
use crate::session::stats::Usage;
use crate::util::jsonl::{push_str, Obj};
use serde_json::{json, Map, Value};

/// `{"model":"M","input":[…][,"max_output_tokens":N],"stream":true[,"store":false][,"instructions":"…"][,"reasoning":{"effort":"E"}][,"include":["reasoning.encrypted_content"]][,"tools":[…]]}`
pub fn build_body(cfg: &ProviderConfig, req: &Request) -> String {
    build_parts(cfg, req).to_text()
}

/// [`build_body`] as parts: the head, each converted item ([`convert_message`], the
/// per-message hook), then the fields after the input.
pub fn build_parts<'a>(cfg: &ProviderConfig, req: &Request<'a>) -> Body<'a> {
    build_parts_omitting(cfg, req, super::omit::Omit::NONE)
}

/// [`build_parts`] without the fields a server refused by name (`omit.rs`): `reasoning`
/// goes with the `include` of its encrypted content.
pub fn build_parts_omitting<'a>(
    cfg: &ProviderConfig,
    req: &Request<'a>,
    omit: super::omit::Omit,
) -> Body<'a> {
    let mut body = Body::new();
    let mut h = String::from("{\"model\":");
    push_str(&mut h, &cfg.model);
    h.push_str(",\"input\":[");
    body.push(h);
    let mut items: Vec<String> = Vec::new();
    let host = reasoning_items::host_of(cfg);
    for m in parsed_messages(req) {
        convert_message(m, &host, &mut items);
    }
    let mut f = reasoning_items::fields(cfg, req);
    if omit.effort {
        f.effort = None;
        f.include_encrypted = false;
    }
    body.push_joined(items);
    let mut b = String::from("]");
    if cfg.max_tokens > 0 {
        b.push_str(",\"max_output_tokens\":");
        b.push_str(&cfg.max_tokens.to_string());
    }
    b.push_str(",\"stream\":true");
    if f.store_false {
        b.push_str(",\"store\":false");
    }
    if !req.system.is_empty() {
        b.push_str(",\"instructions\":");
        push_str(&mut b, req.system);
    }
    if let Some(e) = f.effort {
        b.push_str(",\"reasoning\":{\"effort\":");
        push_str(&mut b, e);
        b.push('}');
    }
    if f.include_encrypted {
        b.push_str(",\"include\":[\"reasoning.encrypted_content\"]");
    }
    // The Responses API's own web_search tool; DeepSeek's Responses API has none.
    let offer = !cfg.base_url.contains("deepseek.com");
    let tools: Vec<Value> = tools_list(req.tools_json)
        .into_iter()
        .filter_map(|t| {
            match super::server_tools::responses_tool(
                &t,
                offer,
                "DeepSeek's Responses API has no web_search tool",
            ) {
                Some(server) => server,
                None => Some(convert_tool(t)),
            }
        })
        .collect();
    if !tools.is_empty() {
        b.push_str(",\"tools\":");
        b.push_str(&Value::Array(tools).to_string());
    }
    b.push('}');
    body.push(b);
    body
}

fn convert_tool(t: Map<String, Value>) -> Value {
    // A chat-style definition ({"type":"function","function":{…}}) is flattened.
    let t = match t.get("function") {
        Some(Value::Object(f)) => f.clone(),
        _ => t,
    };
    let mut o = Map::new();
    o.insert("type".into(), json!("function"));
    o.insert("name".into(), t.get("name").cloned().unwrap_or(json!("")));
    o.insert(
        "description".into(),
        t.get("description").cloned().unwrap_or(json!("")),
    );
    o.insert("parameters".into(), tool_parameters(&t));
    Value::Object(o)
}

fn convert_message(m: Map<String, Value>, host: &str, out: &mut Vec<String>) {
    let role = m
        .get("role")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let blocks = match m.get("content") {
        Some(Value::Array(a)) => a,
        _ => {
            out.push(Value::Object(m).to_string());
            return;
        }
    };
    match role.as_str() {
        "user" => {
            let mut images = Vec::new();
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("tool_result") => {
                        let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                        out.push(
                            Obj::new()
                                .str("type", "function_call_output")
                                .str("call_id", id)
                                .str("output", &tool_result_text(b.get("content")))
                                .finish(),
                        );
                        images.extend(tool_result_images(b.get("content")));
                    }
                    Some("text") => out.push(
                        Obj::new()
                            .str("role", "user")
                            .str("content", b["text"].as_str().unwrap_or(""))
                            .finish(),
                    ),
                    Some("image") => images.push(b),
                    _ => {}
                }
            }
            let parts: Vec<Value> = images
                .iter()
                .filter_map(|b| image_data_url(b))
                .map(|url| json!({"type": "input_image", "image_url": url}))
                .collect();
            if !parts.is_empty() {
                out.push(json!({"role": "user", "content": parts}).to_string());
            }
        }
        "assistant" => {
            // The call's reasoning items first: they came before its text and calls.
            let items = reasoning_items::replay_items(blocks, host);
            for item in &items {
                out.push(item.to_string());
            }
            if items.is_empty() {
                if let Some(item) = reasoning_items::from_thinking_text(blocks, host) {
                    out.push(item);
                }
            }
            let text: String = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b["text"].as_str())
                .collect();
            if !text.is_empty() {
                out.push(
                    Obj::new()
                        .str("role", "assistant")
                        .str("content", &text)
                        .finish(),
                );
            }
            for b in blocks {
                if b.get("type").and_then(Value::as_str) == Some("tool_use") {
                    out.push(
                        Obj::new()
                            .str("type", "function_call")
                            .str("call_id", b["id"].as_str().unwrap_or(""))
                            .str("name", b["name"].as_str().unwrap_or(""))
                            .str("arguments", &input_as_arguments(b.get("input")))
                            .finish(),
                    );
                }
            }
        }
        _ => out.push(Value::Object(m).to_string()),
    }
}

#[derive(Debug, Default, Clone)]
struct Call {
    key: String,
    name: String,
    call_id: String,
    args: String,
}

/// Stream normaliser keyed on the `event:` names (or the data's `type`).
#[derive(Debug, Default)]
pub struct Normaliser {
    lead: LeadingNewlines,
    /// Function calls in first-seen order; `key` = output_index (or item id).
    calls: Vec<Call>,
    /// item id → key.
    ids: Vec<(String, String)>,
    usage: Usage,
    stop: String,
}

impl Normaliser {
    fn key_of(&self, v: &Value) -> String {
        if let Some(i) = v.get("output_index").and_then(Value::as_u64) {
            return i.to_string();
        }
        let id = text(v, &["item_id"]).unwrap_or("");
        self.ids
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, k)| k.clone())
            .unwrap_or_else(|| id.to_string())
    }

    fn call_mut(&mut self, key: &str) -> &mut Call {
        let pos = match self.calls.iter().position(|c| c.key == key) {
            Some(p) => p,
            None => {
                self.calls.push(Call {
                    key: key.to_string(),
                    ..Default::default()
                });
                self.calls.len() - 1
            }
        };
        &mut self.calls[pos]
    }

    fn read_usage(&mut self, r: &Value) {
        let u = &r["usage"];
        let input = num(u, &["input_tokens"]);
        let mut cached = num(u, &["input_tokens_details", "cached_tokens"]);
        if cached == 0 {
            cached = num(u, &["cached_tokens"]).max(num(u, &["prompt_cache_hit_tokens"]));
        }
        self.usage = Usage {
            input: input.saturating_sub(cached),
            output: num(u, &["output_tokens"]),
            cache_read: cached,
            cache_creation: 0,
        };
    }

    fn finish(&mut self, out: &mut dyn FnMut(StreamEvent)) {
        let any = !self.calls.is_empty();
        for c in self.calls.drain(..) {
            if c.name.is_empty() || c.call_id.is_empty() {
                continue;
            }
            let input_raw = if c.args.trim().is_empty() {
                "{}".to_string()
            } else {
                c.args
            };
            out(StreamEvent::ToolCall {
                name: c.name,
                id: c.call_id,
                input_raw,
            });
        }
        if self.stop.is_empty() {
            self.stop = if any { "tool_use" } else { "end_turn" }.into();
        }
    }
}

impl super::norm::Normaliser for Normaliser {
    fn event(&mut self, name: &str, data: &str, out: &mut dyn FnMut(StreamEvent)) -> Flow {
        let v: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) => return Flow::Continue,
        };
        let name = if name == "message" {
            text(&v, &["type"]).unwrap_or(name)
        } else {
            name
        };
        match name {
            "response.reasoning_text.delta" | "response.reasoning_summary_text.delta" => {
                if let Some(d) = text(&v, &["delta"]).filter(|d| !d.is_empty()) {
                    out(StreamEvent::Thinking(d.to_string()));
                }
            }
            "response.output_text.delta" => {
                if let Some(d) = text(&v, &["delta"]) {
                    let d = self.lead.apply(d);
                    if !d.is_empty() {
                        out(StreamEvent::Text(d.to_string()));
                    }
                }
            }
            "response.output_item.added" | "response.output_item.done" => {
                let item = &v["item"];
                if name == "response.output_item.done" {
                    if let Some(r) = reasoning_items::clean_item(item) {
                        out(StreamEvent::Reasoning(r));
                    }
                }
                if text(item, &["type"]) == Some("function_call") {
                    let key = match v.get("output_index").and_then(Value::as_u64) {
                        Some(i) => i.to_string(),
                        None => text(item, &["id"]).unwrap_or("").to_string(),
                    };
                    if let Some(id) = text(item, &["id"]) {
                        if !self.ids.iter().any(|(i, _)| i == id) {
                            self.ids.push((id.to_string(), key.clone()));
                        }
                    }
                    let c = self.call_mut(&key);
                    if let Some(n) = text(item, &["name"]).filter(|s| !s.is_empty()) {
                        c.name = n.to_string();
                    }
                    if let Some(n) = text(item, &["call_id"]).filter(|s| !s.is_empty()) {
                        c.call_id = n.to_string();
                    }
                    if let Some(a) = text(item, &["arguments"]).filter(|s| !s.is_empty()) {
                        c.args = a.to_string();
                    }
                }
            }
            "response.function_call_arguments.delta" => {
                let key = self.key_of(&v);
                if let Some(d) = text(&v, &["delta"]) {
                    self.call_mut(&key).args.push_str(d);
                    if !d.is_empty() {
                        out(StreamEvent::ToolInputDelta(d.len() as u64));
                    }
                }
            }
            "response.completed" => {
                self.read_usage(&v["response"]);
                self.finish(out);
                return Flow::Done;
            }
            "response.incomplete" => {
                let r = &v["response"];
                let reason = text(r, &["incomplete_details", "reason"]).unwrap_or("");
                if reason == "max_output_tokens" {
                    // Deviation: reported as a max_tokens stop so the loop says
                    // "Response truncated" (the reference reports a generic error).
                    self.read_usage(r);
                    self.stop = "max_tokens".into();
                    self.finish(out);
                    return Flow::Done;
                }
                return fail(&v, "Response incomplete");
            }
            "response.failed" => return fail(&v, "Response failed"),
            "error" => return fail(&v, "Stream error"),
            _ => {}
        }
        Flow::Continue
    }

    fn usage(&self) -> Usage {
        self.usage
    }

    fn stop_reason(&self) -> String {
        if self.stop.is_empty() {
            "end_turn".into()
        } else {
            self.stop.clone()
        }
    }

    fn interrupted_message(&self) -> &'static str {
        "Stream interrupted (no response.completed received)"
    }

    fn pending_bytes(&self) -> usize {
        self.calls.iter().map(|c| c.args.len()).sum()
    }
}

fn fail(v: &Value, default: &str) -> Flow {
    let msg = text(v, &["response", "error", "message"])
        .or_else(|| text(v, &["error", "message"]))
        .or_else(|| text(v, &["message"]))
        .or_else(|| text(v, &["response", "incomplete_details", "reason"]))
        .or_else(|| text(v, &["reason"]))
        .unwrap_or(default)
        .to_string();
    let code = text(v, &["code"])
        .or_else(|| text(v, &["error", "code"]))
        .or_else(|| text(v, &["error", "type"]))
        .unwrap_or("");
    Flow::Fail {
        msg,
        retryable: code.contains("overloaded") || code == "server_is_overloaded",
    }
}

#[cfg(test)]
#[path = "responses_tests.rs"]
mod tests;
