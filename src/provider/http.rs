//! One model call: build the body, run attempts (`attempt.rs`) on the transport worker,
//! retry per the policy in `retry.rs`.
//!
//! Retried (up to `max_retries`, exponential backoff with jitter, `retry-after` honoured
//! up to 30 s): transport errors that can pass (not a refused connection), HTTP
//! 408/409/429/5xx/529, an overload error in the stream, a read error or a stall — each
//! only while no content of the answer had arrived in that attempt, so a request whose
//! answer had begun is never sent twice. A 400 naming a parameter the server does not
//! support is retried once without that field (`omit.rs`; no reasoning fields at all if
//! the server names one again), and later calls of the run leave them out at once.
//!
//! The body is built as parts (`outgoing.rs`) and streamed to the socket: the stored
//! conversation lines are never copied into one request string.
use super::attempt::{attempt, Accounting, Endpoint, Outcome};
use super::body::build_parts_omitting;
use super::diag::{scrub, verbose_body, verbose_note};
use super::omit::Omit;
use super::retry::{backoff, sleep_unless_cancelled};
use super::transport::{agent, endpoint, headers};
use super::{CallInfo, ProviderConfig, Request, StreamEvent};
use crate::util::cancel::Cancel;
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub use super::attempt::estimate_usage;
pub use super::diag::{names_unsupported_param, status_hint, verbose_line};
pub use super::transport::HttpOptions;

/// Endpoints that refused optional fields in this run, and which: later calls leave them
/// out at once.
static LEAN_ENDPOINTS: Mutex<Vec<(String, Omit)>> = Mutex::new(Vec::new());

fn remembered(url: &str) -> Omit {
    let l = LEAN_ENDPOINTS.lock().unwrap_or_else(|p| p.into_inner());
    l.iter()
        .find(|(u, _)| u == url)
        .map_or(Omit::NONE, |(_, o)| *o)
}

fn remember(url: &str, omit: Omit) {
    let mut l = LEAN_ENDPOINTS.lock().unwrap_or_else(|p| p.into_inner());
    match l.iter_mut().find(|(u, _)| u == url) {
        Some((_, o)) => *o = o.union(omit),
        None => l.push((url.to_string(), omit)),
    }
}

/// What the next attempt leaves out after a 400 naming a field (`omit.rs`): the first
/// time, the named field(s) only; if the server names a field again (or named none this
/// module knows), no reasoning fields at all. `None`: nothing left to leave out.
fn next_omit(omit: Omit, named_retries: u32, server: &str) -> Option<Omit> {
    let named = Omit::named_in(server);
    let next = match named {
        Some(n) if named_retries == 0 && omit.union(n) != omit => omit.union(n),
        _ if !omit.lean => omit.union(Omit {
            lean: true,
            ..Omit::NONE
        }),
        _ => return None,
    };
    Some(next)
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
    let mut omit = remembered(&url);
    let mut named_retries = 0u32;
    let mut body = build_parts_omitting(cfg.kind, cfg, req, omit);
    if cfg.verbose {
        if omit != Omit::NONE {
            verbose_note(&scrub(
                &format!("{url} refused an optional field earlier in this run: sending {omit}"),
                cfg,
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
            Outcome::Unsupported { msg, server } => {
                // Each refusal by name is retried once; a body that would not change is
                // not sent again.
                let next = next_omit(omit, named_retries, &server)
                    .map(|o| (o, build_parts_omitting(cfg.kind, cfg, req, o)))
                    .filter(|(_, b)| b.to_text() != body.to_text());
                let Some((next, next_body)) = next else {
                    on_event(StreamEvent::Error(scrub(&msg, cfg)));
                    break;
                };
                named_retries += 1;
                omit = next;
                remember(&url, omit);
                if cfg.verbose {
                    verbose_note(&scrub(
                        &format!(
                            "{url} does not support an optional field ({msg}); retrying {omit} for the rest of this run"
                        ),
                        cfg,
                    ));
                }
                body = next_body;
            }
            Outcome::Fatal(msg) => {
                on_event(StreamEvent::Error(scrub(&msg, cfg)));
                break;
            }
            Outcome::Retry { msg, after } => {
                if info.retries >= opts.max_retries {
                    let msg = if info.retries > 0 {
                        format!("{msg} (gave up after {} retries)", info.retries)
                    } else {
                        msg
                    };
                    on_event(StreamEvent::Error(scrub(&msg, cfg)));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_field_goes_first_then_all_reasoning_fields_then_nothing_more() {
        let effort_msg = "This model does not support the effort parameter.";
        let first = next_omit(Omit::NONE, 0, effort_msg).unwrap();
        assert!(first.effort && !first.thinking && !first.lean && !first.stream_options);
        // Named again (another field): the last resort.
        let second = next_omit(first, 1, "unknown field thinking").unwrap();
        assert!(second.lean && second.effort);
        assert_eq!(next_omit(second, 2, effort_msg), None);
        // Nothing this module knows named: straight to no reasoning fields.
        assert!(
            next_omit(Omit::NONE, 0, "unsupported reasoning_content")
                .unwrap()
                .lean
        );
    }

    #[test]
    fn a_named_retry_keeps_stream_options_and_the_other_reasoning_field() {
        use crate::options::{Effort, Thinking};
        let cfg = ProviderConfig {
            kind: super::super::ProviderKind::OpenAi,
            model: "some-model".into(),
            api_key: String::new(),
            base_url: "http://127.0.0.1:9/v1".into(),
            max_tokens: 100,
            effort: Some(Effort::Low),
            thinking: Some(Thinking::Adaptive),
            verbose: false,
        };
        let msgs = vec![r#"{"role":"user","content":"x"}"#.to_string()];
        let req = Request {
            system: "",
            messages: &msgs,
            tools_json: "",
            disable_thinking: false,
        };
        let omit = next_omit(
            Omit::NONE,
            0,
            "Unrecognized request argument supplied: thinking",
        )
        .unwrap();
        let b = build_parts_omitting(cfg.kind, &cfg, &req, omit).to_text();
        assert!(!b.contains("\"thinking\""), "{b}");
        assert!(b.contains("\"reasoning_effort\":\"low\""), "{b}");
        assert!(b.contains("\"stream_options\""), "{b}");
    }
}
