//! What the Claude (Anthropic Messages) body sends beyond the stored lines: the reasoning
//! fields the model accepts (from the model table), which servers get the strict message
//! rules, and the prompt-cache breakpoints. docs/providers.md#the-model-table,
//! #thinking-round-trip and #prompt-caching.
//!
//! Servers come in two grades. An *Anthropic-grade* server is the official host, any
//! host that is not on this machine (a gateway in front of Anthropic: LiteLLM, OpenRouter,
//! a corporate proxy), any server asked for a model the table lists as Anthropic's, or
//! one whose stream signed thinking blocks (a stored signature). It gets the strict rules
//! (no unsigned thinking block, no empty text block: the API refuses both) and
//! `cache_control` breakpoints (part of the Messages API; gateways pass them on or
//! ignore them). A server on this machine asked for a model the table does not know
//! (llama.cpp, a local LiteLLM alias of a small model) that never signed anything gets
//! the stored lines byte for byte, as before: it has its own prefix cache, and nothing
//! there refuses what the shell version stores. DeepSeek's Anthropic endpoint keeps the
//! stored bytes too: its thinking is unsigned and it wants it back.
use super::models::{self, Vendor};
use super::{ProviderConfig, Request};
use crate::options::{Effort, Thinking};
use serde_json::{json, Map, Value};

/// The marker every breakpoint carries.
pub const EPHEMERAL: &str = r#"{"type":"ephemeral"}"#;

/// Whether `base_url` is the official Anthropic API.
pub fn is_official_anthropic(base_url: &str) -> bool {
    super::hosts::vendor_of(base_url) == Some(Vendor::Anthropic)
}

/// Whether the host of `base_url` is this machine.
pub fn is_loopback(base_url: &str) -> bool {
    // Parsed, so a `user:pass@` in front of the host does not hide it.
    let Some(host) = super::hosts::host(base_url) else {
        return false;
    };
    let host = host.trim_matches(['[', ']']);
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host == "0.0.0.0"
        || host.starts_with("127.")
}

/// The model's row when the table says it is Anthropic's.
fn anthropic_row(model: &str) -> Option<&'static models::ModelInfo> {
    models::lookup(model).filter(|m| m.vendor == Vendor::Anthropic)
}

/// See the module doc.
pub fn anthropic_grade(cfg: &ProviderConfig, req: &Request) -> bool {
    let base = cfg.base_url.as_str();
    if base.contains("://api.deepseek.com") {
        return false;
    }
    is_official_anthropic(base)
        || !is_loopback(base)
        || anthropic_row(&cfg.model).is_some()
        || req.messages.iter().any(|l| l.contains("\"signature\":"))
}

/// The reasoning fields of one Claude request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReasoningFields {
    pub thinking: Option<Thinking>,
    /// `budget_tokens` with `enabled` (required by the API: 1024 ≤ budget < max_tokens).
    pub budget: Option<u64>,
    pub effort: Option<&'static str>,
}

/// The reasoning fields for this call. A model the table knows gets only what it accepts
/// (the asked type mapped to the nearest accepted one, the effort to the nearest accepted
/// value); a model it does not know gets nothing on the official host unless asked, and
/// elsewhere what was asked (`--effort` alone asks for the default mode). Default flags
/// send reasoning fields to the official APIs only (gateways may reject them).
pub fn reasoning(cfg: &ProviderConfig, req: &Request, grade: bool) -> ReasoningFields {
    let none = ReasoningFields::default();
    if req.disable_thinking {
        return none;
    }
    let official = super::body::is_official(cfg.kind, &cfg.base_url);
    let asked_any = cfg.thinking.is_some() || cfg.effort.is_some();
    if !asked_any && !official {
        return none;
    }
    let asked_effort = cfg.effort.unwrap_or(Effort::High);
    let (thinking, effort) = match anthropic_row(&cfg.model) {
        Some(m) => {
            let t = match cfg.thinking {
                Some(t) => m.thinking_for(t),
                None => m.default_thinking(),
            };
            (t, t.and(m.effort_for(asked_effort)))
        }
        None if is_official_anthropic(&cfg.base_url) && !asked_any => (None, None),
        None => {
            let t = cfg.thinking.unwrap_or(Thinking::Adaptive);
            let t = (t != Thinking::Disabled).then_some(t);
            (t, t.map(|_| asked_effort.as_str()))
        }
    };
    let mut f = ReasoningFields {
        thinking,
        budget: None,
        effort,
    };
    if f.thinking == Some(Thinking::Enabled) && (grade || official) {
        if cfg.max_tokens <= 1024 {
            // No budget fits below max_tokens: thinking off rather than a refused request.
            return none;
        }
        f.budget = Some((cfg.max_tokens / 2).clamp(1024, cfg.max_tokens - 1));
    }
    f
}

