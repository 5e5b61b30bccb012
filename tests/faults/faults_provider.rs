//! A hostile model, end to end through the real binary, for all three providers: 500s and
//! 429s (recovered and given up), in-stream overload errors, cut streams (also after a tool
//! call ran), invalid JSON in tool arguments, a stalled stream (timed out via
//! `BASH_AGENT_STALL_MS`, retried when nothing was emitted yet, interrupted with SIGINT),
//! a 400 and a refused connection. Each time the agent exits with the documented code
//! (0 / 1 / 130), logs an `error` event on failure, never panics, and the session stays
//! valid: whole JSONL lines, paired tool calls, and the next `--continue` run succeeds.

use crate::support::checks::*;
use crate::support::*;
use serde_json::Value;
use std::process::Stdio;
use std::time::{Duration, Instant};

const PROVIDERS: [&str; 3] = ["claude", "openai", "responses"];

struct Case {
    name: &'static str,
    script: &'static str,
    code: i32,
    /// Substring of the `error` event's message (failures only).
    error: Option<&'static str>,
    /// Exact number of `retry` events.
    retries: usize,
}

const CASES: &[Case] = &[
    Case {
        name: "500 forever",
        script: r#"[{"status":500,"repeat":true,"message":"boom"}]"#,
        code: 1,
        error: Some("gave up after 3 retries"),
        retries: 3,
    },
    Case {
        name: "429 forever",
        script: r#"[{"status":429,"retry_after":0,"repeat":true,"message":"slow down"}]"#,
        code: 1,
        error: Some("slow down"),
        retries: 3,
    },
    Case {
        name: "429, 500, 503 then success",
        script: r#"[{"status":429,"retry_after":0},{"status":500},{"status":503},{"text":"made it","usage":{"input":3,"output":2}}]"#,
        code: 0,
        error: None,
        retries: 3,
    },
    Case {
        name: "overloaded in the stream forever",
        script: r#"[{"sse_error":true,"repeat":true}]"#,
        code: 1,
        error: Some("verloaded"),
        retries: 3,
    },
    Case {
        name: "cut stream",
        script: r#"[{"text":"half an ans","cut":true}]"#,
        code: 1,
        error: Some("Stream interrupted"),
        retries: 0,
    },
    Case {
        name: "cut stream after a tool call ran",
        script: r#"[{"text":"writing","tool_calls":[{"name":"Write","id":"w1","input":{"path":"cut.txt","content":"x\n"}}],"cut":true}]"#,
        code: 1,
        error: Some("Stream interrupted"),
        retries: 0,
    },
    Case {
        name: "invalid JSON in tool arguments",
        script: r#"[{"text":"reading","tool_calls":[{"name":"Read","id":"t1","input":{"path":"x"}}],"bad_json_args":true},{"text":"the arguments were broken, giving up politely"}]"#,
        code: 0,
        error: None,
        retries: 0,
    },
    Case {
        name: "stall after content (not retried)",
        script: r#"[{"text":"before the stall","stall_ms":20000}]"#,
        code: 1,
        error: Some("Stream interrupted"),
        retries: 0,
    },
    Case {
        name: "stall before any content (retried)",
        script: r#"[{"stall_ms":20000},{"text":"second attempt fine"}]"#,
        code: 0,
        error: None,
        retries: 1,
    },
    Case {
        name: "400 is not retried",
        script: r#"[{"status":400,"message":"bad request body"},{"text":"never used"}]"#,
        code: 1,
        error: Some("bad request body"),
        retries: 0,
    },
];

fn run_agent(env: &Env, base: &str, provider: &str, args: &[&str]) -> (i32, String, Duration) {
    let t = Instant::now();
    let mut c = env.cmd();
    c.env("BASH_AGENT_STALL_MS", "500")
        .args([
            "--provider",
            provider,
            "--base-url",
            base,
            "--api-key",
            "sk-faults",
        ])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), err, t.elapsed())
}

