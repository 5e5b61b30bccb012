//! Anthropic Messages stream normaliser (the common parser the others are modelled on).
//!
//! Text and thinking deltas stream live; a thinking block's signature (`signature_delta`)
//! is emitted when the block stops and a `redacted_thinking` block whole, so both can be
//! stored and sent back verbatim (docs/providers.md#thinking-round-trip); a tool_use block is emitted once it is complete,
//! with the raw accumulated `partial_json` (possibly empty: the caller validates). Some
//! gateways (LiteLLM) open one tool_use block per argument fragment, all with the same
//! id: consecutive blocks sharing an id are one call, their fragments joined in order. A
//! closed block whose input is not yet one whole JSON value is held until the next block
//! or the end of the message shows whether it continues. Usage comes
//! from `message_start` and `message_delta`; `message_stop` is the terminal event.
use super::norm::{num, text, Flow};
use super::StreamEvent;
use crate::session::stats::Usage;
use serde_json::Value;

#[derive(Debug, Default)]
pub struct Normaliser {
    /// The open tool_use block: (name, id, partial JSON).
    tool: Option<(String, String, String)>,
    /// A closed tool_use block that a next block with the same id would continue.
    held: Option<(String, String, String)>,
    /// The id of the last call emitted whole at its block's end: LiteLLM may still open one
    /// more block with that id and no fragment, which is nothing, not a second call.
    done_id: Option<String>,
    /// The open thinking block's signature, accumulated from `signature_delta`s (or given
    /// whole in its `content_block_start`); emitted when the block stops. `None` while no
    /// thinking block is open.
    signature: Option<String>,
    /// The open `server_tool_use` block and its accumulated input JSON (server_tools.rs).
    server: Option<(Value, String)>,
    usage: Usage,
    stop: String,
}

