//! Tools the provider runs on its own side: web search (docs/claude-code.md, "WebSearch").
//! Claude Code's agents name `WebSearch`; here it is the provider's server-side tool where
//! the provider has one: Anthropic's `web_search_20250305` on a Claude server, the
//! Responses API's `web_search`. Elsewhere (chat completions, DeepSeek) it is not offered
//! and the run says so once on stderr.
//!
//! The agent's tools list carries a marker entry (`{"name":"WebSearch","server_tool":
//! "web_search"}`, added by the custom scope when an agent or command names WebSearch);
//! each body builder turns it into its provider's tool or drops it.
//!
//! What the server ran comes back as blocks (Anthropic: `server_tool_use` with its input,
//! `web_search_tool_result` with encrypted results the API wants back for citations).
//! They are stored as an extra key on the assistant line's thinking block,
//! `"server_tools":[block,…]` (the line keeps its shape; readers of the shell format
//! ignore the key), and spliced back in after the reasoning blocks when the line goes to
//! a Claude server. The Responses API's `web_search_call` items go the way of its
//! reasoning items (reasoning_items.rs): replayed to the host that made them.
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

/// The extra key on the thinking block.
pub const KEY: &str = "server_tools";
/// The marker's key in a tools.json entry.
pub const MARKER: &str = "server_tool";

/// The tools.json entry that asks for web search.
pub fn marker() -> Value {
    json!({"name": "WebSearch", MARKER: "web_search"})
}

/// Anthropic's web search tool as the Messages API takes it.
pub fn anthropic_tool() -> Value {
    json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 5})
}

/// Content block types a server tool produces.
pub fn is_server_block(t: &str) -> bool {
    matches!(
        t,
        "server_tool_use" | "web_search_tool_result" | "web_fetch_tool_result"
    )
}

/// A `server_tool_use` block with the input its `input_json_delta`s assembled.
pub fn with_input(mut block: Value, input: &str) -> String {
    if !input.trim().is_empty() {
        if let Ok(v) = serde_json::from_str::<Value>(input) {
            block["input"] = v;
        }
    }
    block.to_string()
}

/// The thinking block's extra member for a call's server blocks (`""` for none).
pub fn extra(blocks: &[String]) -> String {
    let parsed: Vec<Value> = blocks
        .iter()
        .filter_map(|b| serde_json::from_str::<Value>(b).ok())
        .filter(Value::is_object)
        .collect();
    if parsed.is_empty() {
        return String::new();
    }
    format!("\"{KEY}\":{}", Value::Array(parsed))
}

/// What the user sees of a server block: `web search: "query"` for a search, the count of
/// results for its result; None for others.
pub fn describe(block: &str) -> Option<String> {
    let v: Value = serde_json::from_str(block).ok()?;
    match v.get("type").and_then(Value::as_str)? {
        "server_tool_use" => Some(format!(
            "[{}: {}]",
            v["name"].as_str().unwrap_or("server tool"),
            v["input"]["query"]
                .as_str()
                .map_or_else(|| v["input"].to_string(), |q| format!("{q:?}"))
        )),
        "web_search_call" => Some(format!(
            "[web_search: {}]",
            v["action"]["query"]
                .as_str()
                .map_or_else(|| "…".to_string(), |q| format!("{q:?}"))
        )),
        "web_search_tool_result" => Some(match v["content"].as_array() {
            Some(r) => format!("[web_search: {} results]", r.len()),
            None => format!(
                "[web_search failed: {}]",
                v["content"]["error_code"].as_str().unwrap_or("error")
            ),
        }),
        _ => None,
    }
}

static WARNED: AtomicBool = AtomicBool::new(false);

/// Say once per run that web search is not offered, and why.
fn unavailable(why: &str) {
    if !WARNED.swap(true, Ordering::SeqCst) {
        crate::util::say::err_line(&format!(
            "bash-agent: warning: WebSearch is not available here: {why}; the model runs without it (docs/claude-code.md#websearch)"
        ));
    }
}

fn is_marker(t: &Map<String, Value>) -> bool {
    t.contains_key(MARKER)
}

/// The tools array for a Claude server: the marker becomes Anthropic's web search tool
/// when `offer`, else it is dropped (with the warning naming `why_not`). Text without the
/// marker comes back as it is.
pub fn claude_tools<'a>(tools: Cow<'a, str>, offer: bool, why_not: &str) -> Cow<'a, str> {
    if !tools.contains(MARKER) {
        return tools;
    }
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(&tools) else {
        return tools;
    };
    let mut out = Vec::with_capacity(items.len());
    for t in items {
        match t.as_object() {
            Some(o) if is_marker(o) => {
                if offer {
                    out.push(anthropic_tool());
                } else {
                    unavailable(why_not);
                }
            }
            _ => out.push(t),
        }
    }
    Cow::Owned(Value::Array(out).to_string())
}