/// The session is loadable and whole, and a following run on it succeeds.
fn session_still_valid(env: &Env, provider: &str, sid: &str) {
    check_tree(&env.home);
    check_conversation(&env.session_dir(sid).join("conversation.jsonl"));
    let mock = Mock::start(r#"[{"text":"all good again"}]"#);
    let (code, err, _) = run_agent(
        env,
        &mock.base(provider),
        provider,
        &["--continue", "are you there?"],
    );
    assert_eq!(code, 0, "{provider}: the next run failed:\n{err}");
    assert_no_panic(&err);
    let evs = events(&env.session_dir(sid).join("events.jsonl"));
    assert_eq!(evs.last().unwrap()["reason"], "end_turn", "{provider}");
    for r in mock.requests() {
        check_request_pairing(&r["body"]);
    }
    check_conversation(&env.session_dir(sid).join("conversation.jsonl"));
}

#[test]
fn scripted_model_faults_all_providers() {
    let t0 = Instant::now();
    for p in PROVIDERS {
        for case in CASES {
            let env = Env::new();
            let mock = Mock::start(case.script);
            let (code, err, took) =
                run_agent(&env, &mock.base(p), p, &["--session", "f", "do the thing"]);
            let what = format!("{p} / {}", case.name);
            assert_eq!(code, case.code, "{what}: exit code\n{err}");
            assert_no_panic(&err);
            assert!(took < Duration::from_secs(15), "{what}: took {took:?}");
            let evs = events(&env.session_dir("f").join("events.jsonl"));
            let t = types(&evs);
            let retries = t.iter().filter(|x| *x == "retry").count();
            assert_eq!(retries, case.retries, "{what}: {t:?}");
            let errors: Vec<&Value> = evs.iter().filter(|e| e["type"] == "error").collect();
            match case.error {
                Some(want) => {
                    let m = errors
                        .last()
                        .unwrap_or_else(|| panic!("{what}: no error event: {t:?}"))["message"]
                        .as_str()
                        .unwrap();
                    assert!(m.contains(want), "{what}: error {m:?} lacks {want:?}");
                    assert!(
                        err.contains("Error") || err.contains(want),
                        "{what}: stderr says nothing:\n{err}"
                    );
                }
                None => {
                    assert!(errors.is_empty(), "{what}: {errors:?}");
                    assert_eq!(&t[t.len() - 2..], ["stop", "stop"], "{what}");
                }
            }
            if case.name.starts_with("cut stream after") {
                // Anthropic closes a tool block (content_block_stop) before the end, so the
                // tool already ran; OpenAI and Responses hand tools over only with their
                // terminal event, so nothing ran. What arrived is stored: a call that ran is
                // in the conversation with its result (check_conversation checks the
                // pairing), a call that never completed is not.
                let ran = env.cwd.join("cut.txt").exists();
                assert_eq!(ran, p == "claude", "{what}");
                assert_eq!(t.contains(&"tool_result".to_string()), ran, "{what}: {t:?}");
                let conv = env.read("f", "conversation.jsonl");
                assert_eq!(conv.contains("tool_use"), ran, "{what}");
                assert_eq!(conv.contains("tool_result"), ran, "{what}");
            }
            if case.name.starts_with("invalid JSON") {
                let tr = evs.iter().find(|e| e["type"] == "tool_result").unwrap();
                assert!(
                    tr["content"]
                        .as_str()
                        .unwrap()
                        .contains("invalid JSON in tool arguments"),
                    "{what}: {tr}"
                );
                let tc = evs.iter().find(|e| e["type"] == "tool_call").unwrap();
                assert!(
                    tc["input"].is_object(),
                    "{what}: raw invalid input reached events.jsonl: {tc}"
                );
                // The model is told, and sees a valid tool_use input.
                let second = &mock.requests()[1]["body"];
                assert!(
                    second
                        .to_string()
                        .contains("invalid JSON in tool arguments"),
                    "{what}"
                );
                check_request_pairing(second);
            }
            session_still_valid(&env, p, "f");
        }
    }
    eprintln!(
        "{} fault cases x 3 providers in {:.1} s",
        CASES.len(),
        t0.elapsed().as_secs_f64()
    );
}

/// A loopback port that refuses connections while the socket lives (bound, not
/// listening: no other process can take the port meanwhile).
fn refusing_port() -> (std::os::fd::OwnedFd, u16) {
    use std::os::fd::FromRawFd;
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let owned = std::os::fd::OwnedFd::from_raw_fd(fd);
        let mut addr: libc::sockaddr_in = std::mem::zeroed();
        addr.sin_family = libc::AF_INET as libc::sa_family_t;
        addr.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);
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
fn refused_connection_is_reported_at_once_exit_1() {
    let (_sock, port) = refusing_port();
    let env = Env::new();
    let base = format!("http://127.0.0.1:{port}/v1");
    let (code, err, _) = run_agent(&env, &base, "claude", &["--session", "r", "hello?"]);
    assert_eq!(code, 1, "{err}");
    assert_no_panic(&err);
    let want =
        format!("cannot connect to {base}/messages: connection refused (is the server running?)");
    assert!(err.contains(&want), "{err}");
    let evs = events(&env.session_dir("r").join("events.jsonl"));
    assert_eq!(types(&evs).iter().filter(|t| *t == "retry").count(), 0);
    assert!(
        evs.iter()
            .any(|e| e["type"] == "error" && e["message"] == want.as_str()),
        "{evs:?}"
    );
    session_still_valid(&env, "claude", "r");
}

#[test]
fn sigint_during_a_stalled_stream_exits_130_quickly() {
    let env = Env::new();
    // The default stall timeout (60 s) is far away: only the interrupt can end this.
    let mock = Mock::start(r#"[{"text":"thinking hard","stall_ms":60000}]"#);
    let mut c = env.cmd();
    c.args([
        "--base-url",
        &mock.base("claude"),
        "--api-key",
        "sk-faults",
        "--session",
        "st",
        "go",
    ])
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    let mut child = Guard(c.spawn().unwrap());
    let ev = env.session_dir("st").join("events.jsonl");
    wait_until("the first text event", 20, || {
        std::fs::read_to_string(&ev)
            .unwrap_or_default()
            .contains("\"type\":\"text\"")
    });
    std::thread::sleep(Duration::from_millis(200)); // now inside the stall
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::SIGINT,
    )
    .unwrap();
    let t = Instant::now();
    let st = wait_timeout(&mut child, 10);
    assert!(t.elapsed() < scaled(3), "interrupt took {:?}", t.elapsed());
    assert_eq!(st.code(), Some(130));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_no_panic(&err);
    let evs = events(&ev);
    assert_eq!(evs.last().unwrap()["reason"], "interrupted");
    // The partial answer is kept for the model's next call.
    assert!(env
        .read("st", "conversation.jsonl")
        .contains("thinking hard"));
    session_still_valid(&env, "claude", "st");
}
