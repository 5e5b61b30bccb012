//! One HTTP attempt of a model call: stream the body to the worker, feed the SSE parser
//! and the provider's normaliser, and say how the attempt ended (`http.rs` decides what
//! happens next).
use super::diag::status_outcome;
use super::norm::{self, Flow};
use super::outgoing::{pipe, Body};
use super::transport::{drain_to_eof, recv, spawn_worker, Msg};
use super::{HttpOptions, ProviderKind, StreamEvent};
use crate::session::stats::Usage;
use crate::util::cancel::Cancel;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How an attempt ended.
pub(crate) enum Outcome {
    Done,
    Cancelled,
    Retry {
        msg: String,
        after: Option<Duration>,
    },
    Fatal(String),
    /// HTTP 400 naming an optional parameter the server does not know: the message for
    /// the user, and the server's own words (which name the field).
    Unsupported {
        msg: String,
        server: String,
    },
}

/// Bytes of one attempt, for a usage estimate when the server reports none.
#[derive(Default)]
pub(crate) struct Accounting {
    pub sent: usize,
    pub estimated: bool,
}

/// Token estimate from bytes (about four bytes a token for English text and JSON), for
/// servers that stream no usage: the context shown is never 0 for a non-empty session.
pub fn estimate_usage(sent_bytes: usize, received_bytes: usize) -> Usage {
    Usage {
        input: (sent_bytes as u64).div_ceil(4),
        output: (received_bytes as u64).div_ceil(4),
        cache_read: 0,
        cache_creation: 0,
    }
}

/// Where one attempt goes and how: the wire protocol, the HTTP client and its limits, the
/// endpoint and its headers. The same for every attempt of a call.
pub(crate) struct Endpoint<'a> {
    pub kind: ProviderKind,
    pub agent: &'a ureq::Agent,
    pub opts: &'a HttpOptions,
    pub url: &'a Arc<String>,
    pub hdrs: &'a Arc<Vec<(&'static str, String)>>,
}

/// One POST of `body` and its stream, normalised into `on_event`.
pub(crate) fn attempt(
    to: &Endpoint,
    body: &Body,
    cancel: &Cancel,
    start: Instant,
    first_token: &mut Option<u64>,
    acc: &mut Accounting,
    on_event: &mut dyn FnMut(StreamEvent),
) -> Outcome {
    let Endpoint {
        kind,
        agent,
        opts,
        url,
        hdrs,
    } = *to;
    acc.sent = body.len();
    let sent_at = Instant::now();
    let (tx, body_rx) = pipe(body.len());
    let rx = spawn_worker(
        agent.clone(),
        url.clone(),
        hdrs.clone(),
        body_rx,
        body.len(),
        cancel.clone(),
    );
    // The worker's own error (refused, a status before the body was read) arrives on
    // `rx` below when the feed stops early.
    body.feed(&tx, &|| cancel.is_cancelled());
    drop(tx);
    let mut sink = Sink {
        norm: norm::for_kind(kind),
        flow: Flow::Continue,
        emitted: false,
        content_at: None,
        received: 0,
        start,
        first_token,
        on_event,
    };
    let mut parser = super::sse::SseParser::new();
    let mut first_byte: Option<Instant> = None;
    let mut end_err: Option<String> = None;
    loop {
        if cancel.is_cancelled() {
            return Outcome::Cancelled;
        }
        match recv(&rx) {
            None => {
                if let Some(o) = timed_out(opts, url, sent_at, first_byte, &sink) {
                    return o;
                }
                continue;
            }
            Some(Msg::Chunk(c)) => {
                first_byte.get_or_insert_with(Instant::now);
                parser.feed_owned(&c, &mut |n, d| sink.handle(n, d));
            }
            Some(Msg::Eof) => {
                parser.finish_owned(&mut |n, d| sink.handle(n, d));
                break;
            }
            Some(Msg::ReadErr(e)) => {
                end_err = Some(e);
                break;
            }
            Some(Msg::Status {
                code,
                retry_after,
                body,
            }) => return status_outcome(kind, url, code, retry_after, &body),
            Some(Msg::Redirect { code, location }) => {
                return Outcome::Fatal(super::diag::redirect_message(url, code, &location))
            }
            Some(Msg::Transport {
                msg,
                retryable,
                refused,
            }) => {
                return if refused {
                    Outcome::Fatal(format!(
                        "cannot connect to {url}: connection refused (is the server running?)"
                    ))
                } else if retryable {
                    Outcome::Retry {
                        msg: format!("POST {url}: {msg}"),
                        after: None,
                    }
                } else {
                    Outcome::Fatal(format!("POST {url}: {msg}"))
                };
            }
        }
        if sink.flow != Flow::Continue {
            break;
        }
        // A steady trickle of keep-alives never reaches the `None` branch above.
        if let Some(o) = timed_out(opts, url, sent_at, first_byte, &sink) {
            return o;
        }
    }
    if cancel.is_cancelled() {
        return Outcome::Cancelled;
    }
    if sink.flow == Flow::Done {
        drain_to_eof(&rx, cancel);
    }
    let begun = sink.content_at.is_some();
    let emitted = sink.emitted;
    match std::mem::replace(&mut sink.flow, Flow::Continue) {
        Flow::Done => {
            let mut usage = sink.norm.usage();
            if usage.input == 0 && usage.output == 0 && (emitted || sink.received > 0) {
                usage = estimate_usage(acc.sent, sink.received);
                acc.estimated = true;
            }
            super::set_last_usage_estimated(acc.estimated);
            let secs = first_byte.map(|t| t.elapsed().as_secs_f64()).unwrap_or(0.0);
            let speed = if secs > 0.0 {
                (usage.output as f64 / secs) as u64
            } else {
                0
            };
            (sink.on_event)(StreamEvent::Usage { usage, speed });
            (sink.on_event)(StreamEvent::Stop(sink.norm.stop_reason()));
            Outcome::Done
        }
        Flow::Fail { msg, retryable } if retryable && !emitted && !begun => {
            Outcome::Retry { msg, after: None }
        }
        Flow::Fail { msg, .. } => Outcome::Fatal(msg),
        Flow::Continue => match end_err {
            Some(e) if !begun => Outcome::Retry {
                msg: format!("Stream error: {e} (POST {url})"),
                after: None,
            },
            Some(e) => Outcome::Fatal(format!("{}: {e}", sink.norm.interrupted_message())),
            None if first_byte.is_none() => Outcome::Fatal(format!(
                "{}: the server sent an empty response (POST {url})",
                sink.norm.interrupted_message()
            )),
            None => Outcome::Fatal(sink.norm.interrupted_message().to_string()),
        },
    }
}

