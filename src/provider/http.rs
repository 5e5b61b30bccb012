//! HTTP transport: one shared ureq agent (rustls, connection reuse), a worker thread per
//! attempt that reads the body and hands chunks over a channel (so Ctrl+C is honoured
//! within ~50 ms even while a read blocks), application-level retries with backoff.
//!
//! Retried (up to `max_retries`, exponential backoff with jitter, `retry-after` honoured
//! up to 30 s): connect/transport errors, HTTP 408/409/429/5xx/529, an overload error in
//! the stream, and a read error — each only while nothing was emitted in that attempt.
use super::norm::{self, Flow};
use super::{CallInfo, ProviderConfig, ProviderKind, Request, StreamEvent};
use crate::util::cancel::Cancel;
use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Transport settings.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Backoff base (doubles per retry, ±50 % jitter).
    pub retry_base_ms: u64,
    pub max_retries: u32,
    /// No byte for this long → error.
    pub stall: Duration,
    pub connect_timeout: Duration,
    /// Upper bound for a server's `retry-after`.
    pub max_retry_after: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            retry_base_ms: 500,
            max_retries: 3,
            stall: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(5),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl HttpOptions {
    /// Defaults, with `BASH_AGENT_RETRY_BASE_MS` and `BASH_AGENT_STALL_MS` overrides.
    pub fn from_env() -> HttpOptions {
        let mut o = HttpOptions::default();
        let env_u64 = |k: &str| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        if let Some(ms) = env_u64("BASH_AGENT_RETRY_BASE_MS") {
            o.retry_base_ms = ms;
        }
        if let Some(ms) = env_u64("BASH_AGENT_STALL_MS").filter(|&m| m > 0) {
            o.stall = Duration::from_millis(ms);
        }
        o
    }
}

/// The endpoint URL for a provider.
pub fn endpoint(cfg: &ProviderConfig) -> String {
    let base = if cfg.base_url.is_empty() {
        cfg.kind.default_base_url()
    } else {
        cfg.base_url.trim_end_matches('/')
    };
    let suffix = match cfg.kind {
        ProviderKind::Claude => "/messages",
        ProviderKind::OpenAi => "/chat/completions",
        ProviderKind::Responses => "/responses",
    };
    format!("{base}{suffix}")
}

/// Request headers in the reference order (§1.1). No auth header when the key is empty.
pub fn headers(cfg: &ProviderConfig) -> Vec<(&'static str, String)> {
    let mut h = vec![("Content-Type", "application/json".to_string())];
    match cfg.kind {
        ProviderKind::Claude => {
            if !cfg.api_key.is_empty() {
                h.push(("x-api-key", cfg.api_key.clone()));
            }
            h.push(("anthropic-version", "2023-06-01".into()));
            h.push(("User-Agent", user_agent()));
            h.push(("x-app", "cli".into()));
        }
        ProviderKind::OpenAi | ProviderKind::Responses => {
            if !cfg.api_key.is_empty() {
                h.push(("Authorization", format!("Bearer {}", cfg.api_key)));
            }
            h.push(("User-Agent", user_agent()));
        }
    }
    h
}

pub fn user_agent() -> String {
    format!("bash-agent/{}", env!("CARGO_PKG_VERSION"))
}

/// One agent per (stall, connect) setting, shared so connections are reused.
fn agent(opts: &HttpOptions) -> ureq::Agent {
    static AGENTS: Mutex<Vec<(Duration, Duration, ureq::Agent)>> = Mutex::new(Vec::new());
    let mut list = AGENTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, _, a)) = list
        .iter()
        .find(|(s, c, _)| *s == opts.stall && *c == opts.connect_timeout)
    {
        return a.clone();
    }
    let a = ureq::AgentBuilder::new()
        .timeout_connect(opts.connect_timeout)
        .timeout_read(opts.stall)
        .timeout_write(Duration::from_secs(60))
        .user_agent(&user_agent())
        .build();
    list.push((opts.stall, opts.connect_timeout, a.clone()));
    a
}

/// Messages from the worker thread of one attempt.
enum Msg {
    Chunk(Vec<u8>),
    Eof,
    ReadErr(String),
    Status {
        code: u16,
        retry_after: Option<Duration>,
        body: String,
    },
    Transport {
        msg: String,
        retryable: bool,
    },
}

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
                on_event(StreamEvent::Error(msg));
                break;
            }
            Outcome::Retry { msg, after } => {
                if info.retries >= opts.max_retries {
                    let msg = if info.retries > 0 {
                        format!("{msg} (gave up after {} retries)", info.retries)
                    } else {
                        msg
                    };
                    on_event(StreamEvent::Error(msg));
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

/// After the terminal event, let the worker read the (tiny) rest of the body for up to
/// 200 ms so the connection goes back to the pool before the next call.
fn drain_to_eof(rx: &Receiver<Msg>, cancel: &Cancel) {
    let until = Instant::now() + Duration::from_millis(200);
    while Instant::now() < until && !cancel.is_cancelled() {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(Msg::Chunk(_)) | Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
    }
}

/// Wait up to 50 ms for the next message (`None` on timeout). A vanished worker counts
/// as a read error.
fn recv(rx: &Receiver<Msg>) -> Option<Msg> {
    match rx.recv_timeout(Duration::from_millis(50)) {
        Ok(m) => Some(m),
        Err(RecvTimeoutError::Timeout) => None,
        Err(RecvTimeoutError::Disconnected) => Some(Msg::ReadErr("reader thread ended".into())),
    }
}

fn status_outcome(code: u16, retry_after: Option<Duration>, body: &str) -> Outcome {
    let msg = format!("HTTP {code}: {}", error_message(body));
    if matches!(code, 408 | 409 | 429 | 500..=599) {
        Outcome::Retry {
            msg,
            after: retry_after,
        }
    } else {
        Outcome::Fatal(msg)
    }
}

/// The provider's `error.message` (or `message`), else the body (trimmed, capped), else
/// `(empty)`.
pub fn error_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        let m = v
            .pointer("/error/message")
            .or_else(|| v.get("message"))
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .and_then(|m| m.as_str());
        if let Some(m) = m {
            return m.to_string();
        }
    }
    let t = body.trim();
    if t.is_empty() {
        return "(empty)".into();
    }
    let mut end = t.len().min(2000);
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    t[..end].to_string()
}

