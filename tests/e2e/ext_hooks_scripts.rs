//! Hooks with real scripts (bash and python, tests/fixtures/hooks/) through the real binary:
//! every event reaches both, a PreToolUse that blocks `rm` (exit 2), one that denies by JSON,
//! a Stop hook that makes the agent continue once (and one that would loop, bounded), hooks
//! of one event in parallel, and a hook's environment and sandbox.
use crate::ext_mcp_hooks::{ext_fixture as fixture, result_of, run_with_key, KEY};
use crate::support::*;
use serde_json::{json, Value};

fn hook(script: &str) -> Value {
    let p = fixture(&format!("hooks/{script}")).display().to_string();
    let cmd = if script.ends_with(".py") {
        format!("python3 {p}")
    } else {
        format!("bash {p}")
    };
    json!({"type": "command", "command": cmd, "timeout": 30})
}

fn settings(env: &Env, hooks: Value) {
    std::fs::create_dir_all(env.cwd.join(".bash-agent")).unwrap();
    std::fs::write(
        env.cwd.join(".bash-agent/settings.json"),
        json!({ "hooks": hooks }).to_string(),
    )
    .unwrap();
    env.trust_project();
}

fn logged(env: &Env, file: &str) -> Vec<Value> {
    std::fs::read_to_string(env.cwd.join(file))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

const SUMMARY: &str = "Task focus: hooks\nLatest request: two\nProgress: answered\nTool evidence: none\nReflections: none";

#[test]
fn every_event_reaches_a_bash_and_a_python_hook() {
    let env = Env::new();
    let both = json!([{"hooks": [hook("log.sh"), hook("log.py")]}]);
    let mut all = serde_json::Map::new();
    for ev in [
        "PostToolUse",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
        "SessionEnd",
        "PreCompact",
        "PostCompact",
        "SubagentStart",
        "Notification",
    ] {
        all.insert(ev.into(), both.clone());
    }
    all.insert(
        "PreToolUse".into(),
        json!([{"matcher": "Bash|SubAgent", "hooks": [hook("log.sh"), hook("log.py")]}]),
    );
    all.insert(
        "SessionStart".into(),
        json!([{"matcher": "startup|resume", "hooks": [hook("log.sh"), hook("log.py")]}]),
    );
    settings(&env, Value::Object(all));
    // A one-shot run with a tool call and a sub-agent ...
    let mock = Mock::start(
        &json!([
            {"when": "\"content\":\"SUBCHILD", "text": "child says 42"},
            {"tool_calls": [{"name": "Bash", "id": "b", "input": {"command": "echo hi"}}]},
            {"tool_calls": [{"name": "SubAgent", "id": "s", "input": {"prompt": "SUBCHILD please", "description": "child"}}]},
            {"text": "done", "repeat": true}
        ])
        .to_string(),
    );
    let out = run_with_key(&env, &mock, &["--session", "s", "go"]);
    expect_code(&out, 0);
    let first = mock.requests()[0]["body"].to_string();
    assert!(
        first.contains("bash hook context"),
        "UserPromptSubmit stdout is context"
    );
    assert!(
        first.contains("python session context"),
        "SessionStart additionalContext"
    );
    // ... and an interactive one (Notification after each turn, /compact for PreCompact).
    let mock = Mock::start(
        &json!([
            {"when": "being removed from your context", "text": SUMMARY, "repeat": true},
            {"text": "answer", "repeat": true}
        ])
        .to_string(),
    );
    let mut c = env.cmd();
    c.args(["-i", "--base-url", &mock.base("claude"), "--session", "i"])
        .env("ANTHROPIC_API_KEY", KEY)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    {
        use std::io::Write;
        let mut w = child.stdin.take().unwrap();
        w.write_all(b"one\ntwo\n/compact\n/exit\n").unwrap();
    }
    let st = crate::support::checks::wait_timeout(&mut child, 120);
    assert!(st.success(), "{st:?}");
    for file in ["hooks-bash.jsonl", "hooks-python.jsonl"] {
        let lines = logged(&env, file);
        let of = |ev: &str| -> Vec<&Value> {
            lines
                .iter()
                .filter(|l| l["hook_event_name"] == ev)
                .collect()
        };
        // Every event that fires (PermissionRequest, PostToolUseFailure: claude_hooks.rs).
        for e in bash_agent::hooks::HookEvent::ALL
            .into_iter()
            .filter(|e| e.never_fires().is_none())
        {
            let skip = matches!(e.name(), "PermissionRequest" | "PostToolUseFailure");
            assert!(skip || !of(e.name()).is_empty(), "{file}: no {}", e.name());
        }
        for l in &lines {
            assert!(l["session_id"].is_string() && l["cwd"].is_string(), "{l}");
            assert_eq!(
                l["permission_mode"], "bypassPermissions",
                "Claude Code's names"
            );
            assert!(l["transcript_path"]
                .as_str()
                .unwrap()
                .ends_with("conversation.jsonl"));
            assert_ne!(l["env_has_key"], true, "{file}: a hook saw the key: {l}");
        }
        let pre = of("PreToolUse");
        assert!(pre
            .iter()
            .any(|l| l["tool_name"] == "Bash" && l["tool_input"]["command"] == "echo hi"));
        assert!(pre.iter().any(|l| l["tool_name"] == "Agent"));
        assert!(pre.iter().any(|l| l["tool_use_id"] == "b"));
        assert!(of("SubagentStart")[0]["agent_id"].as_str() > Some("sub_")); // sub_<id>
        let summary = of("PostCompact")[0]["compact_summary"].to_string();
        assert!(summary.contains("Task focus: hooks"), "{summary}");
        let post = of("PostToolUse");
        assert!(
            post.iter()
                .any(|l| l["tool_response"]["output"].as_str() == Some("hi\n")),
            "{post:?}"
        );
        assert!(of("UserPromptSubmit").iter().any(|l| l["prompt"] == "go"));
        assert!(of("Stop").iter().all(|l| l["stop_hook_active"] == false));
        assert_eq!(of("SessionStart")[0]["source"], "startup");
        assert!(of("SessionEnd")
            .iter()
            .any(|l| l["reason"] == "prompt_input_exit"));
        assert_eq!(of("PreCompact")[0]["trigger"], "manual");
        assert!(of("Notification")[0]["message"]
            .as_str()
            .unwrap()
            .contains("waiting"));
    }
    // `bash-agent compact` runs the project's PreCompact hooks too.
    let before = logged(&env, "hooks-bash.jsonl").len();
    expect_code(&run_with_key(&env, &mock, &["--session", "i", "three"]), 0);
    let out = env
        .cmd()
        .args([
            "compact",
            "--session",
            "i",
            "--base-url",
            &mock.base("claude"),
        ])
        .env("ANTHROPIC_API_KEY", KEY)
        .output()
        .unwrap();
    expect_code(&out, 0);
    let after = logged(&env, "hooks-bash.jsonl");
    assert!(
        after[before..]
            .iter()
            .any(|l| l["hook_event_name"] == "PreCompact" && l["trigger"] == "manual"),
        "no PreCompact from `bash-agent compact`"
    );
    let leaked = crate::support::checks::files_containing(env.dir.path(), KEY.as_bytes());
    assert!(leaked.is_empty(), "the key reached {leaked:?}");
}

#[test]
fn pre_tool_use_blocks_rm_by_exit_2_and_denies_by_json() {
    let env = Env::new();
    std::fs::write(env.cwd.join("keep.txt"), "keep\n").unwrap();
    settings(
        &env,
        json!({"PreToolUse": [
            {"matcher": "Bash", "hooks": [hook("block_rm.sh")]},
            {"matcher": "Write|Edit", "hooks": [hook("deny_secrets.py")]}
        ]}),
    );
    let mock = Mock::start(
        r#"[{"tool_calls": [
              {"name": "Bash", "id": "rm", "input": {"command": "rm -f keep.txt"}},
              {"name": "Write", "id": "w", "input": {"path": "secret.env", "content": "x"}},
              {"name": "Write", "id": "ok", "input": {"path": "notes.txt", "content": "fine\n"}},
              {"name": "Bash", "id": "ls", "input": {"command": "ls"}}]},
            {"text": "done", "repeat": true}]"#,
    );
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "s", "go"]);
    expect_code(&out, 0);
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    let text = |id: &str| result_of(&evs, id)["content"].as_str().unwrap().to_string();
    assert_eq!(
        text("rm"),
        "Error: PreToolUse hook blocked Bash: rm is not allowed here; move files to trash/ instead"
    );
    assert!(env.cwd.join("keep.txt").exists());
    assert_eq!(
        text("w"),
        "Error: PreToolUse hook blocked Write: secret.env looks like a secrets file"
    );
    assert!(!env.cwd.join("secret.env").exists());
    assert!(text("ok").starts_with("Write(notes.txt)"), "{}", text("ok"));
    assert!(text("ls").contains("keep.txt"));
    let next = mock.requests()[1]["body"].to_string();
    assert!(
        next.contains("move files to trash/ instead") && next.contains("looks like a secrets file")
    );
}