impl super::norm::Normaliser for Normaliser {
    fn event(&mut self, name: &str, data: &str, out: &mut dyn FnMut(StreamEvent)) -> Flow {
        if name == "content_block_delta" {
            // Hot path: a typed parse of only the fields we use (no generic Value tree).
            if let Ok(ev) = serde_json::from_str::<DeltaEvent>(data) {
                let d = ev.delta;
                let s = |r: Option<&serde_json::value::RawValue>| {
                    r.and_then(|r| super::norm::json_string(r.get()))
                };
                let d = Delta {
                    kind: d.kind,
                    text: s(d.text),
                    thinking: s(d.thinking),
                    partial_json: s(d.partial_json),
                    signature: s(d.signature),
                };
                self.delta(d, out);
                return Flow::Continue;
            }
        }
        let v: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(_) => return Flow::Continue, // keep-alives, junk: ignored like the reference
        };
        let name = if name == "message" {
            text(&v, &["type"]).unwrap_or(name)
        } else {
            name
        };
        match name {
            "message_start" => {
                let u = &v["message"]["usage"];
                self.usage.input = num(u, &["input_tokens"]);
                self.usage.cache_read = num(u, &["cache_read_input_tokens"]);
                self.usage.cache_creation = num(u, &["cache_creation_input_tokens"]);
                self.usage.output = num(u, &["output_tokens"]);
            }
            "content_block_start" => {
                let b = &v["content_block"];
                match text(b, &["type"]) {
                    Some("tool_use") => {
                        let n = text(b, &["name"]).unwrap_or("").to_string();
                        let id = text(b, &["id"]).unwrap_or("").to_string();
                        match self.held.take() {
                            Some(mut h) if !id.is_empty() && h.1 == id => {
                                if h.0.is_empty() {
                                    h.0 = n;
                                }
                                self.tool = Some(h);
                            }
                            held => {
                                flush(held, out);
                                self.tool = Some((n, id, String::new()));
                            }
                        }
                    }
                    Some("text") => {
                        flush(self.held.take(), out);
                        emit_text(out, text(b, &["text"]), false)
                    }
                    Some("thinking") => {
                        flush(self.held.take(), out);
                        emit_text(out, text(b, &["thinking"]), true);
                        self.signature = Some(text(b, &["signature"]).unwrap_or("").to_string());
                    }
                    Some(t) if super::server_tools::is_server_block(t) => {
                        flush(self.held.take(), out);
                        if t == "server_tool_use" {
                            self.server = Some((b.clone(), String::new()));
                        } else {
                            out(StreamEvent::ServerBlock(b.to_string()));
                        }
                    }
                    Some("redacted_thinking") => {
                        // Encrypted reasoning: kept whole and sent back as it came.
                        flush(self.held.take(), out);
                        if let Some(d) = text(b, &["data"]) {
                            out(StreamEvent::RedactedThinking(d.to_string()));
                        }
                    }
                    _ => flush(self.held.take(), out),
                }
            }
            "content_block_delta" => {
                if let Ok(d) = serde_json::from_value::<Delta>(v["delta"].clone()) {
                    self.delta(d, out);
                }
            }
            "content_block_stop" => {
                if let Some((block, input)) = self.server.take() {
                    out(StreamEvent::ServerBlock(super::server_tools::with_input(
                        block, &input,
                    )));
                }
                if let Some(sig) = self.signature.take().filter(|s| !s.is_empty()) {
                    out(StreamEvent::ThinkingSignature(sig));
                }
                if let Some(t) = self.tool.take() {
                    flush(self.held.take(), out);
                    if t.2.trim().is_empty() && self.done_id.as_deref() == Some(t.1.as_str()) {
                        // The empty trailing block of a call already emitted.
                    } else if complete_json(&t.2) {
                        // A whole input cannot continue in a next block: run it now.
                        self.done_id = Some(t.1.clone()).filter(|id| !id.is_empty());
                        flush(Some(t), out);
                    } else {
                        self.held = Some(t);
                    }
                }
            }
            "message_delta" => {
                flush(self.held.take(), out);
                if let Some(s) = text(&v, &["delta", "stop_reason"]) {
                    self.stop = s.to_string();
                }
                let u = &v["usage"];
                let o = num(u, &["output_tokens"]);
                if o > 0 {
                    self.usage.output = o;
                }
                if self.usage.input == 0 {
                    self.usage.input = num(u, &["input_tokens"]);
                }
                if self.usage.cache_read == 0 {
                    self.usage.cache_read = num(u, &["cache_read_input_tokens"]);
                }
                if self.usage.cache_creation == 0 {
                    self.usage.cache_creation = num(u, &["cache_creation_input_tokens"]);
                }
            }
            "message_stop" => {
                flush(self.held.take(), out);
                return Flow::Done;
            }
            "error" => {
                let msg = text(&v, &["error", "message"])
                    .or_else(|| text(&v, &["message"]))
                    .unwrap_or("Stream error")
                    .to_string();
                let kind = text(&v, &["error", "type"]).unwrap_or("");
                return Flow::Fail {
                    msg,
                    retryable: kind == "overloaded_error",
                };
            }
            _ => {} // ping and unknown events
        }
        Flow::Continue
    }

    fn usage(&self) -> Usage {
        self.usage
    }

    fn stop_reason(&self) -> String {
        if self.stop.is_empty() {
            "end_turn".into()
        } else {
            self.stop.clone()
        }
    }

    fn interrupted_message(&self) -> &'static str {
        "Stream interrupted (no message_stop received)"
    }

    fn pending_bytes(&self) -> usize {
        self.tool.as_ref().map_or(0, |t| t.2.len()) + self.held.as_ref().map_or(0, |t| t.2.len())
    }
}

/// Non-empty input that parses as one JSON value (a fragment never does).
fn complete_json(s: &str) -> bool {
    !s.trim().is_empty() && serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok()
}

/// Emit a completed tool call.
fn flush(t: Option<(String, String, String)>, out: &mut dyn FnMut(StreamEvent)) {
    if let Some((name, id, input_raw)) = t {
        out(StreamEvent::ToolCall {
            name,
            id,
            input_raw,
        });
    }
}

/// The hot path's shape: the strings stay raw (borrowed from the SSE data) and are
/// decoded by [`super::norm::json_string`] into one buffer each.
#[derive(serde::Deserialize)]
struct DeltaEvent<'a> {
    #[serde(borrow)]
    delta: RawDelta<'a>,
}

