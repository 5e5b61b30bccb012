//! The headless output formats through the real binary and the scripted model server:
//! `text` prints the answer alone, `json` one result object whose numbers are the session's
//! own (stats.json, usage.jsonl), `stream-json` the events.jsonl lines between an `init` and
//! a `result` record, and a run that fails before it has a session still gives a result.
use crate::support::*;
use serde_json::Value;

fn write_script() -> String {
    r#"[
      {"text":"Writing.","tool_calls":[{"name":"Write","id":"call_1","input":{"path":"out.txt","content":"hello\n"}}],"usage":{"input":100,"output":20,"cache_read":5,"cache_creation":1}},
      {"text":"Done: wrote\nout.txt.","chunk":4,"usage":{"input":150,"output":10}}
    ]"#
    .to_string()
}

fn lines(o: &std::process::Output) -> Vec<String> {
    stdout(o).lines().map(str::to_string).collect()
}

#[test]
fn text_prints_exactly_the_final_answer() {
    let env = Env::new();
    let mock = Mock::start(&write_script());
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--output-format", "text", "--session", "t1", "write"],
    );
    expect_code(&out, 0);
    assert_eq!(stdout(&out), "Done: wrote\nout.txt.\n");
}

#[test]
fn text_failure_prints_nothing_on_stdout_and_the_error_on_stderr() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"status":400,"message":"bad model"}]"#);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--output-format", "text", "hi"],
    );
    expect_code(&out, 1);
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("Error:"), "{}", stderr(&out));
}

#[test]
fn json_result_numbers_match_stats_and_ledger() {
    let env = Env::new();
    let mock = Mock::start(&write_script());
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[
            "--output-format",
            "json",
            "--model",
            "claude-sonnet-4",
            "--session",
            "j1",
            "write",
        ],
    );
    expect_code(&out, 0);
    let l = lines(&out);
    assert_eq!(l.len(), 1, "one object: {l:?}");
    let r: Value = serde_json::from_str(&l[0]).unwrap();
    let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "type",
            "subtype",
            "is_error",
            "result",
            "session_id",
            "num_turns",
            "duration_ms",
            "duration_api_ms",
            "usage",
            "total_cost_usd",
            "stop_reason"
        ]
    );
    assert_eq!(r["type"], "result");
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["is_error"], false);
    assert_eq!(r["result"], "Done: wrote\nout.txt.");
    assert_eq!(r["session_id"], "j1");
    assert_eq!(r["stop_reason"], "end_turn");
    let stats = bash_agent::session::stats::Stats::load(&env.session_dir("j1").join("stats.json"));
    assert_eq!(r["num_turns"], stats.agent_request_count);
    assert_eq!(r["usage"]["input_tokens"], stats.total_input_tokens);
    assert_eq!(r["usage"]["output_tokens"], stats.total_output_tokens);
    assert_eq!(
        r["usage"]["cache_read_input_tokens"],
        stats.total_cache_read_tokens
    );
    assert_eq!(
        r["usage"]["cache_creation_input_tokens"],
        stats.total_cache_creation_tokens
    );
    let ledger: Vec<bash_agent::usage::ledger::LedgerEntry> = env
        .read("j1", "usage.jsonl")
        .lines()
        .filter_map(bash_agent::usage::ledger::LedgerEntry::parse)
        .collect();
    assert_eq!(ledger.len(), 2);
    let sum = |f: fn(&bash_agent::usage::ledger::LedgerEntry) -> u64| -> u64 {
        ledger.iter().map(f).sum()
    };
    assert_eq!(r["usage"]["input_tokens"], sum(|e| e.input));
    assert_eq!(r["usage"]["output_tokens"], sum(|e| e.output));
    assert_eq!(r["duration_api_ms"], sum(|e| e.elapsed_ms));
    // sonnet: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million.
    let cost = (250.0 * 3.0 + 30.0 * 15.0 + 5.0 * 0.3 + 1.0 * 3.75) / 1e6;
    let got = r["total_cost_usd"].as_f64().unwrap();
    assert!((got - cost).abs() < 1e-12, "{got} vs {cost}");
    // Nothing of the result lands in the session.
    assert!(!env.read("j1", "events.jsonl").contains("\"result\""));
}

#[test]
fn json_resumed_session_counts_this_run_only() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"text":"one","usage":{"input":10,"output":1}},{"text":"two","usage":{"input":20,"output":2}}]"#,
    );
    let base = mock.base("claude");
    expect_code(&env.agent(&base, "claude", &["--session", "r1", "a"]), 0);
    let out = env.agent(
        &base,
        "claude",
        &["--output-format", "json", "--session", "r1", "b"],
    );
    expect_code(&out, 0);
    let r: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(r["result"], "two");
    assert_eq!(r["num_turns"], 1);
    assert_eq!(r["usage"]["input_tokens"], 20);
}

