//! A `tools/call` result as the agent's tool result: text parts joined, the other content
//! kinds named in a placeholder line (`[image: image/png, 1234 bytes]`: tool results are text
//! in this conversation format, so the model hears that an image came, not its pixels),
//! `isError` kept, structured content kept for the event.
use serde_json::Value;

/// One converted call result.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutput {
    pub is_error: bool,
    pub text: String,
    /// `structuredContent`, as the server sent it.
    pub structured: Option<Value>,
    /// The image parts (media type, base64 data), which the agent sends as images under
    /// `--vision on` (the text keeps their placeholder lines either way).
    pub images: Vec<(String, String)>,
}

fn b64_len(data: &str) -> usize {
    data.trim_end_matches('=').len() * 3 / 4
}

/// Convert a `tools/call` result object.
pub fn convert(result: &Value) -> CallOutput {
    let mut parts: Vec<String> = Vec::new();
    let mut images = Vec::new();
    if let Some(items) = result.get("content").and_then(Value::as_array) {
        for item in items {
            let s = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("");
            match s("type") {
                "text" => parts.push(s("text").to_string()),
                "image" | "audio" => {
                    parts.push(format!(
                        "[{}: {}, {} bytes]",
                        s("type"),
                        s("mimeType"),
                        b64_len(s("data"))
                    ));
                    if s("type") == "image" {
                        images.push((s("mimeType").to_string(), s("data").to_string()));
                    }
                }
                "resource" => {
                    let r = item.get("resource").cloned().unwrap_or(Value::Null);
                    match r.get("text").and_then(Value::as_str) {
                        Some(t) => parts.push(t.to_string()),
                        None => parts.push(format!(
                            "[resource {}: binary content not shown]",
                            r.get("uri").and_then(Value::as_str).unwrap_or("")
                        )),
                    }
                }
                "resource_link" => {
                    parts.push(format!("[resource link: {} {}]", s("name"), s("uri")))
                }
                other => parts.push(format!("[{other} content not shown]")),
            }
        }
    }
    let structured = result
        .get("structuredContent")
        .filter(|v| !v.is_null())
        .cloned();
    if parts.is_empty() {
        if let Some(v) = &structured {
            parts.push(v.to_string());
        }
    }
    CallOutput {
        is_error: result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        text: parts.join("\n"),
        structured,
        images,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_joined_and_images_are_named() {
        let r = convert(&json!({"content": [
            {"type": "text", "text": "a"},
            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
            {"type": "text", "text": "b"}
        ]}));
        assert_eq!(r.text, "a\n[image: image/png, 3 bytes]\nb");
        assert!(!r.is_error);
        let e = convert(&json!({"content": [{"type": "text", "text": "bad"}], "isError": true}));
        assert!(e.is_error);
        let s = convert(&json!({"content": [], "structuredContent": {"x": 1}}));
        assert_eq!(s.text, "{\"x\":1}");
        assert_eq!(s.structured, Some(json!({"x": 1})));
    }
}
