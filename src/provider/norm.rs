//! The common shape of the per-provider stream normalisers (docs/providers.md, "Streaming").
//!
//! A normaliser receives SSE events, emits content events (`Text`, `Thinking`,
//! `ToolCall`) through `out` as they complete, and reports the terminal state to the
//! transport ([`Flow`]). Usage and the stop reason are emitted by the transport once, at
//! the end, so that a retried attempt never produces two of them.
use super::StreamEvent;
use crate::session::stats::Usage;
use serde_json::Value;

/// What the transport should do after an event.
#[derive(Debug, Clone, PartialEq)]
pub enum Flow {
    Continue,
    /// The terminal event arrived: emit `Usage` + `Stop` and end the call.
    Done,
    /// The provider reported an error in the stream. `retryable` = an overload error
    /// (retried when nothing was emitted yet).
    Fail {
        msg: String,
        retryable: bool,
    },
}

/// One provider's stream state machine.
pub trait Normaliser: Send {
    fn event(&mut self, name: &str, data: &str, out: &mut dyn FnMut(StreamEvent)) -> Flow;
    /// Usage gathered so far.
    fn usage(&self) -> Usage;
    /// Normalised stop reason (Claude semantics).
    fn stop_reason(&self) -> String;
    /// The error when the stream ends without its terminal event.
    fn interrupted_message(&self) -> &'static str;
    /// Bytes of tool input accumulated but not yet emitted: its growth is content
    /// arriving (for the stall timer and the usage estimate).
    fn pending_bytes(&self) -> usize {
        0
    }
}

/// A fresh normaliser for `kind`.
pub fn for_kind(kind: super::ProviderKind) -> Box<dyn Normaliser> {
    match kind {
        super::ProviderKind::Claude => Box::<super::anthropic::Normaliser>::default(),
        super::ProviderKind::OpenAi => Box::<super::openai::Normaliser>::default(),
        super::ProviderKind::Responses => Box::<super::responses::Normaliser>::default(),
    }
}

/// `v[k1][k2]…` as a token count (0 when missing or not a number; clamped as
/// [`crate::session::stats::call_count`] says).
pub(crate) fn num(v: &Value, path: &[&str]) -> u64 {
    let mut cur = v;
    for k in path {
        match cur.get(k) {
            Some(x) => cur = x,
            None => return 0,
        }
    }
    crate::session::stats::call_count(cur).unwrap_or(0)
}

/// `v[k1][k2]…` as &str.
pub(crate) fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for k in path {
        cur = cur.get(k)?;
    }
    cur.as_str()
}

/// The value of a JSON string literal that serde_json already validated (a `RawValue`),
/// decoded into a buffer of its own size. serde_json's own `String` decoding of a string
/// with escapes goes through a scratch copy, so a 50 MB answer in one delta would be held
/// three times; this holds it once next to the SSE data. `None` for anything that is not
/// a plain string literal or holds an escape serde_json would refuse (a lone surrogate):
/// the caller then treats the field as missing, as the typed parse would have failed.
pub(crate) fn json_string(raw: &str) -> Option<String> {
    let s = raw.trim().strip_prefix('"')?.strip_suffix('"')?;
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while let Some(off) = b[i..].iter().position(|&c| c == b'\\') {
        out.push_str(s.get(i..i + off)?);
        i += off;
        let esc = *b.get(i + 1)?;
        i += 2;
        let c = match esc {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = hex4(b.get(i..i + 4)?)?;
                i += 4;
                if (0xD800..0xDC00).contains(&hi) {
                    if b.get(i..i + 2)? != b"\\u" {
                        return None;
                    }
                    let lo = hex4(b.get(i + 2..i + 6)?)?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    i += 6;
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))?
                } else {
                    char::from_u32(hi)?
                }
            }
            _ => return None,
        };
        out.push(c);
    }
    out.push_str(s.get(i..)?);
    Some(out)
}

fn hex4(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b).ok()?;
    if s.len() != 4 || !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// Strips leading CR/LF of the first text of a response (OpenAI and Responses, as the
/// reference does). Returns the part to emit (may be empty).
#[derive(Debug, Default)]
pub(crate) struct LeadingNewlines {
    seen_text: bool,
}

impl LeadingNewlines {
    pub fn apply<'a>(&mut self, s: &'a str) -> &'a str {
        if self.seen_text {
            return s;
        }
        let t = s.trim_start_matches(['\n', '\r']);
        if !t.is_empty() {
            self.seen_text = true;
        }
        t
    }
}

/// Run a whole SSE text through a normaliser (tests and the benchmark): returns the
/// emitted events plus the final flow.
pub fn run_text(kind: super::ProviderKind, sse: &[u8]) -> (Vec<StreamEvent>, Flow) {
    let mut n = for_kind(kind);
    let mut events = Vec::new();
    let mut flow = Flow::Continue;
    let mut parser = super::sse::SseParser::new();
    let mut handle = |name: &str, data: &str| {
        if flow == Flow::Continue {
            flow = n.event(name, data, &mut |e| events.push(e));
        }
    };
    parser.feed(sse, &mut handle);
    parser.finish(&mut handle);
    match &flow {
        Flow::Done => {
            events.push(StreamEvent::Usage {
                usage: n.usage(),
                speed: 0,
            });
            events.push(StreamEvent::Stop(n.stop_reason()));
        }
        Flow::Fail { msg, .. } => events.push(StreamEvent::Error(msg.clone())),
        Flow::Continue => events.push(StreamEvent::Error(n.interrupted_message().into())),
    }
    (events, flow)
}

#[cfg(test)]
mod tests {
    use super::json_string;

    #[test]
    fn json_string_decodes_like_serde() {
        for s in [
            "",
            "plain",
            "quote \" backslash \\ slash / nl \n cr \r tab \t \u{8} \u{c}",
            "ünï\u{1}\u{7f}😀 </script> \u{2028}",
            "\\u0041 not an escape",
        ] {
            let lit = serde_json::to_string(s).unwrap();
            assert_eq!(json_string(&lit).as_deref(), Some(s), "{lit}");
        }
        for lit in [r#""\u0041\u00e9\ud83d\ude00\/""#, r#""a\"b""#, r#" "x" "#] {
            let want: String = serde_json::from_str(lit).unwrap();
            assert_eq!(json_string(lit), Some(want), "{lit}");
        }
        for bad in [r#""\ud83d""#, r#""\ude00""#, r#""\x""#, "x", r#""\u12""#] {
            assert_eq!(json_string(bad), None, "{bad}");
        }
    }
}
