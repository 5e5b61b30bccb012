//! Strict mode of the scripted model server for OpenAI chat completions, the Responses API
//! and DeepSeek's OpenAI-compatible paths (`BASH_AGENT_MOCK_STRICT=1`): a request a real
//! server would refuse gets the status and the message that server sends, so the agent's
//! request building is tested against the documented rules, not against a lenient mock.
//!
//! Which rules apply follows the request's `Host` header: api.openai.com gets OpenAI's
//! rules per model (from the model table, `provider/models.rs`), api.deepseek.com
//! DeepSeek's; every host gets the structural rules (a tool result answers a call that was
//! made). api.anthropic.com and DeepSeek's `/anthropic/v1/messages` are left to the
//! Anthropic rules. Each rule cites its source in docs/providers.md.
use super::strict_deepseek::{deepseek_chat, deepseek_responses};
use super::wire::{Wire, ENCRYPTED_PREFIX};
use crate::provider::models::{self, Vendor};
use serde_json::{Map, Value};

/// A refusal: HTTP status and the server's message.
pub type Refusal = (u16, String);

/// Chat-completions request fields OpenAI documents.
const CHAT_FIELDS: &[&str] = &[
    "model",
    "messages",
    "max_tokens",
    "max_completion_tokens",
    "stream",
    "stream_options",
    "reasoning_effort",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "temperature",
    "top_p",
    "n",
    "stop",
    "presence_penalty",
    "frequency_penalty",
    "logit_bias",
    "logprobs",
    "top_logprobs",
    "user",
    "seed",
    "response_format",
    "store",
    "metadata",
    "service_tier",
    "modalities",
    "audio",
    "prediction",
    "web_search_options",
    "verbosity",
    "prompt_cache_key",
    "safety_identifier",
    "functions",
    "function_call",
];

/// Responses request fields OpenAI documents.
const RESPONSES_FIELDS: &[&str] = &[
    "model",
    "input",
    "instructions",
    "max_output_tokens",
    "stream",
    "stream_options",
    "store",
    "reasoning",
    "include",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "temperature",
    "top_p",
    "text",
    "truncation",
    "metadata",
    "user",
    "previous_response_id",
    "service_tier",
    "prompt_cache_key",
    "safety_identifier",
    "background",
    "max_tool_calls",
    "top_logprobs",
    "conversation",
    "prompt",
];

/// Message fields of the chat API per role (OpenAI).
fn message_fields(role: &str) -> &'static [&'static str] {
    match role {
        "assistant" => &[
            "role",
            "content",
            "tool_calls",
            "name",
            "refusal",
            "audio",
            "function_call",
        ],
        "tool" => &["role", "content", "tool_call_id"],
        _ => &["role", "content", "name"],
    }
}

/// The refusal for a request, `None` when a real server would take it.
pub fn check(
    wire: Wire,
    host: &str,
    path: &str,
    body: &str,
    extra: &[models::ModelInfo],
) -> Option<Refusal> {
    let host = host
        .rsplit_once(':')
        .map_or(host, |(h, _)| h)
        .to_ascii_lowercase();
    let path = path.split('?').next().unwrap_or(path);
    match host.as_str() {
        "api.anthropic.com" => return None,
        "api.openai.com" if !matches!(path, "/v1/chat/completions" | "/v1/responses") => {
            return Some((404, format!("Invalid URL (POST {path})")));
        }
        "api.deepseek.com" => {
            let ok = matches!(
                path,
                "/chat/completions" | "/v1/chat/completions" | "/responses" | "/v1/responses"
            );
            if path == "/anthropic/v1/messages" {
                return None;
            }
            if !ok {
                return Some((404, format!("Not Found: POST {path}")));
            }
        }
        _ => {}
    }
    let v: Value = match serde_json::from_str(body) {
        Ok(Value::Object(o)) => Value::Object(o),
        _ => {
            return Some((
                400,
                "We could not parse the JSON body of your request.".into(),
            ))
        }
    };
    let o = v.as_object()?;
    match (wire, host.as_str()) {
        (Wire::OpenAi, "api.openai.com") => openai_chat(o, extra).or_else(|| chat_structure(o)),
        (Wire::Responses, "api.openai.com") => {
            openai_responses(o, extra).or_else(|| responses_structure(o))
        }
        (Wire::OpenAi, "api.deepseek.com") => deepseek_chat(o).or_else(|| chat_structure(o)),
        (Wire::Responses, "api.deepseek.com") => {
            deepseek_responses(o).or_else(|| responses_structure(o))
        }
        (Wire::OpenAi, _) => chat_structure(o),
        (Wire::Responses, _) => responses_structure(o),
        (Wire::Anthropic, _) => None,
    }
}

