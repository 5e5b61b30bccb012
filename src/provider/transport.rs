//! The HTTP side of one attempt: settings, endpoint and headers, the shared ureq agent,
//! and the worker thread that sends the request (its body read from the pipe the caller
//! feeds, `outgoing.rs`) and hands response chunks over a channel
//! (so the caller can poll for Ctrl+C while a read blocks).
use super::{ProviderConfig, ProviderKind};
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
    /// After the first byte: no content event for this long → error. Keep-alive comments,
    /// pings and empty events do not count as content.
    pub stall: Duration,
    /// From sending the request to the first byte of the response (a CPU prefill behind
    /// a gateway sends nothing, not even headers, until the first token).
    pub first_byte: Duration,
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
            first_byte: Duration::from_secs(300),
            connect_timeout: Duration::from_secs(5),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl HttpOptions {
    /// Defaults, with `BASH_AGENT_RETRY_BASE_MS`, `BASH_AGENT_STALL_MS` and
    /// `BASH_AGENT_FIRST_BYTE_MS` overrides.
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
        if let Some(ms) = env_u64("BASH_AGENT_FIRST_BYTE_MS").filter(|&m| m > 0) {
            o.first_byte = Duration::from_millis(ms);
        }
        o
    }
}

/// The endpoint URL for a provider. A Claude base is the `…/v1` folder as the shell
/// version takes it, except a base ending in `/anthropic` (the form DeepSeek documents for
/// the Anthropic SDKs, which append `/v1/messages`).
pub fn endpoint(cfg: &ProviderConfig) -> String {
    let base = if cfg.base_url.is_empty() {
        cfg.kind.default_base_url()
    } else {
        cfg.base_url.trim_end_matches('/')
    };
    let suffix = match cfg.kind {
        ProviderKind::Claude if sdk_style_base(base) => "/v1/messages",
        ProviderKind::Claude => "/messages",
        ProviderKind::OpenAi => "/chat/completions",
        ProviderKind::Responses => "/responses",
    };
    format!("{base}{suffix}")
}

/// `https://host/…/anthropic`: a base the Anthropic SDKs extend by `/v1`.
fn sdk_style_base(base: &str) -> bool {
    url::Url::parse(base).is_ok_and(|u| u.path().trim_end_matches('/').ends_with("/anthropic"))
}

/// Request headers in the reference order (docs/providers.md); no auth header without a key.
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

/// One agent per (read, connect) timeout and network route (proxy or direct, TLS or not),
/// shared so connections are reused. The socket read timeout is only a backstop behind
/// the first-byte and stall limits, which the caller enforces itself (a socket timeout
/// would be reset by every keep-alive byte). The TLS roots and the proxy come from
/// `util/net.rs`; the roots are loaded on the first https request only.
pub(crate) fn agent(opts: &HttpOptions, url: &str) -> ureq::Agent {
    type Key = (Duration, Duration, Option<String>, bool);
    static AGENTS: Mutex<Vec<(Key, ureq::Agent)>> = Mutex::new(Vec::new());
    let read = opts.stall.max(opts.first_byte) + Duration::from_secs(5);
    let key: Key = (
        read,
        opts.connect_timeout,
        crate::util::net::proxy_for(url),
        url.starts_with("https://"),
    );
    let mut list = AGENTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, a)) = list.iter().find(|(k, _)| *k == key) {
        return a.clone();
    }
    let b = ureq::AgentBuilder::new()
        .timeout_connect(opts.connect_timeout)
        .timeout_read(read)
        .timeout_write(Duration::from_secs(60))
        // A model API has no reason to redirect, and ureq would re-send every header but
        // `Authorization` (so `x-api-key`) to wherever it points: a 3xx is an error
        // (`Msg::Redirect`, docs/robustness.md).
        .redirects(0)
        .user_agent(&user_agent());
    let a = crate::util::net::configure(b, url).build();
    list.push((key, a.clone()));
    a
}

/// Messages from the worker thread of one attempt.
pub(crate) enum Msg {
    Chunk(Vec<u8>),
    Eof,
    ReadErr(String),
    Status {
        code: u16,
        retry_after: Option<Duration>,
        body: String,
    },
    /// A 3xx answer, not followed; `location` is the header as sent (may be absent).
    Redirect {
        code: u16,
        location: String,
    },
    Transport {
        msg: String,
        retryable: bool,
        refused: bool,
    },
}

/// Whether a transport error is a refused connection (nothing listens there: retrying
/// cannot help, and the user should hear it at once).
fn is_refused(t: &ureq::Transport) -> bool {
    let mut src = std::error::Error::source(t);
    while let Some(e) = src {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                return true;
            }
        }
        src = e.source();
    }
    false
}

pub(crate) fn spawn_worker(
    agent: ureq::Agent,
    url: Arc<String>,
    hdrs: Arc<Vec<(&'static str, String)>>,
    body: super::outgoing::PipeRx,
    body_len: usize,
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
            // Where ureq would put it for a string body: after the caller's headers. With
            // the length known, the streamed body goes out plain, never chunked.
            r = r.set("Content-Length", &body_len.to_string());
            let resp = match r.send(body) {
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
                    if crate::util::net::is_certificate_error(&t) {
                        // Retrying cannot make a certificate trusted: say what to set.
                        let _ = tx.send(Msg::Transport {
                            msg: crate::util::net::certificate_hint(&t.to_string()),
                            retryable: false,
                            refused: false,
                        });
                        return;
                    }
                    if crate::util::tunnel::is_refusal(&t) {
                        let _ = tx.send(Msg::Transport {
                            msg: t.to_string(),
                            retryable: false,
                            refused: false,
                        });
                        return;
                    }
                    let refused = is_refused(&t);
                    let retryable = !refused
                        && matches!(
                            t.kind(),
                            ureq::ErrorKind::ConnectionFailed | ureq::ErrorKind::Io
                        );
                    let _ = tx.send(Msg::Transport {
                        msg: t.to_string(),
                        retryable,
                        refused,
                    });
                    return;
                }
            };
            if (300..400).contains(&resp.status()) {
                let _ = tx.send(Msg::Redirect {
                    code: resp.status(),
                    location: resp.header("location").unwrap_or("").to_string(),
                });
                return;
            }
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
            refused: false,
        });
        return rx2;
    }
    rx
}

/// After the terminal event, let the worker read the (tiny) rest of the body for up to
/// 200 ms so the connection goes back to the pool before the next call.
pub(crate) fn drain_to_eof(rx: &Receiver<Msg>, cancel: &Cancel) {
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
pub(crate) fn recv(rx: &Receiver<Msg>) -> Option<Msg> {
    match rx.recv_timeout(Duration::from_millis(50)) {
        Ok(m) => Some(m),
        Err(RecvTimeoutError::Timeout) => None,
        Err(RecvTimeoutError::Disconnected) => Some(Msg::ReadErr("reader thread ended".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        c.kind = ProviderKind::Claude;
        c.base_url = "https://api.deepseek.com/anthropic".into();
        assert_eq!(
            endpoint(&c),
            "https://api.deepseek.com/anthropic/v1/messages"
        );
        c.base_url = "http://127.0.0.1:9".into();
        assert_eq!(endpoint(&c), "http://127.0.0.1:9/messages");
        c.kind = ProviderKind::Responses;
        c.base_url.clear();
        assert_eq!(endpoint(&c), "https://api.openai.com/v1/responses");
        assert!(headers(&c).iter().all(|(k, _)| *k != "Authorization"));
    }
}
