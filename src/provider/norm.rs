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

/// `v[k1][k2]…` as u64 (0 when missing or not a number).
pub(crate) fn num(v: &Value, path: &[&str]) -> u64 {
    let mut cur = v;
    for k in path {
        match cur.get(k) {
            Some(x) => cur = x,
            None => return 0,
        }
    }
    cur.as_u64()
        .or_else(|| cur.as_f64().map(|f| f.max(0.0) as u64))
        .unwrap_or(0)
}

/// `v[k1][k2]…` as &str.
pub(crate) fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for k in path {
        cur = cur.get(k)?;
    }
    cur.as_str()
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
