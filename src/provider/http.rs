//! One model call: build the body, run attempts on the transport worker, feed the SSE
//! parser and the provider's normaliser, retry per the policy in `retry.rs`.
//!
//! Retried (up to `max_retries`, exponential backoff with jitter, `retry-after` honoured
//! up to 30 s): connect/transport errors, HTTP 408/409/429/5xx/529, an overload error in
//! the stream, and a read error — each only while nothing was emitted in that attempt.
use super::norm::{self, Flow};
use super::retry::{backoff, error_message, retryable_status, sleep_unless_cancelled};
use super::transport::{agent, drain_to_eof, endpoint, headers, recv, spawn_worker, Msg};
use super::{CallInfo, ProviderConfig, ProviderKind, Request, StreamEvent};
use crate::util::cancel::Cancel;
use std::sync::Arc;
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
    let body = Arc::new(super::body::build_body(cfg.kind, cfg, req));
    if cfg.verbose {
        verbose_body(&body);
    }
    let url = Arc::new(endpoint(cfg));
    let hdrs = Arc::new(headers(cfg));
    let mut info = CallInfo::default();
    loop {
        let mut first_token = None;
        let outcome = attempt(
            cfg.kind,
            &agent(opts),
            &url,
            &hdrs,
            &body,
            cancel,
            start,
            &mut first_token,
            on_event,
        );
        info.first_token_ms = first_token;
        match outcome {
            Outcome::Done | Outcome::Cancelled => break,
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

#[allow(clippy::too_many_arguments)]
fn attempt(
    kind: ProviderKind,
    agent: &ureq::Agent,
    url: &Arc<String>,
    hdrs: &Arc<Vec<(&'static str, String)>>,
    body: &Arc<String>,
    cancel: &Cancel,
    start: Instant,
    first_token: &mut Option<u64>,
    on_event: &mut dyn FnMut(StreamEvent),
) -> Outcome {
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
            None => continue,
            Some(Msg::Chunk(c)) => {
                first_byte.get_or_insert_with(Instant::now);
                parser.feed(&c, &mut |n, d| sink.handle(n, d));
            }
            Some(Msg::Eof) => {
                parser.finish(&mut |n, d| sink.handle(n, d));
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
            }) => return status_outcome(code, retry_after, &body),
            Some(Msg::Transport { msg, retryable }) => {
                return if retryable {
                    Outcome::Retry { msg, after: None }
                } else {
                    Outcome::Fatal(msg)
                };
            }
        }
        if sink.flow != Flow::Continue {
            break;
        }
    }
    if cancel.is_cancelled() {
        return Outcome::Cancelled;
    }
    if sink.flow == Flow::Done {
        drain_to_eof(&rx, cancel);
    }
    let emitted = sink.emitted;
    match std::mem::replace(&mut sink.flow, Flow::Continue) {
        Flow::Done => {
            let usage = sink.norm.usage();
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
        Flow::Fail { msg, retryable } if retryable && !emitted => {
            Outcome::Retry { msg, after: None }
        }
        Flow::Fail { msg, .. } => Outcome::Fatal(msg),
        Flow::Continue => match end_err {
            Some(e) if !emitted => Outcome::Retry {
                msg: format!("Stream error: {e}"),
                after: None,
            },
            Some(e) => Outcome::Fatal(format!("{}: {e}", sink.norm.interrupted_message())),
            None => Outcome::Fatal(sink.norm.interrupted_message().to_string()),
        },
    }
}

/// Feeds SSE events to the normaliser and forwards what it emits.
struct Sink<'a, 'b> {
    norm: Box<dyn norm::Normaliser>,
    flow: Flow,
    emitted: bool,
    start: Instant,
    first_token: &'a mut Option<u64>,
    on_event: &'a mut (dyn FnMut(StreamEvent) + 'b),
}

impl Sink<'_, '_> {
    fn handle(&mut self, name: &str, data: &str) {
        if self.flow != Flow::Continue {
            return;
        }
        let (emitted, first_token, start, on_event) = (
            &mut self.emitted,
            &mut *self.first_token,
            self.start,
            &mut *self.on_event,
        );
        let mut emit = |e: StreamEvent| {
            if !*emitted {
                *emitted = true;
                *first_token = Some(start.elapsed().as_millis() as u64);
            }
            on_event(e);
        };
        self.flow = self.norm.event(name, data, &mut emit);
    }
}

fn status_outcome(code: u16, retry_after: Option<Duration>, body: &str) -> Outcome {
    let msg = format!("HTTP {code}: {}", error_message(body));
    if retryable_status(code) {
        Outcome::Retry {
            msg,
            after: retry_after,
        }
    } else {
        Outcome::Fatal(msg)
    }
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
