//! OpenAI chat-completions: body conversion (docs/providers.md) and stream normaliser
//! (chat-completions SSE to `StreamEvent`s, see `norm`).
use super::body::{
    effort, image_data_url, input_as_arguments, parsed_messages, thinking_on, tool_parameters,
    tool_result_images, tool_result_text, tools_list,
};
use super::hosts;
use super::models::{self, Vendor};
use super::norm::{num, text, Flow, LeadingNewlines};
use super::outgoing::Body;
use super::{ProviderConfig, Request, StreamEvent};
use crate::options::Effort;
use crate::session::stats::Usage;
use crate::util::jsonl::{push_str, Obj};
use serde_json::{json, Map, Value};

/// `{"model":"M","max_tokens":N|"max_completion_tokens":N,"stream":true,"stream_options":{"include_usage":true}[,"thinking":{"type":"T"}][,"reasoning_effort":"E"][,"tools":[…]],"messages":[…]}`
pub fn build_body(cfg: &ProviderConfig, req: &Request) -> String {
    build_parts(cfg, req).to_text()
}

/// The reasoning and limit fields a chat request carries, by host and model
/// (docs/providers.md, "OpenAI chat fields"):
/// - api.openai.com takes only what OpenAI documents: no `thinking`; the reasoning models
///   (gpt-5 family, o-series) take `max_completion_tokens` and refuse `max_tokens`;
///   `reasoning_effort` only for models that accept it, with a value they accept.
/// - api.deepseek.com takes `thinking` (`enabled`/`disabled`) and `reasoning_effort`.
/// - any other server gets `max_tokens` and the reasoning fields only when asked for
///   (gateways reject parameters their backend lacks); a model the table knows as an
///   OpenAI model still gets only the fields that model accepts.
struct ChatFields {
    max_key: &'static str,
    thinking: Option<&'static str>,
    effort: Option<&'static str>,
}

fn chat_fields(cfg: &ProviderConfig, req: &Request) -> ChatFields {
    let on = thinking_on(cfg, req);
    let known = models::lookup(&cfg.model);
    let openai_model = known.is_some_and(|m| m.vendor == Vendor::OpenAi);
    let reasoning_model = openai_model && known.is_some_and(|m| m.reasoning);
    let max_key = if reasoning_model {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    let asked = cfg.effort.unwrap_or(Effort::High);
    // The effort a known model accepts (nearest value), or what was asked of an unknown one.
    let effort_for = |on: bool| -> Option<&'static str> {
        if !on {
            return None;
        }
        match known {
            Some(m) => m.effort_for(asked),
            None => Some(effort(cfg)),
        }
    };
    if hosts::is_openai(&cfg.base_url) || openai_model {
        let info = models::info(&cfg.model, Vendor::OpenAi);
        let effort = if on { info.effort_for(asked) } else { None };
        return ChatFields {
            max_key,
            thinking: None,
            effort,
        };
    }
    if hosts::is_deepseek(&cfg.base_url) {
        // DeepSeek thinks unless told not to: an explicit `disabled` when thinking is off.
        return ChatFields {
            max_key,
            thinking: Some(if on { "enabled" } else { "disabled" }),
            effort: effort_for(on),
        };
    }
    ChatFields {
        max_key,
        thinking: on.then_some("enabled"),
        effort: effort_for(on),
    }
}

/// [`build_body`] as parts: the fields, then each converted message ([`convert_message`],
/// the per-message hook), then the closing brackets.
pub fn build_parts<'a>(cfg: &ProviderConfig, req: &Request<'a>) -> Body<'a> {
    build_parts_omitting(cfg, req, super::omit::Omit::NONE)
}