/// For the Responses API: `Some(tool)` for the marker (`{"type":"web_search"}` when
/// `offer`, None-and-warn otherwise), `None` inside for ordinary tools.
pub fn responses_tool(t: &Map<String, Value>, offer: bool, why_not: &str) -> Option<Option<Value>> {
    if !is_marker(t) {
        return None;
    }
    if offer {
        Some(Some(json!({"type": "web_search"})))
    } else {
        unavailable(why_not);
        Some(None)
    }
}

/// For the chat-completions APIs: whether this tools.json entry is the marker (dropped,
/// with the warning).
pub fn chat_drops(t: &Map<String, Value>) -> bool {
    if is_marker(t) {
        unavailable("the chat-completions API has no server-side search tool");
        return true;
    }
    false
}

/// An assistant line for a Claude server: the stored server blocks taken off the thinking
/// block and put back in the content after the reasoning blocks, where they came. None:
/// the line has none.
pub fn spliced(line: &str) -> Option<String> {
    if !line.contains(KEY) {
        return None;
    }
    let mut v: Value = serde_json::from_str(line).ok()?;
    let blocks = v.get_mut("content")?.as_array_mut()?;
    let mut found: Vec<Value> = Vec::new();
    for b in blocks.iter_mut() {
        if let Some(o) = b.as_object_mut() {
            if let Some(Value::Array(list)) = o.remove(KEY) {
                found.extend(list);
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let at = blocks
        .iter()
        .rposition(|b| {
            matches!(
                b.get("type").and_then(Value::as_str),
                Some("thinking" | "redacted_thinking")
            )
        })
        .map_or(0, |i| i + 1);
    for (k, b) in found.into_iter().enumerate() {
        blocks.insert(at + k, b);
    }
    Some(v.to_string())
}

/// A line for any other server: the key taken off (its blocks mean nothing there).
pub fn stripped(line: &str) -> Option<String> {
    if !line.contains(KEY) {
        return None;
    }
    let mut v: Value = serde_json::from_str(line).ok()?;
    let mut any = false;
    for b in v.get_mut("content")?.as_array_mut()? {
        if let Some(o) = b.as_object_mut() {
            any |= o.remove(KEY).is_some();
        }
    }
    any.then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_stored_on_the_thinking_block_and_spliced_back() {
        let use_ = r#"{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"rust yaml"}}"#;
        let res = r#"{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://x","title":"X","encrypted_content":"E"}]}"#;
        let e = extra(&[use_.into(), res.into()]);
        assert!(e.starts_with("\"server_tools\":[{\"type\":\"server_tool_use\""));
        let line = format!(
            r#"{{"role":"assistant","content":[{{"type":"thinking","thinking":"","signature":"S",{e}}},{{"type":"text","text":"found"}}]}}"#
        );
        let out = spliced(&line).unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        let types: Vec<&str> = v["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            types,
            [
                "thinking",
                "server_tool_use",
                "web_search_tool_result",
                "text"
            ]
        );
        assert!(v["content"][0].get(KEY).is_none());
        assert!(!stripped(&line).unwrap().contains("server_tool_use"));
        assert_eq!(describe(use_).unwrap(), "[web_search: \"rust yaml\"]");
        assert_eq!(describe(res).unwrap(), "[web_search: 1 results]");
        assert_eq!(spliced(r#"{"role":"user","content":"x"}"#), None);
    }

    #[test]
    fn the_marker_becomes_the_tool_or_goes() {
        let tools = Value::Array(vec![json!({"name":"Read"}), marker()]).to_string();
        let on = claude_tools(Cow::Borrowed(&tools), true, "");
        assert!(on.contains("\"type\":\"web_search_20250305\""), "{on}");
        let off = claude_tools(Cow::Borrowed(&tools), false, "test");
        assert_eq!(off, r#"[{"name":"Read"}]"#);
        let m = marker();
        let m = m.as_object().unwrap();
        assert_eq!(
            responses_tool(m, true, ""),
            Some(Some(json!({"type":"web_search"})))
        );
        assert_eq!(responses_tool(m, false, "x"), Some(None));
        assert!(chat_drops(m));
    }
}