#[test]
fn json_max_turns_is_error_max_turns() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"repeat":true,"tool_calls":[{"name":"Glob","input":{"pattern":"*.none"}}],"usage":{"input":1,"output":1}}]"#,
    );
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--output-format", "json", "--max-turns", "2", "go"],
    );
    expect_code(&out, 1);
    let r: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(r["subtype"], "error_max_turns");
    assert_eq!(r["is_error"], true);
    assert_eq!(r["num_turns"], 2);
}

#[test]
fn stream_json_is_init_then_the_event_lines_then_result() {
    let env = Env::new();
    let mock = Mock::start(&write_script());
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--output-format", "stream-json", "--session", "s1", "write"],
    );
    expect_code(&out, 0);
    let l = lines(&out);
    let init: Value = serde_json::from_str(&l[0]).unwrap();
    assert_eq!(init["type"], "init");
    assert_eq!(init["session_id"], "s1");
    assert_eq!(init["cwd"], env.cwd.to_str().unwrap());
    assert_eq!(init["provider"], "claude");
    assert_eq!(init["tools"][0], "Read");
    assert_eq!(
        init["input_fifo"],
        env.session_dir("s1").join("input.fifo").to_str().unwrap()
    );
    for k in ["model", "version", "sandbox", "permission_mode"] {
        assert!(init[k].is_string(), "{k}: {init}");
    }
    let last: Value = serde_json::from_str(&l[l.len() - 1]).unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(last["result"], "Done: wrote\nout.txt.");
    let events = env.read("s1", "events.jsonl");
    let between = l[1..l.len() - 1].join("\n") + "\n";
    assert_eq!(
        between, events,
        "stdout between init and result = events.jsonl"
    );
    // --print alone stays the shell version's stream: the event lines only.
    let mock2 = Mock::start(&write_script());
    let out2 = env.agent(
        &mock2.base("claude"),
        "claude",
        &["--print", "--session", "p1", "write"],
    );
    assert_eq!(stdout(&out2), env.read("p1", "events.jsonl"));
    let mock3 = Mock::start(&write_script());
    let out3 = env.agent(
        &mock3.base("claude"),
        "claude",
        &["--print", "--output-format", "stream-json", "write"],
    );
    let l3 = lines(&out3);
    assert!(l3[0].starts_with(r#"{"type":"init","#), "{}", l3[0]);
    assert!(l3[l3.len() - 1].starts_with(r#"{"type":"result","#));
}

#[test]
fn stream_json_has_no_terminal_escapes_but_events_jsonl_keeps_them() {
    let env = Env::new();
    std::fs::write(env.cwd.join("a.txt"), "x\n").unwrap();
    let mock = Mock::start(
        r#"[{"tool_calls":[{"name":"Edit","id":"e1","input":{"path":"a.txt","old_string":"x","new_string":"y"}}]},{"text":"ok"}]"#,
    );
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--print", "--session", "e1", "edit"],
    );
    expect_code(&out, 0);
    let so = stdout(&out);
    assert!(!so.contains("\\u001b") && !so.contains('\x1b'), "{so}");
    assert!(
        so.contains(r#""content":"Success: Edit(a.txt) [+1 -1 lines]\n--- a/a.txt"#),
        "{so}"
    );
    assert!(env.read("e1", "events.jsonl").contains("\\u001b["));
}

#[test]
fn failure_before_the_session_still_gives_a_result() {
    let env = Env::new();
    for (args, code) in [
        (vec!["--output-format", "json", "hi"], 1),
        (vec!["--output-format", "stream-json", "hi"], 1),
        (
            vec!["--output-format", "stream-json", "--no-such-flag", "hi"],
            2,
        ),
        (
            vec![
                "--output-format=json",
                "--max-turns",
                "x",
                "--api-key",
                "k",
                "hi",
            ],
            2,
        ),
    ] {
        let out = env.run(&args);
        expect_code(&out, code);
        let l = lines(&out);
        assert_eq!(l.len(), 1, "{args:?}: {l:?}");
        let r: Value = serde_json::from_str(&l[0]).unwrap();
        assert_eq!(r["type"], "result", "{args:?}");
        assert_eq!(r["is_error"], true);
        assert_eq!(r["subtype"], "error_during_execution");
        assert!(r["result"].as_str().unwrap().len() > 3, "{r}");
    }
    // Human, text and the shell's --print print nothing on stdout.
    let out = env.run(&["--print", "hi"]);
    assert_eq!(stdout(&out), "");
    let out = env.run(&["--output-format", "text", "hi"]);
    assert_eq!(stdout(&out), "");
    let out = env.run(&["--output-format", "xml", "--api-key", "k", "hi"]);
    expect_code(&out, 2);
    assert!(stderr(&out).contains("human|text|json|stream-json"));
}