/// [`build_parts`] without the fields a server refused by name (`omit.rs`).
pub fn build_parts_omitting<'a>(
    cfg: &ProviderConfig,
    req: &Request<'a>,
    omit: super::omit::Omit,
) -> Body<'a> {
    let mut f = chat_fields(cfg, req);
    if omit.thinking {
        f.thinking = None;
    }
    if omit.effort {
        f.effort = None;
    }
    if omit.max_tokens {
        f.max_key = "max_completion_tokens";
    }
    let mut b = String::from("{\"model\":");
    push_str(&mut b, &cfg.model);
    b.push_str(",\"");
    b.push_str(f.max_key);
    b.push_str("\":");
    b.push_str(&cfg.max_tokens.to_string());
    b.push_str(",\"stream\":true");
    if !omit.stream_options {
        b.push_str(",\"stream_options\":{\"include_usage\":true}");
    }
    if let Some(t) = f.thinking {
        b.push_str(",\"thinking\":{\"type\":");
        push_str(&mut b, t);
        b.push('}');
    }
    if let Some(e) = f.effort {
        b.push_str(",\"reasoning_effort\":");
        push_str(&mut b, e);
    }
    let tools: Vec<Value> = tools_list(req.tools_json)
        .into_iter()
        .filter(|t| !super::server_tools::chat_drops(t))
        .map(convert_tool)
        .collect();
    if !tools.is_empty() {
        b.push_str(",\"tools\":");
        b.push_str(&Value::Array(tools).to_string());
    }
    b.push_str(",\"messages\":[");
    let mut body = Body::new();
    body.push(b);
    let mut msgs: Vec<String> = Vec::new();
    if !req.system.is_empty() {
        msgs.push(
            Obj::new()
                .str("role", "system")
                .str("content", req.system)
                .finish(),
        );
    }
    // `reasoning_content` is DeepSeek's (it must come back with every assistant message
    // that called tools); OpenAI documents no such message field.
    let reasoning_content = !hosts::is_openai(&cfg.base_url);
    for m in parsed_messages(req) {
        convert_message(m, reasoning_content, &mut msgs);
    }
    body.push_joined(msgs);
    body.push("]}");
    body
}

fn convert_tool(t: Map<String, Value>) -> Value {
    if t.get("type").and_then(Value::as_str) == Some("function") {
        return Value::Object(t);
    }
    let mut f = Map::new();
    f.insert("name".into(), t.get("name").cloned().unwrap_or(json!("")));
    f.insert(
        "description".into(),
        t.get("description").cloned().unwrap_or(json!("")),
    );
    f.insert("parameters".into(), tool_parameters(&t));
    json!({"type": "function", "function": Value::Object(f)})
}

fn convert_message(m: Map<String, Value>, reasoning_content: bool, out: &mut Vec<String>) {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    let blocks = match m.get("content") {
        Some(Value::Array(a)) => a,
        _ => {
            // String content (or anything else): passed through unchanged.
            out.push(Value::Object(m).to_string());
            return;
        }
    };
    match role {
        "assistant" => {
            let mut thinking = "";
            let mut content = String::new();
            let mut calls = Vec::new();
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("thinking") => thinking = b["thinking"].as_str().unwrap_or(""),
                    Some("text") => content.push_str(b["text"].as_str().unwrap_or("")),
                    Some("tool_use") => calls.push(json!({
                        "id": b.get("id").cloned().unwrap_or(json!("")),
                        "type": "function",
                        "function": {
                            "name": b.get("name").cloned().unwrap_or(json!("")),
                            "arguments": input_as_arguments(b.get("input")),
                        }
                    })),
                    _ => {}
                }
            }
            let mut o = Obj::new().str("role", "assistant");
            if reasoning_content {
                o = o.str("reasoning_content", thinking);
            }
            let mut o = o.str("content", &content);
            if !calls.is_empty() {
                o = o.value("tool_calls", &Value::Array(calls));
            }
            out.push(o.finish());
        }
        "user" if has_tool_result(blocks) => {
            // One `tool` message per result; images (and other text) go into a user
            // message after them, since tool messages carry text only.
            let mut extra = Vec::new();
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("tool_result") => {
                        let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                        let text = tool_result_text(b.get("content"));
                        out.push(
                            Obj::new()
                                .str("role", "tool")
                                .str("tool_call_id", id)
                                .str("content", &text)
                                .finish(),
                        );
                        extra.extend(tool_result_images(b.get("content")).into_iter().cloned());
                    }
                    Some("image") => extra.push(b.clone()),
                    _ => {}
                }
            }
            if !extra.is_empty() {
                let parts: Vec<Value> = extra.iter().filter_map(convert_part).collect();
                out.push(json!({"role": "user", "content": parts}).to_string());
            }
        }
        _ => {
            let parts: Vec<Value> = blocks.iter().filter_map(convert_part).collect();
            let mut m = m;
            m.insert("content".into(), Value::Array(parts));
            out.push(Value::Object(m).to_string());
        }
    }
}

fn has_tool_result(blocks: &[Value]) -> bool {
    blocks
        .iter()
        .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
}

/// A user content block in OpenAI form (images become data-URL `image_url` parts).
fn convert_part(b: &Value) -> Option<Value> {
    match b.get("type").and_then(Value::as_str) {
        Some("image") => {
            image_data_url(b).map(|url| json!({"type": "image_url", "image_url": {"url": url}}))
        }
        _ => Some(b.clone()),
    }
}

