//! Resuming, forking and continuing sessions, including the shell-written fixtures.
use crate::support::*;

#[test]
fn new_turn_on_a_shell_fixture_appends_readable_lines() {
    let env = Env::new();
    install_fixtures(&env);
    let before_ev = env.read("rich", "events.jsonl");
    let before_conv = env.read("rich", "conversation.jsonl");
    let mock = Mock::start(r#"[{"text":"Resumed fine.","usage":{"input":9,"output":3}}]"#);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "rich", "continue please"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ev = env.read("rich", "events.jsonl");
    assert!(ev.starts_with(&before_ev));
    let added: Vec<&str> = ev[before_ev.len()..].lines().collect();
    assert_eq!(
        added[0],
        r#"{"type":"user_input","content":"continue please"}"#
    );
    assert!(!added.iter().any(|l| l.contains("session_start")));
    let conv = env.read("rich", "conversation.jsonl");
    assert!(conv.starts_with(&before_conv));
    // The request carried the whole old history, verbatim lines included.
    let req = &mock.requests()[0];
    let msgs = req["body"]["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), before_conv.lines().count() + 1);
    // Stats continue from the shell's counters.
    let s = bash_agent::session::stats::Stats::load(&env.session_dir("rich").join("stats.json"));
    assert_eq!(s.current_turn_count, 3);
    assert_eq!(s.agent_request_count, 8);
}

#[test]
fn fork_copies_history_into_a_new_session() {
    let env = Env::new();
    install_fixtures(&env);
    let mock = Mock::start(r#"[{"text":"forked","usage":{"input":1,"output":1}}]"#);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "rich", "--fork", "--print", "go on"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let first: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "session_start");
    let id = first["session_id"].as_str().unwrap().to_string();
    assert!(bash_agent::session::paths::is_generated_id(&id), "{id}");
    let orig = env.read("rich", "conversation.jsonl");
    let forked = env.read(&id, "conversation.jsonl");
    assert!(forked.starts_with(&orig));
    assert!(forked.contains("forked"));
    assert!(!env.read("rich", "conversation.jsonl").contains("forked"));
    assert_eq!(env.read(&id, "plan.md"), env.read("rich", "plan.md"));
}

#[test]
fn continue_picks_latest_non_sub_session() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"one","repeat":true,"usage":{"input":1,"output":1}}]"#);
    assert!(env
        .agent(&mock.base("claude"), "claude", &["--session", "a", "x"])
        .status
        .success());
    assert!(env
        .agent(&mock.base("claude"), "claude", &["--session", "b", "x"])
        .status
        .success());
    assert!(env
        .agent(
            &mock.base("claude"),
            "claude",
            &["--session", "sub_zzz", "x"]
        )
        .status
        .success());
    let out = env.agent(&mock.base("claude"), "claude", &["--continue", "again"]);
    assert!(out.status.success());
    assert!(env.read("b", "events.jsonl").contains("again"));
    assert!(!env.read("sub_zzz", "events.jsonl").contains("again"));
}

#[test]
fn piped_stdin_is_the_prompt_and_empty_stdin_is_refused() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"ok","repeat":true,"usage":{"input":1,"output":1}}]"#);
    let run = |input: &str| {
        use std::io::Write;
        let mut c = env.cmd();
        c.args([
            "--base-url",
            &mock.base("claude"),
            "--api-key",
            "k",
            "--session",
            "p",
        ]);
        c.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut ch = c.spawn().unwrap();
        ch.stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        ch.wait_with_output().unwrap()
    };
    let out = run("from stdin\n\n");
    assert!(out.status.success());
    assert!(env
        .read("p", "events.jsonl")
        .contains(r#"{"type":"user_input","content":"from stdin"}"#));
    let out = run("");
    assert_eq!(out.status.code(), Some(2));
}