fn spawn_worker(
    agent: ureq::Agent,
    url: Arc<String>,
    hdrs: Arc<Vec<(&'static str, String)>>,
    body: Arc<String>,
    cancel: Cancel,
) -> Receiver<Msg> {
    let (tx, rx) = sync_channel::<Msg>(256);
    let spawned = std::thread::Builder::new()
        .name("provider-http".into())
        .spawn(move || {
            let mut r = agent.post(&url);
            for (k, v) in hdrs.iter() {
                r = r.set(k, v);
            }
            let resp = match r.send_string(&body) {
                Ok(resp) => resp,
                Err(ureq::Error::Status(code, resp)) => {
                    let retry_after = resp
                        .header("retry-after")
                        .and_then(|v| v.trim().parse::<f64>().ok())
                        .filter(|s| s.is_finite() && *s >= 0.0)
                        .map(|s| Duration::from_secs_f64(s.min(3600.0)));
                    let mut body = String::new();
                    let _ = resp.into_reader().take(1 << 20).read_to_string(&mut body);
                    let _ = tx.send(Msg::Status {
                        code,
                        retry_after,
                        body,
                    });
                    return;
                }
                Err(ureq::Error::Transport(t)) => {
                    let retryable = matches!(
                        t.kind(),
                        ureq::ErrorKind::ConnectionFailed | ureq::ErrorKind::Io
                    );
                    let _ = tx.send(Msg::Transport {
                        msg: t.to_string(),
                        retryable,
                    });
                    return;
                }
            };
            let mut reader = resp.into_reader();
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                if cancel.is_cancelled() {
                    return;
                }
                match reader.read(&mut buf) {
                    Ok(0) => {
                        let _ = tx.send(Msg::Eof);
                        return;
                    }
                    Ok(n) => {
                        if tx.send(Msg::Chunk(buf[..n].to_vec())).is_err() {
                            // The caller is done (terminal event seen): drain a little so
                            // the connection can go back to the pool.
                            let _ =
                                std::io::copy(&mut reader.take(64 * 1024), &mut std::io::sink());
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Msg::ReadErr(e.to_string()));
                        return;
                    }
                }
            }
        });
    if let Err(e) = spawned {
        let (tx2, rx2) = sync_channel::<Msg>(1);
        let _ = tx2.send(Msg::Transport {
            msg: format!("cannot start HTTP thread: {e}"),
            retryable: false,
        });
        return rx2;
    }
    rx
}

/// Exponential backoff with ±50 % jitter.
fn backoff(base_ms: u64, retry: u32) -> Duration {
    let exp = base_ms.saturating_mul(1u64 << retry.min(10));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let jitter = 0.5 + f64::from(nanos % 1000) / 1000.0;
    Duration::from_millis((exp as f64 * jitter) as u64)
}

/// Sleep in small steps; false when cancelled.
fn sleep_unless_cancelled(d: Duration, cancel: &Cancel) -> bool {
    let until = Instant::now() + d;
    loop {
        if cancel.is_cancelled() {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(Duration::from_millis(20)));
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

    #[test]
    fn error_messages() {
        assert_eq!(
            error_message(r#"{"type":"error","error":{"type":"x","message":"bad key"}}"#),
            "bad key"
        );
        assert_eq!(error_message("  "), "(empty)");
        assert_eq!(error_message("plain text\n"), "plain text");
    }

    #[test]
    fn backoff_grows_with_jitter() {
        for r in 0..4 {
            let d = backoff(100, r).as_millis() as u64;
            let exp = 100 << r;
            assert!(d >= exp / 2 && d <= exp * 3 / 2, "{r}: {d}");
        }
    }

    #[test]
    fn endpoints_and_headers() {
        let mut c = super::super::body::tests::cfg(ProviderKind::Claude, "adaptive");
        c.base_url = "http://h/v1/".into();
        assert_eq!(endpoint(&c), "http://h/v1/messages");
        let h = headers(&c);
        assert_eq!(h[1], ("x-api-key", "sk-secret".to_string()));
        c.kind = ProviderKind::OpenAi;
        c.api_key.clear();
        assert_eq!(endpoint(&c), "http://h/v1/chat/completions");
        assert!(headers(&c).iter().all(|(k, _)| *k != "Authorization"));
    }
}
