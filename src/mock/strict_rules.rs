//! The stateless rules of the strict Anthropic mode: each checks one request body against
//! one documented rule of the Messages API and answers with the API's words
//! (docs/providers.md#the-strict-anthropic-server). The rules that need the server's
//! memory (signatures it issued) are in `strict_anthropic.rs`.
use super::strict_anthropic::Refusal;
use crate::provider::models::{self, ModelInfo, Vendor};
use serde_json::Value;

/// Rule: the model must exist and not be retired (404 not_found_error `model: X`).
pub(super) fn known_model(model: &str) -> Result<&'static ModelInfo, Refusal> {
    match models::lookup(model) {
        Some(m) if m.vendor == Vendor::Anthropic && !m.is_retired() => Ok(m),
        _ => Err(Refusal {
            status: 404,
            kind: "not_found_error",
            message: format!("model: {model}"),
        }),
    }
}

/// Rule: max_tokens at most the model's max output.
pub(super) fn check_max_tokens(
    row: &ModelInfo,
    model: &str,
    max_tokens: u64,
) -> Result<(), Refusal> {
    if max_tokens > row.max_output {
        return Err(Refusal::bad(format!(
            "max_tokens: {max_tokens} > {}, which is the maximum allowed number of output tokens for {model}",
            row.max_output
        )));
    }
    Ok(())
}

/// Rules: the thinking type must be one the model accepts; `enabled` needs
/// 1024 ≤ budget_tokens < max_tokens. Returns whether thinking is on (`disabled` and
/// no field at all are off, except on a model that only thinks adaptively).
pub(super) fn check_thinking(row: &ModelInfo, v: &Value, max_tokens: u64) -> Result<bool, Refusal> {
    let Some(t) = v.get("thinking") else {
        return Ok(row.thinking.iter().all(|t| t == "adaptive") && !row.thinking.is_empty());
    };
    let ty = t["type"].as_str().unwrap_or("");
    if !["adaptive", "enabled", "disabled"].contains(&ty) {
        return Err(Refusal::bad(format!(
            "thinking: Input tag '{ty}' found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'"
        )));
    }
    if !row.thinking.iter().any(|x| x == ty) {
        let hint = if row.thinking.iter().any(|x| x == "adaptive") {
            " Use thinking.type.adaptive and output_config.effort to control thinking behavior."
        } else {
            ""
        };
        return Err(Refusal::bad(format!(
            "thinking.type.{ty} is not supported for this model.{hint}"
        )));
    }
    if ty == "enabled" {
        let Some(b) = t.get("budget_tokens").and_then(Value::as_u64) else {
            return Err(Refusal::bad(
                "thinking.enabled.budget_tokens: Field required",
            ));
        };
        if b < 1024 {
            return Err(Refusal::bad(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
            ));
        }
        if b >= max_tokens {
            return Err(Refusal::bad("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"));
        }
    }
    Ok(ty != "disabled")
}

/// Rules: `output_config.effort` only on a model that takes effort, with a value it takes.
pub(super) fn check_effort(row: &ModelInfo, v: &Value) -> Result<(), Refusal> {
    let Some(e) = v.pointer("/output_config/effort") else {
        return Ok(());
    };
    if !row.takes_effort() {
        return Err(Refusal::bad(
            "This model does not support the effort parameter.",
        ));
    }
    let e = e.as_str().unwrap_or("");
    if !row.effort.iter().any(|x| x == e) {
        let list = row
            .effort
            .iter()
            .map(|x| format!("'{x}'"))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(Refusal::bad(format!(
            "output_config.effort: Input should be {list}"
        )));
    }
    Ok(())
}

/// Rule: tool names are unique.
pub(super) fn check_tools(v: &Value) -> Result<(), Refusal> {
    let mut seen = std::collections::HashSet::new();
    for t in v["tools"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        if !seen.insert(t["name"].as_str().unwrap_or("")) {
            return Err(Refusal::bad("tools: Tool names must be unique."));
        }
    }
    Ok(())
}

pub(super) fn messages(v: &Value) -> &[Value] {
    v["messages"].as_array().map(Vec::as_slice).unwrap_or(&[])
}

