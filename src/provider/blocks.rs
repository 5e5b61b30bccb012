//! Reading the canonical (Claude Messages) shape: the tools list, the conversation lines
//! parsed one at a time, tool inputs, tool_result text and images. The OpenAI chat and
//! Responses converters read messages through these, so each conversion rule is one place.
use super::Request;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// tools.json as compact JSON text; `None` when empty or an empty array (OpenAI rejects
/// `"tools":[]`, so no provider gets one). Unparsable text is inserted trimmed, verbatim.
/// Text that is compact already (the built-in tools are, from compile time, and so is
/// what serde_json prints) goes in as it is: parsing and printing it again was most of
/// the cost of building a one-shot request.
pub(crate) fn tools_compact(tools_json: &str) -> Option<Cow<'_, str>> {
    let t = tools_json.trim();
    if t.is_empty() || t == "[]" {
        return None;
    }
    // The built-in tools alone are the compile-time compact text itself: no scan needed.
    if std::ptr::eq(t, crate::tools::TOOLS_JSON_COMPACT) || is_compact(t) {
        return Some(Cow::Borrowed(t));
    }
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Array(a)) if a.is_empty() => None,
        Ok(v) => Some(Cow::Owned(v.to_string())),
        Err(_) => Some(Cow::Borrowed(t)),
    }
}

/// Whether `t` has no whitespace outside its strings (a JSON array as serde_json prints
/// it). Strings are most of the text: each is skipped with a search for its closing quote.
fn is_compact(t: &str) -> bool {
    if !t.starts_with('[') {
        return false;
    }
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Outside a string: structure and literals, up to the next quote.
        let open = t[i..].find('"').map_or(b.len(), |k| i + k);
        if b[i..open].iter().any(u8::is_ascii_whitespace) {
            return false;
        }
        if open == b.len() {
            return true;
        }
        // Inside: the first quote after an even run of backslashes closes it.
        let mut j = open + 1;
        loop {
            let Some(k) = t[j..].find('"') else {
                return false;
            };
            let q = j + k;
            let slashes = b[j..q].iter().rev().take_while(|&&c| c == b'\\').count();
            j = q + 1;
            if slashes % 2 == 0 {
                break;
            }
        }
        i = j;
    }
    true
}

/// tools.json parsed into its tool objects (empty when absent or invalid).
pub(crate) fn tools_list(tools_json: &str) -> Vec<Map<String, Value>> {
    match serde_json::from_str::<Value>(tools_json.trim()) {
        Ok(Value::Array(a)) => a
            .into_iter()
            .filter_map(|v| match v {
                Value::Object(m) => Some(m),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The conversation lines parsed one at a time (unparsable or empty lines are skipped), so
/// a long session is never held as a whole tree of values.
pub(crate) fn parsed_messages<'r>(
    req: &'r Request,
) -> impl Iterator<Item = Map<String, Value>> + 'r {
    req.messages
        .iter()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| match serde_json::from_str::<Value>(l) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        })
}

/// A tool input (`input` of a tool_use block) as the JSON text to send as `arguments`.
pub(crate) fn input_as_arguments(input: Option<&Value>) -> String {
    match input {
        None | Some(Value::Null) => "{}".to_string(),
        Some(Value::String(s)) if s.trim().is_empty() => "{}".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    }
}

/// The text of a tool_result `content` (a string, or text blocks concatenated).
pub(crate) fn tool_result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
}

/// Image blocks inside a tool_result's array content (vision).
pub(crate) fn tool_result_images(content: Option<&Value>) -> Vec<&Value> {
    match content {
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("image"))
            .collect(),
        _ => Vec::new(),
    }
}

/// `data:<media type>;base64,<data>` for an Anthropic image block (base64 source), or the
/// URL of a url source.
pub(crate) fn image_data_url(block: &Value) -> Option<String> {
    let src = block.get("source")?;
    match src.get("type").and_then(Value::as_str) {
        Some("base64") => {
            let mt = src
                .get("media_type")
                .and_then(Value::as_str)
                .unwrap_or("image/png");
            let data = src.get("data").and_then(Value::as_str)?;
            Some(format!("data:{mt};base64,{data}"))
        }
        Some("url") => src.get("url").and_then(Value::as_str).map(str::to_string),
        _ => None,
    }
}

/// The `parameters` schema of an Anthropic-shape tool (input_schema | parameters | {}).
pub(crate) fn tool_parameters(tool: &Map<String, Value>) -> Value {
    tool.get("input_schema")
        .or_else(|| tool.get("parameters"))
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_text_is_kept_and_pretty_text_compacted() {
        assert!(is_compact(r#"[{"a":"x y","b":[1,2]}]"#));
        assert!(is_compact(r#"[{"a":"say \"hi there\"","b":"\\"}]"#));
        assert!(!is_compact("[{\"a\": 1}]"));
        assert!(!is_compact("[{\"a\":\"q\\\"\" , \"b\":1}]"));
        assert!(!is_compact(r#"[{"a":"open"#));
        assert!(!is_compact(r#"{"a":1}"#));
        let pretty = "[\n  {\"name\": \"Read\", \"d\": \"a b\"}\n]";
        assert_eq!(
            tools_compact(pretty).as_deref(),
            Some(r#"[{"name":"Read","d":"a b"}]"#)
        );
        let compact = r#"[{"name":"Read"}]"#;
        assert!(matches!(tools_compact(compact), Some(Cow::Borrowed(_))));
        assert_eq!(tools_compact(" [] "), None);
        assert_eq!(tools_compact("[ ]"), None);
        assert_eq!(tools_compact("not json").as_deref(), Some("not json"));
    }
}
