//! End-to-end runs of the real binary against the scripted model server, for all three
//! providers: tool round trips, retries, cut streams, truncation, interrupts, stream-json.
use crate::support::*;

const PROVIDERS: [&str; 3] = ["claude", "openai", "responses"];

fn tool_script() -> String {
    r#"[
      {"thinking":"Let me write it.","text":"Writing.","tool_calls":[{"name":"Write","id":"call_1","input":{"path":"out.txt","content":"hello\n"}}],"usage":{"input":100,"output":20,"cache_read":5,"cache_creation":1}},
      {"text":"Done: wrote out.txt.","chunk":4,"usage":{"input":150,"output":10}}
    ]"#
    .to_string()
}

#[test]
fn tool_round_trip_all_providers() {
    for p in PROVIDERS {
        let env = Env::new();
        let mock = Mock::start(&tool_script());
        let out = env.agent(&mock.base(p), p, &["--session", "s1", "write a file"]);
        assert!(
            out.status.success(),
            "{p}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(env.cwd.join("out.txt")).unwrap(),
            "hello\n",
            "{p}"
        );
        let evs = events(&env.session_dir("s1").join("events.jsonl"));
        let t = types(&evs);
        assert_eq!(t[0], "session_start");
        assert_eq!(t[1], "user_input");
        assert!(t.contains(&"tool_call".to_string()), "{p}: {t:?}");
        let tr = evs.iter().find(|e| e["type"] == "tool_result").unwrap();
        assert_eq!(tr["name"], "Write");
        assert!(
            tr["content"]
                .as_str()
                .unwrap()
                .starts_with("Write(out.txt) [1 lines, 6 bytes]"),
            "{p}: {tr}"
        );
        // The final stop is logged twice (reference §4.3).
        assert_eq!(&t[t.len() - 2..], ["stop", "stop"], "{p}");
        assert_eq!(evs[evs.len() - 1]["reason"], "end_turn");
        let text: String = evs
            .iter()
            .filter(|e| e["type"] == "text")
            .map(|e| e["content"].as_str().unwrap())
            .collect();
        assert_eq!(text, "Writing.Done: wrote out.txt.", "{p}");
        // conversation: user, assistant(tool_use), tool results, assistant(final)
        let conv = env.read("s1", "conversation.jsonl");
        let lines: Vec<&str> = conv.lines().collect();
        assert_eq!(lines.len(), 4, "{p}: {conv}");
        assert_eq!(lines[0], r#"{"role":"user","content":"write a file"}"#);
        assert!(
            lines[1]
                .starts_with(r#"{"role":"assistant","content":[{"type":"thinking","thinking":"#),
            "{p}: {}",
            lines[1]
        );
        assert!(lines[2].starts_with(r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"OK: wrote 6 bytes to out.txt"#), "{p}: {}", lines[2]);
        let stats =
            bash_agent::session::stats::Stats::load(&env.session_dir("s1").join("stats.json"));
        assert_eq!(stats.current_turn_count, 1);
        assert_eq!(stats.agent_request_count, 2);
        assert_eq!(stats.total_input_tokens, 250, "{p}");
        assert_eq!(stats.total_output_tokens, 30);
        // Requests: the second one carries the tool result.
        let reqs = mock.requests();
        assert_eq!(reqs.len(), 2, "{p}");
        let body = reqs[1]["body"].to_string();
        assert!(body.contains("OK: wrote 6 bytes"), "{p}: {body}");
        // The API key never lands in the session.
        for f in ["events.jsonl", "conversation.jsonl", "stats.json"] {
            assert!(!env.read("s1", f).contains("PLANTED"), "{p}: key in {f}");
        }
    }
}

#[test]
fn retry_after_429_then_success() {
    for p in PROVIDERS {
        let env = Env::new();
        let mock = Mock::start(
            r#"[{"status":429,"retry_after":0},{"text":"ok","usage":{"input":1,"output":1}}]"#,
        );
        let out = env.agent(&mock.base(p), p, &["--session", "r", "hi"]);
        assert!(
            out.status.success(),
            "{p}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let t = types(&events(&env.session_dir("r").join("events.jsonl")));
        assert!(t.contains(&"retry".to_string()), "{p}: {t:?}");
        assert_eq!(mock.requests().len(), 2);
    }
}

#[test]
fn cut_stream_fails_and_session_still_loads() {
    for p in PROVIDERS {
        let env = Env::new();
        let mock = Mock::start(
            r#"[{"text":"partial","cut":true},{"text":"second run ok","usage":{"input":1,"output":1}}]"#,
        );
        let out = env.agent(&mock.base(p), p, &["--session", "c", "hi"]);
        assert_eq!(out.status.code(), Some(1), "{p}");
        let evs = events(&env.session_dir("c").join("events.jsonl"));
        let err = evs
            .iter()
            .find(|e| e["type"] == "error")
            .expect("error event");
        assert!(
            err["message"]
                .as_str()
                .unwrap()
                .contains("Stream interrupted"),
            "{p}: {err}"
        );
        let out = env.agent(&mock.base(p), p, &["--continue", "again"]);
        assert!(
            out.status.success(),
            "{p}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(env
            .read("c", "conversation.jsonl")
            .contains("second run ok"));
    }
}

#[test]
fn max_tokens_is_an_error() {
    for p in PROVIDERS {
        let env = Env::new();
        let mock =
            Mock::start(r#"[{"text":"long","stop":"max_tokens","usage":{"input":1,"output":1}}]"#);
        let out = env.agent(&mock.base(p), p, &["--session", "m", "hi"]);
        assert_eq!(out.status.code(), Some(1), "{p}");
        let evs = events(&env.session_dir("m").join("events.jsonl"));
        assert!(
            evs.iter().any(|e| e["type"] == "error"
                && e["message"] == "Response truncated (max_tokens reached)"),
            "{p}"
        );
    }
}

#[test]
fn interrupt_exits_130_and_keeps_session_consistent() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"text":"a slow answer that takes a long time to stream","chunk":1,"delay_ms":200,"usage":{"input":1,"output":1}}]"#,
    );
    let mut c = env.cmd();
    c.args([
        "--base-url",
        &mock.base("claude"),
        "--api-key",
        "k",
        "--session",
        "i",
        "hi",
    ]);
    c.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = c.spawn().unwrap();
    let ev = env.session_dir("i").join("events.jsonl");
    wait_until("the first text event", 20, || {
        std::fs::read_to_string(&ev)
            .unwrap_or_default()
            .contains("\"type\":\"text\"")
    });
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::SIGINT,
    )
    .unwrap();
    let t0 = std::time::Instant::now();
    let st = child.wait().unwrap();
    assert!(t0.elapsed().as_secs() < 5);
    assert_eq!(st.code(), Some(130));
    let evs = events(&ev);
    assert_eq!(evs.last().unwrap()["type"], "stop");
    assert_eq!(evs.last().unwrap()["reason"], "interrupted");
    assert!(!env.session_dir("i").join("agent_running.flag").exists());
}

#[test]
fn stream_json_prints_exactly_the_event_lines() {
    let env = Env::new();
    let mock = Mock::start(&tool_script());
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--print", "--session", "j", "go"],
    );
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout, env.read("j", "events.jsonl"));
}