/// How an assistant line goes to an Anthropic-grade server.
#[derive(Debug, PartialEq, Eq)]
pub enum Cleaned<'a> {
    /// As stored.
    Same,
    /// [`ASSISTANT_HEAD`] followed by this tail of the stored line: the empty thinking
    /// block (and empty text block) every stored line of the shell's shape starts with are
    /// cut out without parsing or copying the line (a long session has thousands).
    Spliced(&'a str),
    /// Re-serialised.
    Owned(String),
}

/// The opening every stored assistant line has.
pub const ASSISTANT_HEAD: &str = r#"{"role":"assistant","content":["#;
/// `,` and [`ASSISTANT_HEAD`]: the part before a spliced line that is not the first.
pub const SEP_ASSISTANT_HEAD: &str = r#",{"role":"assistant","content":["#;

/// [`strict_assistant_line`] without a copy for the common shapes. Exact: the fast path
/// is taken only when what remains holds no thinking block and no empty `text`.
pub fn strict_assistant(line: &str) -> Cleaned<'_> {
    const EMPTY_THINKING: &str = r#"{"type":"thinking","thinking":""},"#;
    const EMPTY_TEXT: &str = r#"{"type":"text","text":""},"#;
    if let Some(rest) = line.strip_prefix(ASSISTANT_HEAD) {
        let after_thinking = rest.strip_prefix(EMPTY_THINKING);
        let r = after_thinking.unwrap_or(rest);
        let after_text = r.strip_prefix(EMPTY_TEXT);
        let r = after_text.unwrap_or(r);
        if !r.contains("\"thinking\"") && !has_empty_text(r) && !r.starts_with(']') {
            return if after_thinking.is_some() || after_text.is_some() {
                Cleaned::Spliced(r)
            } else {
                Cleaned::Same
            };
        }
    }
    match strict_assistant_line(line) {
        Some(l) => Cleaned::Owned(l),
        None => Cleaned::Same,
    }
}

/// Whether a `"text"` key has the empty string as its value anywhere in `s`.
fn has_empty_text(s: &str) -> bool {
    s.match_indices("\"text\"").any(|(i, k)| {
        let after = s[i + k.len()..].trim_start();
        after
            .strip_prefix(':')
            .is_some_and(|v| v.trim_start().starts_with("\"\""))
    })
}

/// An assistant line under the strict rules: without unsigned thinking blocks and empty
/// text blocks (a placeholder text block if nothing would remain). Other lines, and
/// lines with nothing to drop, come back as `None` (sent as stored).
pub fn strict_assistant_line(line: &str) -> Option<String> {
    if !line.contains("\"role\":\"assistant\"") {
        return None;
    }
    let mut v: Value = serde_json::from_str(line).ok()?;
    let blocks = v.get_mut("content")?.as_array_mut()?;
    let before = blocks.len();
    let stripped = strip_reasoning_extras(blocks);
    blocks.retain(|b| match b.get("type").and_then(Value::as_str) {
        Some("thinking") => b
            .get("signature")
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty()),
        Some("text") => !b
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .is_empty(),
        _ => true,
    });
    if blocks.len() == before && !stripped {
        return None;
    }
    if blocks.is_empty() {
        blocks.push(json!({"type": "text", "text": "(no text)"}));
    }
    Some(v.to_string())
}

/// The members a reasoning block has in the Messages API; anything else on one (the
/// Responses items another provider's call stored there, `reasoning_items.rs`) is this
/// agent's own and never sent to a Claude-compatible server, which refuses extra inputs.
fn api_member(block_type: &str, key: &str) -> bool {
    match block_type {
        "thinking" => matches!(key, "type" | "thinking" | "signature"),
        "redacted_thinking" => matches!(key, "type" | "data"),
        _ => true,
    }
}

/// Drop the members the API does not define from the thinking and redacted_thinking
/// blocks; whether any went.
fn strip_reasoning_extras(blocks: &mut [Value]) -> bool {
    let mut changed = false;
    for b in blocks.iter_mut() {
        let Some(o) = b.as_object_mut() else { continue };
        let ty = o
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let n = o.len();
        o.retain(|k, _| api_member(&ty, k));
        changed |= o.len() != n;
    }
    changed
}

/// A stored line for a server that gets the stored bytes (not Anthropic-grade): as
/// stored, unless a thinking block carries another provider's extra members (a session
/// that moved from `-p responses`), which are cut out. `None`: send it as stored. Only
/// lines holding the key are parsed, so the common line keeps its bytes.
pub fn foreign_extras_stripped(line: &str) -> Option<String> {
    if !line.contains(super::reasoning_items::KEY) {
        return None;
    }
    let mut v: Value = serde_json::from_str(line).ok()?;
    let blocks = v.get_mut("content")?.as_array_mut()?;
    strip_reasoning_extras(blocks).then(|| v.to_string())
}