#[derive(serde::Deserialize)]
struct RawDelta<'a> {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default, borrow)]
    text: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    thinking: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    partial_json: Option<&'a serde_json::value::RawValue>,
    #[serde(default, borrow)]
    signature: Option<&'a serde_json::value::RawValue>,
}

#[derive(serde::Deserialize, Default)]
struct Delta {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    partial_json: Option<String>,
    #[serde(default)]
    signature: Option<String>,
}

impl Normaliser {
    fn delta(&mut self, d: Delta, out: &mut dyn FnMut(StreamEvent)) {
        match d.kind.as_str() {
            "text_delta" => emit_owned(out, d.text, false),
            "thinking_delta" => emit_owned(out, d.thinking, true),
            "input_json_delta" => {
                if let (Some((_, acc)), Some(p)) = (self.server.as_mut(), d.partial_json.as_ref()) {
                    acc.push_str(p);
                } else if let (Some((_, _, acc)), Some(p)) = (self.tool.as_mut(), d.partial_json) {
                    acc.push_str(&p);
                    out(StreamEvent::ToolInputDelta(p.len() as u64));
                }
            }
            "signature_delta" => {
                if let (Some(acc), Some(p)) = (self.signature.as_mut(), d.signature) {
                    acc.push_str(&p);
                }
            }
            _ => {} // unknown deltas
        }
    }
}

fn emit_owned(out: &mut dyn FnMut(StreamEvent), s: Option<String>, thinking: bool) {
    match s {
        Some(s) if !s.is_empty() => out(if thinking {
            StreamEvent::Thinking(s)
        } else {
            StreamEvent::Text(s)
        }),
        _ => {}
    }
}

fn emit_text(out: &mut dyn FnMut(StreamEvent), s: Option<&str>, thinking: bool) {
    match s {
        Some(s) if !s.is_empty() => out(if thinking {
            StreamEvent::Thinking(s.to_string())
        } else {
            StreamEvent::Text(s.to_string())
        }),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::norm::{run_text, Flow};
    use super::super::{ProviderKind, StreamEvent};
    use crate::session::stats::Usage;

    const STREAM: &str = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":5,\"cache_creation_input_tokens\":2,\"output_tokens\":1}}}\n\n",
        "event: ping\ndata: {\"type\": \"ping\"}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"zz\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"\\nHi\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"Read\",\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\" \\\"a\\\"}\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":7}}\n\n",
    );

    #[test]
    fn full_stream() {
        let s = format!("{STREAM}event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n");
        let (ev, flow) = run_text(ProviderKind::Claude, s.as_bytes());
        assert_eq!(flow, Flow::Done);
        assert_eq!(
            ev,
            vec![
                StreamEvent::Thinking("hm".into()),
                StreamEvent::ThinkingSignature("zz".into()),
                StreamEvent::Text("\nHi".into()),
                StreamEvent::ToolInputDelta(8),
                StreamEvent::ToolInputDelta(5),
                StreamEvent::ToolCall {
                    name: "Read".into(),
                    id: "tu1".into(),
                    input_raw: "{\"path\": \"a\"}".into()
                },
                StreamEvent::Usage {
                    usage: Usage {
                        input: 10,
                        output: 7,
                        cache_read: 5,
                        cache_creation: 2
                    },
                    speed: 0
                },
                StreamEvent::Stop("tool_use".into()),
            ]
        );
    }

    #[test]
    fn cut_stream_is_an_error() {
        let (ev, _) = run_text(ProviderKind::Claude, STREAM.as_bytes());
        assert_eq!(
            ev.last(),
            Some(&StreamEvent::Error(
                "Stream interrupted (no message_stop received)".into()
            ))
        );
    }

    #[test]
    fn error_event() {
        let s = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
        let (ev, flow) = run_text(ProviderKind::Claude, s.as_bytes());
        assert_eq!(
            flow,
            Flow::Fail {
                msg: "Overloaded".into(),
                retryable: true
            }
        );
        assert_eq!(ev, vec![StreamEvent::Error("Overloaded".into())]);
    }
}
