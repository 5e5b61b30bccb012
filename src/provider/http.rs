//! One model call: build the body, run attempts (`attempt.rs`) on the transport worker,
//! retry per the policy in `retry.rs`.
//!
//! Retried (up to `max_retries`, exponential backoff with jitter, `retry-after` honoured
//! up to 30 s): transport errors that can pass (not a refused connection), HTTP
//! 408/409/429/5xx/529, an overload error in the stream, a read error or a stall — each
//! only while no content of the answer had arrived in that attempt, so a request whose
//! answer had begun is never sent twice. A 400 naming a parameter the server does not
//! support is retried once without the optional fields, and later calls of the run
//! leave them out at once.
//!
//! The body is built as parts (`outgoing.rs`) and streamed to the socket: the stored
//! conversation lines are never copied into one request string.
use super::attempt::{attempt, Accounting, Endpoint, Outcome};
use super::diag::{redact, verbose_body, verbose_note};
use super::outgoing::Body;
use super::retry::{backoff, sleep_unless_cancelled};
use super::transport::{agent, endpoint, headers};
use super::{CallInfo, ProviderConfig, Request, StreamEvent};
use crate::util::cancel::Cancel;
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub use super::attempt::estimate_usage;
pub use super::diag::{names_unsupported_param, status_hint, verbose_line};
pub use super::transport::HttpOptions;

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

/// The body without the optional reasoning fields. `stream_options` stays: it is what
/// makes an OpenAI-compatible server report usage, and without it the usage would be an
/// estimate (issue 32).
fn lean_body<'a>(cfg: &ProviderConfig, req: &Request<'a>) -> Body<'a> {
    let lean_req = Request {
        disable_thinking: true,
        ..req.clone()
    };
    super::body::build_parts(cfg.kind, cfg, &lean_req)
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
    let mut lean = is_lean(&url);
    let mut body = if lean {
        lean_body(cfg, req)
    } else {
        super::body::build_parts(cfg.kind, cfg, req)
    };
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
        let client = agent(opts, &url);
        let to = Endpoint {
            kind: cfg.kind,
            agent: &client,
            opts,
            url: &url,
            hdrs: &hdrs,
        };
        let outcome = attempt(
            &to,
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
                if lean || lean_now.to_text() == body.to_text() {
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
                body = lean_now;
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
