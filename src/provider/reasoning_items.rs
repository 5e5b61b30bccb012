//! Responses API reasoning, the stateless way OpenAI documents it: requests say
//! `"store":false` and `"include":["reasoning.encrypted_content"]`; each `reasoning` output
//! item (with its encrypted content) is kept on the thinking block of the stored assistant
//! line and sent back as an input item before that call's function calls, so a reasoning
//! model keeps its reasoning across a tool loop without the server storing anything.
//! DeepSeek's Responses API returns its reasoning items in the same place; they are
//! replayed the same way (its thinking must come back in tool loops, as `reasoning_content`
//! must in its chat API).
//!
//! Stored shape (an extra key on the thinking block, ignored by readers of the shell format):
//! `"responses_reasoning":{"host":"api.openai.com","items":[{"type":"reasoning",…}]}`.
//! Items are replayed only to the host that made them: another server cannot read them.
use super::hosts;
use super::models::{self, Vendor};
use super::{ProviderConfig, Request};
use crate::options::Effort;
use serde_json::{json, Value};

/// The key on the thinking block.
pub const KEY: &str = "responses_reasoning";

/// The thinking block's extra members for the reasoning items of one call (`""` for none).
pub fn reasoning_extra(items: &[String], base_url: &str) -> String {
    let parsed: Vec<Value> = items
        .iter()
        .filter_map(|i| serde_json::from_str::<Value>(i).ok())
        .filter(Value::is_object)
        .collect();
    if parsed.is_empty() {
        return String::new();
    }
    let host = hosts::host(base_url).unwrap_or_default();
    format!("\"{KEY}\":{}", json!({"host": host, "items": parsed}))
}

/// A `reasoning` output item as it is stored and replayed: everything the server sent but
/// its `status` (an output-only field there). A `web_search_call` item (the server's own
/// search, server_tools.rs) is kept whole: its `status` is a required input field.
pub fn clean_item(item: &Value) -> Option<String> {
    let mut o = item.as_object()?.clone();
    match o.get("type").and_then(Value::as_str) {
        Some("reasoning") => {
            o.remove("status");
        }
        Some("web_search_call") => {}
        _ => return None,
    }
    Some(Value::Object(o).to_string())
}

/// The reasoning items stored on an assistant message's thinking block for `host`.
pub fn replay_items<'m>(blocks: &'m [Value], host: &str) -> Vec<&'m Value> {
    let mut out = Vec::new();
    for b in blocks {
        if b.get("type").and_then(Value::as_str) != Some("thinking") {
            continue;
        }
        let Some(r) = b.get(KEY) else { continue };
        if r.get("host").and_then(Value::as_str) != Some(host) {
            continue;
        }
        if let Some(items) = r.get("items").and_then(Value::as_array) {
            out.extend(items.iter().filter(|i| i.is_object()));
        }
    }
    out
}

/// For DeepSeek, whose thinking must come back in a tool loop: an assistant message that
/// called tools but has no stored item (recorded before items were kept, or by another
/// provider) sends its thinking text as a reasoning item, so such a session is not stuck
/// on DeepSeek's 400. OpenAI's items are opaque and cannot be made up: none there.
pub fn from_thinking_text(blocks: &[Value], host: &str) -> Option<String> {
    if host != "api.deepseek.com" {
        return None;
    }
    let kind = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_string);
    if !blocks
        .iter()
        .any(|b| kind(b).as_deref() == Some("tool_use"))
    {
        return None;
    }
    let text: String = blocks
        .iter()
        .filter(|b| kind(b).as_deref() == Some("thinking"))
        .filter_map(|b| b.get("thinking").and_then(Value::as_str))
        .collect();
    Some(
        json!({"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": text}]})
            .to_string(),
    )
}

/// The reasoning fields of a Responses request (docs/providers.md, "Responses"):
/// - api.openai.com (or a model the table knows as OpenAI's): `store:false` always at the
///   official host; `reasoning.effort` only for models that take it, with a value they
///   accept; `include` for the encrypted reasoning when a reasoning model reasons.
/// - api.deepseek.com: `reasoning.effort` (`none` turns thinking off).
/// - any other server: `reasoning.effort` only when asked for.
pub struct Fields {
    pub store_false: bool,
    pub effort: Option<&'static str>,
    pub include_encrypted: bool,
}

pub fn fields(cfg: &ProviderConfig, req: &Request) -> Fields {
    let on = super::body::thinking_on(cfg, req);
    let asked = cfg.effort.unwrap_or(Effort::High);
    let known = models::lookup(&cfg.model);
    let official = hosts::is_openai(&cfg.base_url);
    if official || known.is_some_and(|m| m.vendor == Vendor::OpenAi) {
        let info = models::info(&cfg.model, Vendor::OpenAi);
        let effort = if on { info.effort_for(asked) } else { None };
        return Fields {
            store_false: official || (info.reasoning && effort.is_some()),
            effort,
            include_encrypted: info.reasoning && effort.is_some(),
        };
    }
    if hosts::is_deepseek(&cfg.base_url) {
        let effort = if on {
            models::info(&cfg.model, Vendor::DeepSeek)
                .effort_for(asked)
                .or(Some("high"))
        } else {
            Some("none")
        };
        return Fields {
            store_false: false,
            effort,
            include_encrypted: false,
        };
    }
    Fields {
        store_false: false,
        effort: on.then(|| super::body::effort(cfg)),
        include_encrypted: false,
    }
}

/// The host key items are stored under for `cfg`.
pub fn host_of(cfg: &ProviderConfig) -> String {
    let base = if cfg.base_url.is_empty() {
        cfg.kind.default_base_url()
    } else {
        &cfg.base_url
    };
    hosts::host(base).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_round_trip_through_the_thinking_block() {
        let item = json!({"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA","status":"completed"});
        let cleaned = clean_item(&item).unwrap();
        assert!(!cleaned.contains("status"));
        assert!(clean_item(&json!({"type":"message"})).is_none());
        let extra = reasoning_extra(&[cleaned], "https://api.openai.com/v1");
        let block: Value = serde_json::from_str(&format!(
            "{{\"type\":\"thinking\",\"thinking\":\"\",{extra}}}"
        ))
        .unwrap();
        let blocks = vec![block];
        let got = replay_items(&blocks, "api.openai.com");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0]["encrypted_content"], "gAAA");
        assert!(replay_items(&blocks, "api.deepseek.com").is_empty());
        assert_eq!(reasoning_extra(&[], "https://api.openai.com/v1"), "");
    }

    #[test]
    fn deepseek_gets_the_thinking_text_when_no_item_was_stored() {
        let blocks = vec![
            json!({"type":"thinking","thinking":"plan"}),
            json!({"type":"tool_use","id":"c1","name":"Read","input":{}}),
        ];
        let item = from_thinking_text(&blocks, "api.deepseek.com").unwrap();
        assert!(item.contains(r#""text":"plan""#), "{item}");
        assert!(from_thinking_text(&blocks, "api.openai.com").is_none());
        assert!(from_thinking_text(&blocks[..1], "api.deepseek.com").is_none());
    }
}