#[test]
fn a_stop_hook_makes_the_agent_continue_once() {
    let env = Env::new();
    settings(&env, json!({"Stop": [{"hooks": [hook("stop_once.sh")]}]}));
    let mock = Mock::start(r#"[{"text": "first"}, {"text": "second", "repeat": true}]"#);
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "s", "go"]);
    expect_code(&out, 0);
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[1]["body"]
        .to_string()
        .contains("Run the tests before you finish."));
    assert!(stdout(&out).trim().ends_with("second"), "{}", stdout(&out));
    let seen = logged(&env, "stop.jsonl");
    let active: Vec<_> = seen.iter().map(|l| l["stop_hook_active"].clone()).collect();
    assert_eq!(active, [json!(false), json!(true)]);

    // A hook that always blocks cannot keep the agent going for ever.
    let env = Env::new();
    settings(&env, json!({"Stop": [{"hooks": [hook("stop_always.py")]}]}));
    let mock = Mock::start(r#"[{"text": "again", "repeat": true}]"#);
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "s", "go"]);
    expect_code(&out, 0);
    let max = bash_agent::agent::extensions::MAX_STOP_CONTINUES as usize;
    assert_eq!(mock.requests().len(), 1 + max);
    assert!(
        stderr(&out).contains("stopping after 3 continuations"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn hooks_of_one_event_run_in_parallel_with_the_scrubbed_env_in_the_sandbox() {
    let env = Env::new();
    let par = |me: &str, other: &str| {
        let p = fixture("hooks/parallel.sh").display().to_string();
        json!({"type": "command", "command": format!("bash {p} {me} {other}"), "timeout": 60})
    };
    settings(
        &env,
        json!({"PreToolUse": [
            {"matcher": "Bash", "hooks": [par("one", "two"), hook("sandboxed.sh")]},
            {"matcher": "*", "hooks": [par("two", "one")]}
        ]}),
    );
    let mock = Mock::start(
        r#"[{"tool_calls": [{"name": "Bash", "id": "b", "input": {"command": "echo ran"}}]},
            {"text": "done", "repeat": true}]"#,
    );
    // Outside the workspace, the session folder and the temp dir: not writable in the
    // sandbox. The run gets a temp dir of its own, so this holds wherever the checkout
    // lies (a clone under /tmp would otherwise be inside the writable temp dir).
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(env.dir.path().join("elsewhere")).unwrap();
    let outside = env.dir.path().join("elsewhere/hook-outside");
    let out = env
        .cmd()
        .args(["--base-url", &mock.base("claude"), "--session", "s", "go"])
        .env("ANTHROPIC_API_KEY", KEY)
        .env("TMPDIR", &tmp)
        .env("HOOK_OUTSIDE", &outside)
        .output()
        .unwrap();
    expect_code(&out, 0);
    assert!(env.cwd.join("one.done").exists() && env.cwd.join("two.done").exists());
    let names = std::fs::read_to_string(env.cwd.join("hook-env.txt")).unwrap();
    assert!(names.lines().any(|l| l == "PATH") && names.lines().any(|l| l == "CLAUDE_PROJECT_DIR"));
    assert!(!names.contains("ANTHROPIC_API_KEY"), "{names}");
    let wrote = std::fs::read_to_string(env.cwd.join("outside.txt")).unwrap();
    let _ = std::fs::remove_file(&outside);
    if bash_agent::sandbox::kernel_abi() > 0 {
        assert_eq!(
            wrote.trim(),
            "refused",
            "a hook wrote outside the workspace"
        );
    } else {
        crate::support::skip::skip("no Landlock on this kernel: the hook sandbox is not checked");
    }
}

#[test]
fn a_blocked_prompt_post_tool_feedback_and_continue_false() {
    // UserPromptSubmit exit 2: the prompt is refused (shown to the user), nothing is sent, exit 1.
    let env = Env::new();
    let cmd = |c: &str| json!({"type": "command", "command": c});
    settings(
        &env,
        json!({"UserPromptSubmit": [{"hooks": [cmd("echo 'no prompts today' >&2; exit 2")]}]}),
    );
    let mock = Mock::start(r#"[{"text": "never", "repeat": true}]"#);
    let out = env.agent(&mock.base("claude"), "claude", &["go"]);
    expect_code(&out, 1);
    assert!(
        stderr(&out).contains("prompt blocked by a UserPromptSubmit hook: no prompts today"),
        "{}",
        stderr(&out)
    );
    assert!(mock.requests().is_empty());
    // PostToolUse exit 2 adds its stderr to the result; `continue: false` ends the turn.
    let env = Env::new();
    settings(
        &env,
        json!({
            "PostToolUse": [{"matcher": "Bash", "hooks": [cmd("echo 'lint failed' >&2; exit 2")]}],
            "PreToolUse": [{"hooks": [cmd(r#"echo '{"continue": false, "stopReason": "enough for today"}'"#)]}]
        }),
    );
    let mock = Mock::start(
        r#"[{"tool_calls": [{"name": "Bash", "id": "b", "input": {"command": "echo ran"}}]},
            {"text": "never", "repeat": true}]"#,
    );
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "s", "go"]);
    expect_code(&out, 0);
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    assert_eq!(
        result_of(&evs, "b")["content"],
        "ran\n\nPostToolUse hook: lint failed"
    );
    assert!(evs
        .iter()
        .any(|e| e["type"] == "error" && e["message"] == "stopped by a hook: enough for today"));
    assert_eq!(mock.requests().len(), 1);
}

#[test]
fn ctrl_c_ends_a_hanging_hook_with_its_group() {
    let env = Env::new();
    settings(
        &env,
        json!({"PreToolUse": [{"hooks": [{"type": "command",
            "command": format!("bash {}", fixture("hooks/hang.sh").display()), "timeout": 600}]}]}),
    );
    let mock = Mock::start(
        r#"[{"tool_calls": [{"name": "Bash", "id": "b", "input": {"command": "echo ran"}}]},
            {"text": "done", "repeat": true}]"#,
    );
    let mut child = env
        .cmd()
        .args([
            "--base-url",
            &mock.base("claude"),
            "--api-key",
            "k",
            "--session",
            "s",
            "go",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pids_file = env.cwd.join("hang.pids");
    let hook_pids = || -> Vec<i32> {
        std::fs::read_to_string(&pids_file)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    };
    wait_until("the hook to start", 60, || hook_pids().len() == 2);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    // Well before the hook's 600 s timeout.
    let st = crate::support::checks::wait_timeout(&mut child, 60);
    assert_eq!(st.code(), Some(130), "{st:?}");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.contains("was interrupted"), "{err}");
    // The agent SIGKILLed the hook's group before it exited; a killed process still needs
    // the CPU once to die, which a loaded machine may not have given it yet.
    for p in hook_pids() {
        let alive = || {
            std::fs::read_to_string(format!("/proc/{p}/stat"))
                .map(|s| !s.contains(") Z "))
                .unwrap_or(false)
        };
        wait_until(
            &format!("hook process {p} to end after the interrupt"),
            5,
            || !alive(),
        );
    }
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    assert!(!evs
        .iter()
        .any(|e| e["type"] == "tool_result" && e["content"] == "ran"));
}

#[test]
fn a_huge_user_prompt_submit_output_is_cut_and_said_so() {
    // 20 MB on one line (today's main put all of it into the conversation, resent each turn).
    let env = Env::new();
    let cmd = |c: &str| json!({"type": "command", "command": c, "timeout": 60});
    settings(
        &env,
        json!({"UserPromptSubmit": [{"hooks": [cmd("cat >/dev/null; head -c 20000000 /dev/zero | tr '\\0' x; echo")]}]}),
    );
    let mock = Mock::start(r#"[{"text": "fine", "repeat": true}]"#);
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "s", "go"]);
    expect_code(&out, 0);
    let body = mock.requests()[0]["body"].to_string();
    assert!(body.len() < 200_000, "request of {} bytes", body.len());
    assert!(
        body.contains(&"x".repeat(10_000)),
        "the head of the output is kept"
    );
    assert!(!body.contains(&"x".repeat(10_001)));
    assert!(body.contains("hook output cut"), "the cut is said");
    let conv = std::fs::read_to_string(env.session_dir("s").join("conversation.jsonl"))
        .unwrap_or_default();
    assert!(conv.len() < 200_000, "conversation of {} bytes", conv.len());
}
