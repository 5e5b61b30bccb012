//! One model call: build the body, run attempts on the transport worker, feed the SSE
//! parser and the provider's normaliser, retry per the policy in `retry.rs`.
//!
//! Retried (up to `max_retries`, exponential backoff with jitter, `retry-after` honoured
//! up to 30 s): transport errors that can pass (not a refused connection), HTTP
//! 408/409/429/5xx/529, an overload error in the stream, a read error or a stall — each
//! only while no content of the answer had arrived in that attempt, so a request whose
//! answer had begun is never sent twice. A 400 naming a parameter the server does not
//! support is retried once without the optional fields, and later calls of the run
//! leave them out at once.
use super::norm::{self, Flow};
use super::retry::{backoff, error_message, retryable_status, sleep_unless_cancelled};
use super::transport::{agent, drain_to_eof, endpoint, headers, recv, spawn_worker, Msg};
use super::{CallInfo, ProviderConfig, ProviderKind, Request, StreamEvent};
use crate::session::stats::Usage;
use crate::util::cancel::Cancel;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use super::transport::HttpOptions;

/// How an attempt ended.
enum Outcome {
    Done,
    Cancelled,
    Retry {
        msg: String,
        after: Option<Duration>,
    },
    Fatal(String),
    /// HTTP 400 naming an optional parameter the server does not know.
    Unsupported(String),
}

/// Endpoints that rejected an optional field in this run: later calls leave them out.
static LEAN_ENDPOINTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn is_lean(url: &str) -> bool {
    let l = LEAN_ENDPOINTS.lock().unwrap_or_else(|p| p.into_inner());
    l.iter().any(|u| u == url)
}

fn remember_lean(url: &str) {
    let mut l = LEAN_ENDPOINTS.lock().unwrap_or_else(|p| p.into_inner());
    if !l.iter().any(|u| u == url) {
        l.push(url.to_string());
    }
}

/// Fields a server may reject without the request losing its meaning.
const OPTIONAL_FIELDS: [&str; 5] = [
    "thinking",
    "reasoning_effort",
    "reasoning",
    "output_config",
    "stream_options",
];

/// The body without the optional fields (no reasoning, no `stream_options`).
fn lean_body(cfg: &ProviderConfig, req: &Request) -> String {
    let lean_req = Request {
        disable_thinking: true,
        ..req.clone()
    };
    super::body::build_body(cfg.kind, cfg, &lean_req).replacen(
        ",\"stream_options\":{\"include_usage\":true}",
        "",
        1,
    )
}

/// A 400 whose message names one of the optional fields as unsupported or unknown
/// (LiteLLM: `UnsupportedParamsError: … does not support parameters: ['reasoning_effort',
/// 'thinking']`; OpenAI-style servers: `Unrecognized request argument`, pydantic's
/// `Extra inputs are not permitted`).
pub fn names_unsupported_param(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    let says = [
        "unsupported",
        "not support",
        "unrecognized",
        "unknown",
        "extra inputs",
        "not permitted",
        "not allowed",
        "invalid field",
    ]
    .iter()
    .any(|w| b.contains(w));
    says && OPTIONAL_FIELDS.iter().any(|f| b.contains(f))
}

/// See [`super::stream`].
pub fn run(
    cfg: &ProviderConfig,
    req: &Request,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(StreamEvent),
) -> CallInfo {
    run_with(cfg, req, cancel, &HttpOptions::from_env(), on_event)
}

/// See [`super::stream_with`].
pub fn run_with(
    cfg: &ProviderConfig,
    req: &Request,
    cancel: &Cancel,
    opts: &HttpOptions,
    on_event: &mut dyn FnMut(StreamEvent),
) -> CallInfo {
    let start = Instant::now();
    let url = Arc::new(endpoint(cfg));
    let full = super::body::build_body(cfg.kind, cfg, req);
    let mut lean = is_lean(&url);
    let mut body = Arc::new(if lean { lean_body(cfg, req) } else { full });
    if cfg.verbose {
        if lean {
            verbose_note(&format!(
                "{url} rejected an optional field earlier in this run: sending without reasoning fields"
            ));
        }
        verbose_body(&body);
    }
    let hdrs = Arc::new(headers(cfg));
    let mut info = CallInfo::default();
    loop {
        let mut first_token = None;
        let mut acc = Accounting::default();
        let outcome = attempt(
            cfg.kind,
            &agent(opts),
            opts,
            &url,
            &hdrs,
            &body,
            cancel,
            start,
            &mut first_token,
            &mut acc,
            on_event,
        );
        info.first_token_ms = first_token;
        info.usage_estimated = acc.estimated;
        match outcome {
            Outcome::Done | Outcome::Cancelled => break,
            Outcome::Unsupported(msg) => {
                let lean_now = lean_body(cfg, req);
                if lean || lean_now == *body {
                    on_event(StreamEvent::Error(redact(&msg, &cfg.api_key)));
                    break;
                }
                lean = true;
                remember_lean(&url);
                if cfg.verbose {
                    verbose_note(&format!(
                        "{url} does not support an optional field ({}); retrying without reasoning fields for the rest of this run",
                        redact(&msg, &cfg.api_key)
                    ));
                }
                body = Arc::new(lean_now);
            }
            Outcome::Fatal(msg) => {
                on_event(StreamEvent::Error(redact(&msg, &cfg.api_key)));
                break;
            }
            Outcome::Retry { msg, after } => {
                if info.retries >= opts.max_retries {
                    let msg = if info.retries > 0 {
                        format!("{msg} (gave up after {} retries)", info.retries)
                    } else {
                        msg
                    };
                    on_event(StreamEvent::Error(redact(&msg, &cfg.api_key)));
                    break;
                }
                let delay = match after {
                    Some(a) => a.min(opts.max_retry_after),
                    None => backoff(opts.retry_base_ms, info.retries),
                };
                if !sleep_unless_cancelled(delay, cancel) {
                    break;
                }
                info.retries += 1;
                on_event(StreamEvent::Retry);
            }
        }
    }
    info.elapsed_ms = start.elapsed().as_millis() as u64;
    info
}