#[test]
fn second_agent_on_a_locked_session_exits_1() {
    let env = Env::new();
    let mock =
        Mock::start(r#"[{"text":"slow","chunk":1,"delay_ms":300,"usage":{"input":1,"output":1}}]"#);
    let mut c = env.cmd();
    c.args([
        "--base-url",
        &mock.base("claude"),
        "--api-key",
        "k",
        "--session",
        "busy",
        "hi",
    ]);
    c.stdout(std::process::Stdio::null());
    let mut first = c.spawn().unwrap();
    let ev = env.session_dir("busy").join("events.jsonl");
    wait_until("the user_input event", 20, || {
        std::fs::read_to_string(&ev)
            .unwrap_or_default()
            .contains("user_input")
    });
    let before = std::fs::read_to_string(&ev).unwrap();
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "busy", "again"],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("session busy is in use by pid {}", first.id())),
        "{err}"
    );
    assert!(std::fs::read_to_string(&ev).unwrap().starts_with(&before));
    let _ = first.kill();
    let _ = first.wait();
}

#[test]
fn bad_session_names_are_refused_without_side_effects() {
    let env = Env::new();
    for name in ["../x", "a/b", ".hidden"] {
        let out = env
            .cmd()
            .args(["--api-key", "k", "--session", name, "hi"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("invalid session name"));
    }
    assert!(!env.home.join(".bash-agent").exists());
}

#[test]
fn missing_key_and_bad_flags() {
    let env = Env::new();
    let out = env.cmd().arg("hi").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("No API key. Set ANTHROPIC_API_KEY or use --api-key"));
    let out = env
        .cmd()
        .args(["--api-key", "k", "--max-context", "12x", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Invalid --max-context: 12x"));
    let out = env.cmd().args(["--bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Unknown option: --bogus"));
}