pub(super) fn str_of<'a>(o: &'a Map<String, Value>, k: &str) -> &'a str {
    o.get(k).and_then(Value::as_str).unwrap_or("")
}

fn openai_model<'a>(
    o: &Map<String, Value>,
    extra: &'a [models::ModelInfo],
) -> Result<&'a models::ModelInfo, Refusal> {
    let m = str_of(o, "model");
    if let Some(x) = extra
        .iter()
        .find(|x| x.id == m && x.vendor == Vendor::OpenAi)
    {
        return Ok(x);
    }
    match models::lookup(m) {
        Some(info) if info.vendor == Vendor::OpenAi && !info.is_retired() => Ok(info),
        _ => Err((
            404,
            format!("The model `{m}` does not exist or you do not have access to it."),
        )),
    }
}

fn unsupported_value(param: &str, v: &str, accepted: &[String]) -> Refusal {
    let list: Vec<String> = accepted.iter().map(|a| format!("'{a}'")).collect();
    (
        400,
        format!(
            "Unsupported value: '{param}' does not support '{v}' with this model. Supported values are: {}.",
            list.join(", ")
        ),
    )
}

/// OpenAI chat rules: documented fields only; `max_tokens` refused by reasoning models;
/// `reasoning_effort` only on models that reason, with a value they accept; no message
/// fields OpenAI does not define (`reasoning_content` is DeepSeek's).
fn openai_chat(o: &Map<String, Value>, extra: &[models::ModelInfo]) -> Option<Refusal> {
    if let Some(k) = o.keys().find(|k| !CHAT_FIELDS.contains(&k.as_str())) {
        return Some((400, format!("Unrecognized request argument supplied: {k}")));
    }
    let info = match openai_model(o, extra) {
        Ok(i) => i,
        Err(r) => return Some(r),
    };
    if info.reasoning && o.contains_key("max_tokens") {
        return Some((400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.".into()));
    }
    if let Some(e) = o.get("reasoning_effort") {
        if !info.takes_effort() {
            return Some((
                400,
                "Unsupported parameter: 'reasoning_effort' is not supported with this model."
                    .into(),
            ));
        }
        let e = e.as_str().unwrap_or("");
        if !info.effort.iter().any(|x| x == e) {
            return Some(unsupported_value("reasoning_effort", e, &info.effort));
        }
    }
    let msgs = o.get("messages").and_then(Value::as_array)?;
    for (i, m) in msgs.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        if let Some(k) = m
            .as_object()?
            .keys()
            .find(|k| !message_fields(role).contains(&k.as_str()))
        {
            return Some((
                400,
                format!(
                    "Additional properties are not allowed ('{k}' was unexpected) - 'messages.{i}'"
                ),
            ));
        }
    }
    None
}

/// Chat structure on every host: a `tool` message answers a call of the assistant message
/// before it.
fn chat_structure(o: &Map<String, Value>) -> Option<Refusal> {
    let msgs = o.get("messages").and_then(Value::as_array)?;
    let mut open: Vec<String> = Vec::new();
    for m in msgs {
        match m.get("role").and_then(Value::as_str) {
            Some("assistant") => {
                open = m
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .map(|c| {
                        c.iter()
                            .filter_map(|c| c.get("id").and_then(Value::as_str))
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
            }
            Some("tool") => {
                let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
                if !open.iter().any(|c| c == id) {
                    return Some((400, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.".into()));
                }
            }
            _ => {}
        }
    }
    None
}

/// OpenAI Responses rules: documented fields only; `reasoning` only for reasoning models,
/// with an accepted effort; encrypted reasoning only without storage; with `store:false` a
/// reasoning model's function calls come back with their reasoning items (encrypted
/// content included), as the stateless mode requires.
fn openai_responses(o: &Map<String, Value>, extra: &[models::ModelInfo]) -> Option<Refusal> {
    if let Some(k) = o.keys().find(|k| !RESPONSES_FIELDS.contains(&k.as_str())) {
        return Some((400, format!("Unknown parameter: '{k}'.")));
    }
    let info = match openai_model(o, extra) {
        Ok(i) => i,
        Err(r) => return Some(r),
    };
    let effort = o.get("reasoning").and_then(|r| r.get("effort"));
    if let Some(e) = effort {
        if !info.reasoning || !info.takes_effort() {
            return Some((
                400,
                "Unsupported parameter: 'reasoning.effort' is not supported with this model."
                    .into(),
            ));
        }
        let e = e.as_str().unwrap_or("");
        if !info.effort.iter().any(|x| x == e) {
            return Some(unsupported_value("reasoning.effort", e, &info.effort));
        }
    }
    let store_false = o.get("store") == Some(&Value::Bool(false));
    let include_encrypted = o
        .get("include")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|i| i == "reasoning.encrypted_content"));
    if include_encrypted && !store_false {
        return Some((
            400,
            "Encrypted content is only supported with 'store' set to false.".into(),
        ));
    }
    let items = o.get("input").and_then(Value::as_array)?;
    for it in items {
        if it.get("type").and_then(Value::as_str) == Some("reasoning") {
            let enc = it.get("encrypted_content").and_then(Value::as_str);
            if store_false && !enc.is_some_and(|e| e.starts_with(ENCRYPTED_PREFIX)) {
                let id = it.get("id").and_then(Value::as_str).unwrap_or("");
                return Some((400, format!("Item with id '{id}' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.")));
            }
        }
    }
    let reasons = info.reasoning && effort.is_some_and(|e| e != "none");
    if store_false && reasons {
        return reasoning_before_calls(items, "Reasoning items must be sent back with their encrypted_content when `store` is false: function_call");
    }
    None
}

/// Every function call since the last user turn or tool output is preceded by a reasoning
/// item of the same answer (`what` starts the message).
pub(super) fn reasoning_before_calls(items: &[Value], what: &str) -> Option<Refusal> {
    let mut have_reasoning = false;
    for it in items {
        match it.get("type").and_then(Value::as_str) {
            Some("reasoning") => have_reasoning = true,
            Some("function_call") if !have_reasoning => {
                let id = it.get("call_id").and_then(Value::as_str).unwrap_or("");
                return Some((
                    400,
                    format!("{what} '{id}' has no reasoning item before it."),
                ));
            }
            Some("function_call_output") => have_reasoning = false,
            None if it.get("role").and_then(Value::as_str) == Some("user") => {
                have_reasoning = false
            }
            _ => {}
        }
    }
    None
}

/// Responses structure on every host: each `function_call_output` answers a
/// `function_call` made before it.
fn responses_structure(o: &Map<String, Value>) -> Option<Refusal> {
    if let Some(r) = super::web_search::check_responses(o) {
        return Some(r);
    }
    let items = o.get("input").and_then(Value::as_array)?;
    let mut calls: Vec<&str> = Vec::new();
    for it in items {
        match it.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                calls.push(it.get("call_id").and_then(Value::as_str).unwrap_or(""));
            }
            Some("function_call_output") => {
                let id = it.get("call_id").and_then(Value::as_str).unwrap_or("");
                if !calls.contains(&id) {
                    return Some((
                        400,
                        format!("No tool call found for function call output with call_id {id}."),
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
#[path = "strict_openai_tests.rs"]
mod tests;