/// Stream normaliser: deltas live, tool calls (by `index`) at `finish_reason:"tool_calls"`
/// or `[DONE]`, usage and stop at `[DONE]`.
#[derive(Debug, Default)]
pub struct Normaliser {
    lead: LeadingNewlines,
    finish: Option<String>,
    /// By index: (id, name, arguments).
    tools: Vec<(String, String, String)>,
    tools_emitted: bool,
    usage: Usage,
}

impl Normaliser {
    fn emit_tools(&mut self, out: &mut dyn FnMut(StreamEvent)) {
        if self.tools_emitted {
            return;
        }
        self.tools_emitted = true;
        for (id, name, args) in self.tools.drain(..) {
            if name.is_empty() {
                continue;
            }
            let input_raw = if args.trim().is_empty() {
                "{}".to_string()
            } else {
                args
            };
            out(StreamEvent::ToolCall {
                name,
                id,
                input_raw,
            });
        }
    }
}

impl super::norm::Normaliser for Normaliser {
    fn event(&mut self, _name: &str, data: &str, out: &mut dyn FnMut(StreamEvent)) -> Flow {
        if data.trim() == "[DONE]" {
            self.emit_tools(out);
            return if self.finish.is_some() {
                Flow::Done
            } else {
                Flow::Fail {
                    msg: "Stream interrupted ([DONE] without a finish_reason)".into(),
                    retryable: false,
                }
            };
        }
        let v: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) => return Flow::Continue,
        };
        if let Some(e) = v.get("error") {
            let msg = text(e, &["message"])
                .map(str::to_string)
                .unwrap_or_else(|| e.to_string());
            let kind = format!(
                "{} {}",
                text(e, &["type"]).unwrap_or(""),
                text(e, &["code"]).unwrap_or("")
            );
            return Flow::Fail {
                msg,
                retryable: kind.contains("overload") || kind.contains("server_error"),
            };
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            let prompt = num(u, &["prompt_tokens"]);
            let mut cached = num(u, &["prompt_tokens_details", "cached_tokens"]);
            if cached == 0 {
                // DeepSeek: prompt_cache_hit_tokens (its misses are the rest of the prompt).
                cached = num(u, &["cached_tokens"])
                    .max(num(u, &["cache_read_input_tokens"]))
                    .max(num(u, &["prompt_cache_hit_tokens"]));
            }
            self.usage.output = num(u, &["completion_tokens"]);
            self.usage.cache_read = cached;
            self.usage.input = prompt.saturating_sub(cached);
        }
        let Some(choice) = v.get("choices").and_then(|c| c.get(0)) else {
            return Flow::Continue;
        };
        let d = &choice["delta"];
        if let Some(r) = text(d, &["reasoning_content"]).or_else(|| text(d, &["reasoning"])) {
            if !r.is_empty() {
                out(StreamEvent::Thinking(r.to_string()));
            }
        }
        if let Some(c) = text(d, &["content"]) {
            let c = self.lead.apply(c);
            if !c.is_empty() {
                out(StreamEvent::Text(c.to_string()));
            }
        }
        if let Some(calls) = d.get("tool_calls").and_then(Value::as_array) {
            for (pos, c) in calls.iter().enumerate() {
                let idx = c.get("index").and_then(Value::as_u64).unwrap_or(pos as u64) as usize;
                if idx > 1024 {
                    continue;
                }
                if self.tools.len() <= idx {
                    self.tools.resize(idx + 1, Default::default());
                }
                let t = &mut self.tools[idx];
                if let Some(id) = text(c, &["id"]).filter(|s| !s.is_empty()) {
                    t.0 = id.to_string();
                }
                if let Some(n) = text(c, &["function", "name"]).filter(|s| !s.is_empty()) {
                    t.1 = n.to_string();
                }
                if let Some(a) = text(c, &["function", "arguments"]) {
                    t.2.push_str(a);
                    if !a.is_empty() {
                        out(StreamEvent::ToolInputDelta(a.len() as u64));
                    }
                }
            }
        }
        if let Some(f) = text(choice, &["finish_reason"]) {
            self.finish = Some(f.to_string());
            if f == "tool_calls" {
                self.emit_tools(out);
            }
        }
        Flow::Continue
    }

    fn usage(&self) -> Usage {
        self.usage
    }

    fn stop_reason(&self) -> String {
        match self.finish.as_deref() {
            Some("stop") | None => "end_turn".into(),
            Some("tool_calls") => "tool_use".into(),
            Some("length") => "max_tokens".into(),
            Some(other) => other.into(),
        }
    }

    fn interrupted_message(&self) -> &'static str {
        "Stream interrupted (no [DONE] received)"
    }

    fn pending_bytes(&self) -> usize {
        self.tools.iter().map(|t| t.2.len()).sum()
    }
}

#[cfg(test)]
#[path = "openai_tests.rs"]
mod tests;