/// Bytes of one attempt, for a usage estimate when the server reports none.
#[derive(Default)]
struct Accounting {
    sent: usize,
    estimated: bool,
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

#[allow(clippy::too_many_arguments)]
fn attempt(
    kind: ProviderKind,
    agent: &ureq::Agent,
    opts: &HttpOptions,
    url: &Arc<String>,
    hdrs: &Arc<Vec<(&'static str, String)>>,
    body: &Arc<String>,
    cancel: &Cancel,
    start: Instant,
    first_token: &mut Option<u64>,
    acc: &mut Accounting,
    on_event: &mut dyn FnMut(StreamEvent),
) -> Outcome {
    acc.sent = body.len();
    let sent_at = Instant::now();
    let rx = spawn_worker(
        agent.clone(),
        url.clone(),
        hdrs.clone(),
        body.clone(),
        cancel.clone(),
    );
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

fn status_outcome(
    kind: ProviderKind,
    url: &str,
    code: u16,
    retry_after: Option<Duration>,
    body: &str,
) -> Outcome {
    let server = error_message(body);
    let mut ctx = format!("POST {url}");
    if let Some(h) = status_hint(kind, url, code, &server) {
        ctx.push_str("; ");
        ctx.push_str(h);
    }
    let msg = format!("HTTP {code}: {server} ({ctx})");
    if code == 400 && names_unsupported_param(body) {
        return Outcome::Unsupported(msg);
    }
    if retryable_status(code) {
        Outcome::Retry {
            msg,
            after: retry_after,
        }
    } else {
        Outcome::Fatal(msg)
    }
}

/// A hint for the usual causes of an HTTP error against a self-hosted server.
pub fn status_hint(kind: ProviderKind, url: &str, code: u16, server: &str) -> Option<&'static str> {
    let base = url
        .rsplit_once('/')
        .map(|(b, _)| b)
        .unwrap_or(url)
        .trim_end_matches('/');
    match code {
        404 | 405 if kind == ProviderKind::Claude && !base.ends_with("/v1") => {
            Some("Anthropic base URLs end in /v1")
        }
        404 | 405 if !base.ends_with("/v1") => {
            Some("OpenAI-compatible base URLs usually end in /v1")
        }
        404 => Some("check the base URL and the model name"),
        400 if server.contains("No connected db") => {
            Some("LiteLLM answers a wrong master key this way: check the API key")
        }
        401 | 403 => Some("check the API key"),
        _ => None,
    }
}

/// `[verbose] <note>` on stderr.
fn verbose_note(note: &str) {
    eprintln!("[verbose] {note}");
}

/// `[verbose] Request body (<KB>KB): <first 200 chars>...` on stderr (grey on a TTY).
fn verbose_body(body: &str) {
    use std::io::IsTerminal;
    let line = verbose_line(body);
    let err = std::io::stderr();
    if err.is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        eprintln!("\x1b[90m{line}\x1b[0m");
    } else {
        eprintln!("{line}");
    }
}

/// The verbose line (without colour): size in whole KB, the first 200 characters.
pub fn verbose_line(body: &str) -> String {
    let head: String = body.chars().take(200).collect();
    format!(
        "[verbose] Request body ({}KB): {head}...",
        body.len() / 1024
    )
}

/// A provider's error text never repeats the API key (some proxies echo it back).
fn redact(msg: &str, key: &str) -> String {
    if key.len() >= 8 && msg.contains(key) {
        msg.replace(key, "<redacted>")
    } else {
        msg.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbose_line_format() {
        let body = format!("{{\"x\":\"{}\"}}", "é".repeat(1500));
        let l = verbose_line(&body);
        assert!(
            l.starts_with("[verbose] Request body (2KB): {\"x\":\"éé"),
            "{l}"
        );
        assert_eq!(
            l.chars().count(),
            "[verbose] Request body (2KB): ".len() + 200 + 3
        );
    }
}
