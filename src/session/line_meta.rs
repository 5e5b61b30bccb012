//! What the request builder needs to know of one stored conversation line, read in one
//! pass without building a tree of values: whether it is a JSON object at all, its role,
//! whether it is a user turn (string content), and the ids of its tool_use and
//! tool_result blocks. Texts, inputs and results are only scanned (validated), never
//! copied. A line the typed read cannot take (a role that is not a string, a block that
//! is not an object, a duplicate key) falls back to the full parse, so the answers are
//! always those of `serde_json::Value`.
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;

/// The facts of one valid line.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LineMeta {
    /// `"role":"user"` with string content.
    pub user_turn: bool,
    /// ids of tool_use blocks (assistant lines only).
    pub tool_uses: Vec<String>,
    /// ids of tool_result blocks.
    pub tool_results: Vec<String>,
}

/// The facts of `line`, `None` when it is not a JSON object.
pub fn meta(line: &str) -> Option<LineMeta> {
    if !line.trim_start().starts_with('{') {
        return None;
    }
    if let Some(m) = super::line_quick::quick(line) {
        return Some(m);
    }
    match serde_json::from_str::<Fast>(line) {
        // serde_json skips an ignored value without checking that a string's `\u` escapes
        // pair up or that a number fits an f64, where the full parse refuses both: a line
        // that may hold either gets the full parse.
        Ok(f) if !has_surrogate_escape(line) && !may_overflow(line) => Some(f.into_meta()),
        _ => slow(line),
    }
}

/// Whether `line` may hold a number out of an f64's range: an exponent (a digit or `.`, then
/// `e`/`E`, a sign or not, a digit), or a run of more than 300 digits. Text inside strings
/// that looks so only costs the full parse.
fn may_overflow(line: &str) -> bool {
    let b = line.as_bytes();
    let mut run = 0usize;
    for (i, &c) in b.iter().enumerate() {
        if c.is_ascii_digit() {
            run += 1;
            if run > 300 {
                return true;
            }
            continue;
        }
        if matches!(c, b'e' | b'E') && (run > 0 || (i > 0 && b[i - 1] == b'.')) {
            let next = match b.get(i + 1) {
                Some(b'+' | b'-') => b.get(i + 2),
                n => n,
            };
            if next.is_some_and(u8::is_ascii_digit) {
                return true;
            }
        }
        run = 0;
    }
    false
}

/// Whether `line` may hold a `\uD800`–`\uDFFF` escape (a backslash before the `u` that is
/// itself escaped only costs the full parse).
fn has_surrogate_escape(line: &str) -> bool {
    let b = line.as_bytes();
    memchr::memmem::find_iter(b, b"\\u").any(|i| {
        matches!(b.get(i + 2), Some(b'd' | b'D'))
            && matches!(b.get(i + 3), Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'))
    })
}

/// The full parse: the reference answer, which [`meta`] must always give (the unit tests,
/// `tests/faults/fuzz_regress.rs` and the `conversation` fuzz target compare the two).
pub fn slow(line: &str) -> Option<LineMeta> {
    let v: Value = serde_json::from_str(line).ok()?;
    if !v.is_object() {
        return None;
    }
    let role = v.get("role").and_then(Value::as_str);
    Some(LineMeta {
        user_turn: role == Some("user") && v.get("content").is_some_and(Value::is_string),
        tool_uses: super::conversation::tool_use_ids(&v),
        tool_results: super::conversation::tool_result_ids(&v),
    })
}

#[derive(Deserialize)]
struct Fast<'a> {
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

impl Fast<'_> {
    fn into_meta(self) -> LineMeta {
        let role = self.role.as_deref();
        let mut m = LineMeta::default();
        match self.content {
            Some(Content::Text) => m.user_turn = role == Some("user"),
            Some(Content::Blocks(blocks)) => {
                for b in blocks {
                    match (b.ty.as_deref(), b.id, b.tool_use_id) {
                        (Some("tool_use"), Some(id), _) if role == Some("assistant") => {
                            m.tool_uses.push(id.into_owned())
                        }
                        (Some("tool_result"), _, Some(id)) => m.tool_results.push(id.into_owned()),
                        _ => {}
                    }
                }
            }
            Some(Content::Other) | None => {}
        }
        m
    }
}

/// `content`: a string, an array of blocks, or anything else.
enum Content<'a> {
    Text,
    Blocks(Vec<Block<'a>>),
    Other,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("message content")
            }
            fn visit_str<E>(self, _: &str) -> Result<Content<'a>, E> {
                Ok(Content::Text)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
            fn visit_unit<E>(self) -> Result<Content<'a>, E> {
                Ok(Content::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_integer_too_long_for_an_f64_gets_the_full_parse() {
        let l = format!(r#"{{"role":"user","content":"x","n":{}}}"#, "9".repeat(400));
        assert_eq!(slow(&l), None);
        assert_eq!(meta(&l), None);
        let ok = format!(r#"{{"role":"user","content":"x","n":{}}}"#, "9".repeat(300));
        assert_eq!(meta(&ok), slow(&ok));
    }

    #[test]
    fn fast_and_full_parse_agree() {
        for l in [
            r#"{"role":"user","content":"hi"}"#,
            r#"{"role":"user","content":"h\"i\u00e9"}"#,
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":""},{"type":"text","text":"x"},{"type":"tool_use","id":"a","name":"Bash","input":{"command":"ls"}},{"type":"tool_use","id":"b","name":"R","input":{}}]}"#,
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"},{"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"y"}]}]}"#,
            r#"{"role":"user","content":[{"type":"tool_use","id":"z"}]}"#,
            r#"{"role":"user"}"#,
            r#"{}"#,
            // A lone surrogate in a field the typed read skips (found by the fuzzer): the
            // full parse refuses the line, and so must `meta`.
            r#"{"role":"user","dontent":"a\ud18d\ude00b","n":1.5e3}"#,
            r#"{"role":"user","content":"x","pad":"\uDC00"}"#,
            r#"{"role":"user","content":"x","pad":"\ud83d\ude00 \\ud800"}"#,
            // Numbers out of an f64's range in a skipped field (also from the fuzzer).
            r#"{"role":"use00b","n":1.5e333333333}"#,
            r#"{"role":"user","content":"x","n":-2E+400}"#,
            r#"{"role":"user","content":"x","n":1.5e3,"id":"01e4"}"#,
        ] {
            assert_eq!(meta(l), slow(l), "{l}");
        }
        for l in super::super::line_quick::tests::DECLINED {
            assert_eq!(meta(l), slow(l), "{l}");
        }
        for bad in [
            r#"["role","user"]"#,
            r#"{"role":"user""#,
            "x",
            r#"{"a":1} x"#,
            "7",
        ] {
            assert_eq!(meta(bad), None, "{bad}");
        }
    }
}
