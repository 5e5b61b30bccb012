//! DeepSeek's rules for the strict scripted server (`strict_openai` routes requests for
//! api.deepseek.com's chat and Responses paths here): a current DeepSeek model, its effort
//! names, and in thinking mode the reasoning sent back with the tool calls it led to.
//! Sources: DeepSeek's API reference and Thinking Mode guide (docs/providers.md).
use super::strict_openai::{reasoning_before_calls, str_of, Refusal};
use crate::provider::models::{self, Vendor};
use serde_json::{Map, Value};

fn deepseek_model(o: &Map<String, Value>) -> Option<Refusal> {
    let m = str_of(o, "model");
    match models::lookup(m) {
        Some(i) if i.vendor == Vendor::DeepSeek && !i.is_retired() => None,
        _ => Some((400, format!("Model Not Exist: {m}"))),
    }
}

/// DeepSeek's accepted effort names (its Thinking Mode guide maps each to low/high/max).
const DEEPSEEK_EFFORTS: &[&str] = &["minimal", "low", "medium", "high", "xhigh", "max", "ultra"];

pub(super) const DEEPSEEK_REPLAY: &str =
    "The `reasoning_content` in the thinking mode must be passed back to the API.";

/// DeepSeek chat rules: a current model; `thinking.type` enabled/disabled; a known effort;
/// in thinking mode (the default) every assistant message that called tools carries its
/// `reasoning_content`.
pub(super) fn deepseek_chat(o: &Map<String, Value>) -> Option<Refusal> {
    if let Some(r) = deepseek_model(o) {
        return Some(r);
    }
    let thinking = match o
        .get("thinking")
        .map(|t| t.get("type").and_then(Value::as_str))
    {
        None => true,
        Some(Some("enabled")) => true,
        Some(Some("disabled")) => false,
        Some(_) => return Some((400, "Invalid thinking type".into())),
    };
    if let Some(e) = o.get("reasoning_effort") {
        let e = e.as_str().unwrap_or("");
        if !DEEPSEEK_EFFORTS.contains(&e) {
            return Some((400, format!("Invalid reasoning_effort: {e}")));
        }
    }
    if !thinking {
        return None;
    }
    let msgs = o.get("messages").and_then(Value::as_array)?;
    for m in msgs {
        let called = m
            .get("tool_calls")
            .and_then(Value::as_array)
            .is_some_and(|c| !c.is_empty());
        if called && m.get("reasoning_content").and_then(Value::as_str).is_none() {
            return Some((400, DEEPSEEK_REPLAY.into()));
        }
    }
    None
}

/// DeepSeek Responses rules: a current model; effort none/low/high/max (and the names it
/// maps); while thinking, reasoning items come back before the function calls they led to.
pub(super) fn deepseek_responses(o: &Map<String, Value>) -> Option<Refusal> {
    if let Some(r) = deepseek_model(o) {
        return Some(r);
    }
    let effort = o
        .get("reasoning")
        .and_then(|r| r.get("effort"))
        .and_then(Value::as_str);
    if let Some(e) = effort {
        if e != "none" && !DEEPSEEK_EFFORTS.contains(&e) {
            return Some((400, format!("Invalid reasoning.effort: {e}")));
        }
    }
    if effort == Some("none") {
        return None;
    }
    let items = o.get("input").and_then(Value::as_array)?;
    reasoning_before_calls(
        items,
        "The reasoning in the thinking mode must be passed back to the API: function_call",
    )
}