/// The first-byte and stall limits. Before the first byte the whole wait counts against
/// `first_byte` (never retried: resending a prompt to a server busy with it only queues
/// it again); after it, the time since the last content event (or the first byte)
/// counts against `stall`, retried only while no content had arrived.
fn timed_out(
    opts: &HttpOptions,
    url: &str,
    sent_at: Instant,
    first_byte: Option<Instant>,
    sink: &Sink,
) -> Option<Outcome> {
    match first_byte {
        None => (sent_at.elapsed() > opts.first_byte).then(|| {
            Outcome::Fatal(format!(
                "no response from POST {url} within {} s (BASH_AGENT_FIRST_BYTE_MS sets the limit)",
                secs(opts.first_byte)
            ))
        }),
        Some(fb) => {
            let since = sink.content_at.unwrap_or(fb).max(fb);
            if since.elapsed() <= opts.stall {
                return None;
            }
            let what = format!(
                "no content for {} s (BASH_AGENT_STALL_MS sets the limit)",
                secs(opts.stall)
            );
            Some(if sink.content_at.is_none() && !sink.emitted {
                Outcome::Retry {
                    msg: format!("Stream stalled: {what} (POST {url})"),
                    after: None,
                }
            } else {
                Outcome::Fatal(format!("{}: {what}", sink.norm.interrupted_message()))
            })
        }
    }
}

fn secs(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{:.1}", ms as f64 / 1000.0)
    }
}

/// Feeds SSE events to the normaliser and forwards what it emits.
struct Sink<'a, 'b> {
    norm: Box<dyn norm::Normaliser>,
    flow: Flow,
    emitted: bool,
    /// When the last content event arrived (text, thinking, tool input; not pings).
    content_at: Option<Instant>,
    /// Bytes of content received (text, thinking, tool input), for a usage estimate.
    received: usize,
    start: Instant,
    first_token: &'a mut Option<u64>,
    on_event: &'a mut (dyn FnMut(StreamEvent) + 'b),
}

impl Sink<'_, '_> {
    fn handle(&mut self, name: &str, data: &mut String) {
        if self.flow != Flow::Continue {
            return;
        }
        let pending = self.norm.pending_bytes();
        // What the event yields is forwarded after a big event's data is freed: a 50 MB
        // answer in one SSE line is then never held as data and text and logged text at once.
        let mut out: Vec<StreamEvent> = Vec::new();
        self.flow = self.norm.event(name, data, &mut |e| out.push(e));
        if data.capacity() > 1 << 20 {
            drop(std::mem::take(data));
        }
        let (emitted, received, first_token, start, on_event) = (
            &mut self.emitted,
            &mut self.received,
            &mut *self.first_token,
            self.start,
            &mut *self.on_event,
        );
        let mut content = false;
        let mut emit = |e: StreamEvent| {
            if !*emitted {
                *emitted = true;
                *first_token = Some(start.elapsed().as_millis() as u64);
            }
            match &e {
                StreamEvent::Text(t) | StreamEvent::Thinking(t) => {
                    *received += t.len();
                    content = true;
                }
                StreamEvent::ToolCall { .. } => content = true,
                _ => {}
            }
            on_event(e);
        };
        for e in out {
            emit(e);
        }
        let grown = self.norm.pending_bytes().saturating_sub(pending);
        if grown > 0 {
            self.received += grown;
            content = true;
        }
        if content {
            self.content_at = Some(Instant::now());
        }
    }
}