/// How far back from the end (and from the last assistant line) a markable line is looked
/// for: in practice it is the first or second line looked at.
const MARK_SEARCH: usize = 8;

/// The two message breakpoints, as `(index, marked line)` with `clean` applied first:
/// the rolling end of the conversation (the last line that can carry a marker, written
/// for the next request) and the previous request's rolling end (the last markable line
/// before the last assistant line), so its cached prefix is read even when this call
/// added more than the API's 20-block lookback. A user message whose content is a plain
/// string is not marked (it is sent as stored; the next call's marker covers it), so a
/// string-content request keeps its stored bytes.
pub fn breakpoints<'l>(
    lines: &[&'l str],
    clean: impl Fn(&'l str) -> std::borrow::Cow<'l, str>,
) -> Vec<(usize, String)> {
    let mark = |i: usize| with_breakpoint(&clean(lines[i])).map(|m| (i, m));
    let n = lines.len();
    let mut out = Vec::with_capacity(2);
    let Some(rolling) = (n.saturating_sub(MARK_SEARCH)..n).rev().find_map(mark) else {
        return out;
    };
    let last_assistant = lines
        .iter()
        .rposition(|l| l.contains("\"role\":\"assistant\""));
    let before = last_assistant.unwrap_or(0).min(rolling.0);
    let prev = (before.saturating_sub(MARK_SEARCH)..before)
        .rev()
        .find_map(mark);
    out.extend(prev);
    out.push(rolling);
    out
}

/// `line` with a breakpoint on the last block of its array content. `None` when it cannot
/// carry one (not JSON, string content, an empty text or a thinking block last).
pub fn with_breakpoint(line: &str) -> Option<String> {
    let mut v: Map<String, Value> = serde_json::from_str(line).ok()?;
    let blocks = v.get_mut("content")?.as_array_mut()?;
    let b = blocks.last_mut()?.as_object_mut()?;
    match b.get("type").and_then(Value::as_str) {
        Some("thinking" | "redacted_thinking") => return None,
        Some("text") if b.get("text").and_then(Value::as_str) == Some("") => return None,
        _ => {}
    }
    b.insert("cache_control".into(), json!({"type": "ephemeral"}));
    Some(Value::Object(v).to_string())
}

/// The system prompt as one text block with a breakpoint.
pub fn system_blocks(system: &str) -> String {
    json!([{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]).to_string()
}

/// The tools array (compact JSON, as `tools_compact` gives it) with a breakpoint on its last
/// tool; `None` when it is not an array of objects (the text goes as it is).
///
/// Spliced before the last object's closing brace rather than parsed and written back:
/// the built-in schemas are 12 KB, and a round trip through `Value` was a sixth of a
/// one-shot run's instructions. The bytes are the same as the round trip's (serde_json
/// keeps key order here and appends the new key).
pub fn tools_with_breakpoint(tools: &str) -> Option<String> {
    const MARK: &str = "\"cache_control\":{\"type\":\"ephemeral\"}";
    if !tools.starts_with("[{") {
        return None;
    }
    let inner = tools.strip_suffix("}]")?;
    let sep = if inner.ends_with('{') { "" } else { "," };
    Some(format!("{inner}{sep}{MARK}}}]"))
}

#[cfg(test)]
#[path = "claude_wire_tests.rs"]
mod tests;

#[cfg(test)]
mod extras_tests {
    use super::*;

    const FROM_RESPONSES: &str = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"plan","responses_reasoning":{"host":"api.openai.com","items":[{"type":"reasoning","id":"rs_1","encrypted_content":"gAAA"}]}},{"type":"text","text":"ok"}]}"#;

    #[test]
    fn responses_items_never_reach_a_claude_server_of_either_grade() {
        // Stored bytes path (a local server): the key goes, the unsigned thinking stays.
        assert_eq!(
            foreign_extras_stripped(FROM_RESPONSES).unwrap(),
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"plan"},{"type":"text","text":"ok"}]}"#
        );
        assert_eq!(
            foreign_extras_stripped(
                r#"{"role":"assistant","content":[{"type":"text","text":"x"}]}"#
            ),
            None
        );
        // Anthropic grade: a signed block that also carries items keeps only its members.
        let signed = r#"{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"S1","responses_reasoning":{"host":"api.openai.com","items":[]}},{"type":"tool_use","id":"t","name":"Read","input":{}}]}"#;
        let out = match strict_assistant(signed) {
            Cleaned::Owned(o) => o,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            out,
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"plan","signature":"S1"},{"type":"tool_use","id":"t","name":"Read","input":{}}]}"#
        );
        assert!(!claude_message_text(FROM_RESPONSES).contains("responses_reasoning"));
    }

    fn claude_message_text(l: &str) -> String {
        crate::provider::body::claude_message(l, false).into_owned()
    }
}
