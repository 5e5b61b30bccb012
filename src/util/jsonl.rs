//! A tiny ordered JSON object writer for the byte-exact line formats (events.jsonl,
//! conversation.jsonl): keys come out in the order they are added, compact, and raw JSON
//! values (the model's tool input) are inserted verbatim.
use serde_json::Value;

/// Builder for one compact JSON object.
pub struct Obj {
    buf: String,
    first: bool,
}

impl Default for Obj {
    fn default() -> Self {
        Self::new()
    }
}

impl Obj {
    pub fn new() -> Obj {
        let mut buf = String::with_capacity(64);
        buf.push('{');
        Obj { buf, first: true }
    }

    fn key(&mut self, k: &str) {
        if !self.first {
            self.buf.push(',');
        }
        self.first = false;
        push_str(&mut self.buf, k);
        self.buf.push(':');
    }

    /// A string member.
    pub fn str(mut self, k: &str, v: &str) -> Obj {
        self.key(k);
        push_str(&mut self.buf, v);
        self
    }

    /// An integer member.
    pub fn num(mut self, k: &str, v: i64) -> Obj {
        self.key(k);
        self.buf.push_str(&v.to_string());
        self
    }

    /// A boolean member.
    pub fn bool(mut self, k: &str, v: bool) -> Obj {
        self.key(k);
        self.buf.push_str(if v { "true" } else { "false" });
        self
    }

    /// A member whose value is already valid JSON text (inserted verbatim).
    pub fn raw(mut self, k: &str, json: &str) -> Obj {
        self.key(k);
        self.buf.push_str(json);
        self
    }

    /// A member holding a serde value.
    pub fn value(mut self, k: &str, v: &Value) -> Obj {
        self.key(k);
        self.buf.push_str(&v.to_string());
        self
    }

    pub fn finish(mut self) -> String {
        self.buf.push('}');
        self.buf
    }
}

/// Append `s` as a JSON string literal (serde_json's escaping: `\"` `\\` `\b\f\n\r\t`,
/// other control bytes as lower-case `\u00xx`, `/` and non-ASCII raw — the reference rules).
pub fn push_str(buf: &mut String, s: &str) {
    buf.reserve(s.len() + 2);
    // Escaped straight into `buf` (no temporary copy of a large string). serde_json never
    // fails on a &str, and it writes whole UTF-8 pieces.
    if serde_json::to_writer(StrWriter(buf), s).is_err() {
        buf.push_str("\"\"");
    }
}

/// `io::Write` into a `String`, for serde_json's escaper (which only writes valid UTF-8
/// pieces of a `&str`).
pub struct StrWriter<'a>(pub &'a mut String);

impl std::io::Write for StrWriter<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let s = std::str::from_utf8(b)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        self.0.push_str(s);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Quote a string as a JSON literal.
pub fn quote(s: &str) -> String {
    let mut b = String::with_capacity(s.len() + 2);
    push_str(&mut b, s);
    b
}

/// Normalise the model's raw tool-input text: keep it verbatim when it is a JSON object,
/// `{}` when empty, and otherwise `None` (invalid JSON must never reach a JSONL file raw).
pub fn normalize_raw_object(raw: &str) -> Option<String> {
    let t = raw.trim();
    if t.is_empty() {
        return Some("{}".into());
    }
    match serde_json::from_str::<Value>(t) {
        Ok(Value::Object(_)) => Some(t.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn escaping_matches_reference() {
        let s = Obj::new()
            .str("type", "text")
            .str("content", "a\"b\\c\n\t\u{1}/é\u{7f}")
            .finish();
        assert_eq!(
            s,
            "{\"type\":\"text\",\"content\":\"a\\\"b\\\\c\\n\\t\\u0001/é\u{7f}\"}"
        );
    }
    #[test]
    fn raw_input_kept() {
        assert_eq!(
            normalize_raw_object(" {\"path\": \"x\"} ").unwrap(),
            "{\"path\": \"x\"}"
        );
        assert_eq!(normalize_raw_object("").unwrap(), "{}");
        assert!(normalize_raw_object("{\"a\":").is_none());
        assert!(normalize_raw_object("[1]").is_none());
    }
}
