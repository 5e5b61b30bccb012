//! Faults through `provider::stream_with` against the real mock-server binary: retries,
//! HTTP errors, cut and stalled streams, max_tokens, cancellation.

use crate::support::provider::*;
use crate::support::Mock;
use bash_agent::provider::{HttpOptions, ProviderKind, StreamEvent};
use bash_agent::util::cancel::Cancel;
use std::time::{Duration, Instant};

fn interrupted(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Responses => "Stream interrupted (no response.completed received)",
        ProviderKind::OpenAi => "Stream interrupted (no [DONE] received)",
        ProviderKind::Claude => "Stream interrupted (no message_stop received)",
    }
}

fn endpoint(mock: &Mock, kind: ProviderKind) -> String {
    let suffix = match kind {
        ProviderKind::Claude => "/messages",
        ProviderKind::OpenAi => "/chat/completions",
        ProviderKind::Responses => "/responses",
    };
    format!("{}{suffix}", mock.cfg(kind).base_url)
}

fn texts(ev: &[StreamEvent]) -> String {
    ev.iter()
        .filter_map(|e| match e {
            StreamEvent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn status_429_then_success() {
    for kind in KINDS {
        let mock = Mock::start(
            r#"[{"status": 429, "message": "slow down"}, {"text": "ok", "usage": {"input": 3, "output": 1}}]"#,
        );
        let (ev, info) = run(&mock.cfg(kind), &[user("x")], &fast_opts(), &Cancel::new());
        assert_eq!(ev[0], StreamEvent::Retry, "{kind:?}");
        assert_eq!(ev[1], StreamEvent::Text("ok".into()));
        assert_eq!(ev.last(), Some(&StreamEvent::Stop("end_turn".into())));
        assert_eq!(info.retries, 1);
        assert_eq!(mock.records().len(), 2);
    }
}

#[test]
fn retry_after_is_honoured() {
    let mock = Mock::start(r#"[{"status": 503, "retry_after": 1}, {"text": "ok"}]"#);
    let t = Instant::now();
    let (ev, _) = run(
        &mock.cfg(ProviderKind::Claude),
        &[user("x")],
        &fast_opts(),
        &Cancel::new(),
    );
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(ev.last(), Some(&StreamEvent::Stop("end_turn".into())));
}

#[test]
fn status_500_forever_gives_up_after_retries() {
    for kind in KINDS {
        let mock = Mock::start(r#"[{"status": 500, "message": "mock fault", "repeat": true}]"#);
        let (ev, info) = run(&mock.cfg(kind), &[user("x")], &fast_opts(), &Cancel::new());
        assert_eq!(
            ev,
            vec![
                StreamEvent::Retry,
                StreamEvent::Retry,
                StreamEvent::Retry,
                StreamEvent::Error(format!(
                    "HTTP 500: mock fault (POST {}) (gave up after 3 retries)",
                    endpoint(&mock, kind)
                )),
            ],
            "{kind:?}"
        );
        assert_eq!(info.retries, 3);
        assert_eq!(mock.records().len(), 4);
    }
}

#[test]
fn status_400_fails_at_once_with_the_provider_message() {
    for kind in KINDS {
        let mock = Mock::start(r#"[{"status": 400, "message": "max_tokens too large"}]"#);
        let (ev, _) = run(&mock.cfg(kind), &[user("x")], &fast_opts(), &Cancel::new());
        assert_eq!(
            ev,
            vec![StreamEvent::Error(format!(
                "HTTP 400: max_tokens too large (POST {})",
                endpoint(&mock, kind)
            ))]
        );
        assert_eq!(mock.records().len(), 1);
    }
}

#[test]
fn no_script_step_left_is_a_clear_500() {
    let mock = Mock::start("[]");
    let opts = HttpOptions {
        max_retries: 0,
        ..fast_opts()
    };
    let (ev, _) = run(
        &mock.cfg(ProviderKind::Claude),
        &[user("x")],
        &opts,
        &Cancel::new(),
    );
    assert_eq!(
        ev,
        vec![StreamEvent::Error(format!(
            "HTTP 500: mock: no script step left for this request (POST {})",
            endpoint(&mock, ProviderKind::Claude)
        ))]
    );
}

#[test]
fn overloaded_stream_error_is_retried() {
    for kind in KINDS {
        let mock = Mock::start(r#"[{"sse_error": true}, {"text": "fine"}]"#);
        let (ev, info) = run(&mock.cfg(kind), &[user("x")], &fast_opts(), &Cancel::new());
        assert_eq!(ev[0], StreamEvent::Retry, "{kind:?}: {ev:?}");
        assert_eq!(texts(&ev), "fine");
        assert_eq!(ev.last(), Some(&StreamEvent::Stop("end_turn".into())));
        assert_eq!(info.retries, 1);
    }
}

#[test]
fn cut_stream_is_an_error() {
    for kind in KINDS {
        let mock = Mock::start(r#"[{"text": "partial answer", "cut": true}]"#);
        let (ev, info) = run(&mock.cfg(kind), &[user("x")], &fast_opts(), &Cancel::new());
        assert_eq!(
            ev,
            vec![
                StreamEvent::Text("partial answer".into()),
                StreamEvent::Error(interrupted(kind).into()),
            ],
            "{kind:?}"
        );
        assert_eq!(info.retries, 0);
    }
}

#[test]
fn max_tokens_stop() {
    for kind in KINDS {
        let mock = Mock::start(r#"[{"text": "trunc", "stop": "max_tokens"}]"#);
        let (ev, _) = run(&mock.cfg(kind), &[user("x")], &fast_opts(), &Cancel::new());
        assert_eq!(ev[0], StreamEvent::Text("trunc".into()));
        assert!(
            matches!(ev[1], StreamEvent::Usage { .. }),
            "{kind:?}: {ev:?}"
        );
        assert_eq!(ev[2], StreamEvent::Stop("max_tokens".into()), "{kind:?}");
        assert_eq!(ev.len(), 3);
    }
}

#[test]
fn bad_json_args_are_passed_raw() {
    let mock = Mock::start(
        r#"[{"tool_calls": [{"name": "Read", "id": "t1"}], "bad_json_args": true, "repeat": true}]"#,
    );
    for kind in KINDS {
        let (ev, _) = run(&mock.cfg(kind), &[user("x")], &fast_opts(), &Cancel::new());
        assert_eq!(
            ev[0],
            StreamEvent::ToolCall {
                name: "Read".into(),
                id: "t1".into(),
                input_raw: "{\"oops\": ".into()
            },
            "{kind:?}"
        );
        assert_eq!(ev.last(), Some(&StreamEvent::Stop("tool_use".into())));
    }
}

#[test]
fn cancel_during_slow_stream_returns_quickly() {
    for kind in KINDS {
        let mock =
            Mock::start(r#"[{"text": "abcdefghijklmnopqrst", "chunk": 1, "delay_ms": 400}]"#);
        let cancel = Cancel::new();
        let c2 = cancel.clone();
        let mut fired: Option<Instant> = None;
        let mut events = Vec::new();
        let cfg = mock.cfg(kind);
        let msgs = [user("x")];
        let req = bash_agent::provider::Request {
            system: "s",
            messages: &msgs,
            tools_json: "",
            disable_thinking: false,
        };
        bash_agent::provider::stream_with(&cfg, &req, &cancel, &fast_opts(), &mut |e| {
            if matches!(e, StreamEvent::Text(_)) && fired.is_none() {
                fired = Some(Instant::now());
                c2.cancel();
            }
            events.push(e);
        });
        let waited = fired.expect("a first text arrived").elapsed();
        // The mock would stream for seconds more: returning well before proves the cancel.
        assert!(waited < Duration::from_secs(3), "{kind:?}: {waited:?}");
        assert_eq!(events, vec![StreamEvent::Text("a".into())], "{kind:?}");
    }
}

#[test]
fn stall_times_out() {
    let mock = Mock::start(r#"[{"text": "before", "stall_ms": 3000, "repeat": true}]"#);
    let opts = HttpOptions {
        stall: Duration::from_millis(400),
        ..fast_opts()
    };
    let t = Instant::now();
    let (ev, _) = run(
        &mock.cfg(ProviderKind::Claude),
        &[user("x")],
        &opts,
        &Cancel::new(),
    );
    assert!(
        t.elapsed() < crate::support::scaled(10),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(ev[0], StreamEvent::Text("before".into()));
    match &ev[1] {
        StreamEvent::Error(m) => assert!(
            m.starts_with("Stream interrupted (no message_stop received): "),
            "{m}"
        ),
        other => panic!("expected an error, got {other:?}"),
    }
    assert_eq!(ev.len(), 2);
}

/// A loopback port that refuses connections for as long as the returned socket lives:
/// bound (so no other process can take it) but not listening.
fn refusing_port() -> (std::os::fd::OwnedFd, u16) {
    use std::os::fd::FromRawFd;
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let owned = std::os::fd::OwnedFd::from_raw_fd(fd);
        let mut addr: libc::sockaddr_in = std::mem::zeroed();
        addr.sin_family = libc::AF_INET as libc::sa_family_t;
        addr.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);
        addr.sin_port = 0;
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        assert_eq!(
            libc::bind(fd, &addr as *const _ as *const libc::sockaddr, len),
            0
        );
        let mut got: libc::sockaddr_in = std::mem::zeroed();
        let mut glen = len;
        assert_eq!(
            libc::getsockname(fd, &mut got as *mut _ as *mut libc::sockaddr, &mut glen),
            0
        );
        (owned, u16::from_be(got.sin_port))
    }
}

#[test]
fn connection_refused_is_reported_at_once() {
    let (_sock, port) = refusing_port();
    let mut cfg = Mock::start("[]").cfg(ProviderKind::OpenAi);
    cfg.base_url = format!("http://127.0.0.1:{port}/v1");
    let (ev, info) = run(&cfg, &[user("x")], &fast_opts(), &Cancel::new());
    assert_eq!(
        ev,
        vec![StreamEvent::Error(format!(
            "cannot connect to http://127.0.0.1:{port}/v1/chat/completions: connection refused (is the server running?)"
        ))]
    );
    assert_eq!(info.retries, 0);
}