pub(super) fn content(m: &Value) -> &[Value] {
    m["content"].as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// Index of the first message of the current tool loop: the last user message that is
/// plain text (not only tool results).
pub(super) fn current_loop_start(msgs: &[Value]) -> usize {
    msgs.iter()
        .rposition(|m| {
            m["role"] == "user"
                && (m["content"].is_string()
                    || content(m).iter().any(|b| b["type"] != "tool_result"))
        })
        .unwrap_or(0)
}

/// Rules: no empty text block anywhere (system included); at most 4 `cache_control`
/// breakpoints in tools, system and messages together.
pub(super) fn check_blocks(v: &Value) -> Result<(), Refusal> {
    let mut marks = 0;
    let mut count = |b: &Value| {
        if b.get("cache_control").is_some() {
            marks += 1;
        }
    };
    for t in v["tools"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        count(t);
    }
    let system = v["system"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for b in system {
        count(b);
        if b["type"] == "text" && b["text"].as_str() == Some("") {
            return Err(Refusal::bad(
                "system: text content blocks must be non-empty",
            ));
        }
    }
    for (i, m) in messages(v).iter().enumerate() {
        if m["content"].as_str() == Some("") {
            return Err(Refusal::bad(format!(
                "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
            )));
        }
        for (j, b) in content(m).iter().enumerate() {
            count(b);
            check_members(i, j, b)?;
            if b["type"] == "text" && b["text"].as_str().unwrap_or("").is_empty() {
                return Err(Refusal::bad(
                    "messages: text content blocks must be non-empty",
                ));
            }
            if let Some(inner) = b["content"].as_array() {
                for c in inner {
                    count(c);
                }
            }
        }
    }
    if marks > 4 {
        return Err(Refusal::bad(format!(
            "A maximum of 4 blocks with cache_control may be provided. Found {marks}."
        )));
    }
    Ok(())
}

/// Rule: a thinking block has `type`, `thinking` and `signature`, a redacted_thinking
/// block `type` and `data`; the API refuses any other member (pydantic's words).
fn check_members(i: usize, j: usize, b: &Value) -> Result<(), Refusal> {
    let ty = b["type"].as_str().unwrap_or("");
    let allowed: &[&str] = match ty {
        "thinking" => &["type", "thinking", "signature"],
        "redacted_thinking" => &["type", "data"],
        _ => return Ok(()),
    };
    let extra = b
        .as_object()
        .and_then(|o| o.keys().find(|k| !allowed.contains(&k.as_str())));
    match extra {
        Some(k) => Err(Refusal::bad(format!(
            "messages.{i}.content.{j}.{ty}.{k}: Extra inputs are not permitted"
        ))),
        None => Ok(()),
    }
}

/// Rules: every tool_use has its tool_result in the next message, and every tool_result
/// answers a tool_use of the message before it.
pub(super) fn check_tool_pairs(v: &Value) -> Result<(), Refusal> {
    let msgs = messages(v);
    let ids = |m: &Value, ty: &str, key: &str| -> Vec<String> {
        content(m)
            .iter()
            .filter(|b| b["type"] == ty)
            .map(|b| b[key].as_str().unwrap_or("").to_string())
            .collect()
    };
    for (i, m) in msgs.iter().enumerate() {
        let results = ids(m, "tool_result", "tool_use_id");
        if !results.is_empty() {
            let asked = match i.checked_sub(1).map(|p| &msgs[p]) {
                Some(p) if p["role"] == "assistant" => ids(p, "tool_use", "id"),
                _ => Vec::new(),
            };
            if let Some(bad) = results.iter().find(|r| !asked.contains(r)) {
                return Err(Refusal::bad(format!("messages.{i}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: {bad}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")));
            }
        }
        if m["role"] != "assistant" {
            continue;
        }
        let uses = ids(m, "tool_use", "id");
        if uses.is_empty() {
            continue;
        }
        let answered = msgs
            .get(i + 1)
            .map(|n| ids(n, "tool_result", "tool_use_id"))
            .unwrap_or_default();
        let missing: Vec<&str> = uses
            .iter()
            .filter(|u| !answered.contains(u))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(Refusal::bad(format!("messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", missing.join(", "))));
        }
    }
    Ok(())
}
