//! Issue 5 "Done when": the real binary (`--listen`, one-shot) against the scripted model
//! server, driven through its FIFOs by external processes.

use crate::support::*;
use bash_agent::ipc::client::has_reader;
use bash_agent::ipc::resp::Frame;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn listen(env: &Env, mock: &Mock, session: &str) -> Child {
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args([
            "--api-key",
            "sk-test-PLANTED",
            "--session",
            session,
            "--listen",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let child = c.spawn().unwrap();
    let fifo = env.session_dir(session).join("input.fifo");
    wait_until("the agent to serve input.fifo", 20, || has_reader(&fifo));
    child
}

fn evs(env: &Env, s: &str) -> Vec<serde_json::Value> {
    events(&env.session_dir(s).join("events.jsonl"))
}

/// Number of finished turns: final double stops (reason not tool_use).
fn finished_turns(env: &Env, s: &str) -> usize {
    let e = evs(env, s);
    e.windows(2)
        .filter(|w| {
            w[0]["type"] == "stop" && w[1]["type"] == "stop" && w[1]["reason"] != "tool_use"
        })
        .count()
}

fn sh(script: &str, fifo: &Path) {
    let st = Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("F", fifo)
        .status()
        .unwrap();
    assert!(st.success(), "{script}");
}

fn wait_exit(child: &mut Child, secs: u64) -> Option<i32> {
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(secs) {
        if let Some(st) = child.try_wait().unwrap() {
            return st.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("the agent did not exit within {secs} s");
}

#[test]
fn listen_serves_frames_plain_lines_clients_and_survives_garbage() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"repeat":true,"text":"ok."}]"#);
    let mut agent = listen(&env, &mock, "L");
    let fifo = env.session_dir("L").join("input.fifo");

    sh("echo 'plain line turn' > \"$F\"", &fifo);
    wait_until("1 finished turns", 20, || finished_turns(&env, "L") == 1);
    sh("printf '*3\\r\\n$10\\r\\nUSER_INPUT\\r\\n$1\\r\\n0\\r\\n$10\\r\\nframe turn\\r\\n' > \"$F\"", &fifo);
    wait_until("2 finished turns", 20, || finished_turns(&env, "L") == 2);
    // Garbage does not stop the agent.
    sh("printf '*2\\r\\n$3\\r\\nabcdef\\r\\n' > \"$F\"", &fifo);
    wait_until("an error event", 10, || {
        evs(&env, "L").iter().any(|e| e["type"] == "error")
    });
    let inputs: Vec<String> = evs(&env, "L")
        .iter()
        .filter(|e| e["type"] == "user_input")
        .map(|e| e["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(inputs, ["plain line turn", "frame turn"]);

    // Script clients against the running agent.
    let o = env
        .cmd()
        .args(["--session", "L", "--send", "client turn", "--wait"])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "ok.\n");
    let o = env
        .cmd()
        .args(["--session", "L", "--inject", "note this"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    wait_until("the injection to start a notify turn", 20, || {
        finished_turns(&env, "L") == 4
    });
    assert!(mock.requests().last().unwrap()["body"]
        .to_string()
        .contains("note this"));

    // 50 concurrent external writers: every input becomes exactly one turn.
    let kids: Vec<Child> = (0..50)
        .map(|i| {
            Command::new("sh")
                .arg("-c")
                .arg(format!("echo 'burst {i:02}' > \"$F\""))
                .env("F", &fifo)
                .spawn()
                .unwrap()
        })
        .collect();
    for mut k in kids {
        assert!(k.wait().unwrap().success());
    }
    wait_until("54 finished turns", 60, || finished_turns(&env, "L") == 54);
    let bursts = evs(&env, "L")
        .iter()
        .filter(|e| {
            e["type"] == "user_input" && e["content"].as_str().unwrap().starts_with("burst ")
        })
        .count();
    assert_eq!(bursts, 50);

    sh(
        "printf '*1\\r\\n$11\\r\\nSESSION_END\\r\\n' > \"$F\"",
        &fifo,
    );
    assert_eq!(wait_exit(&mut agent, 20), Some(0));
    assert!(!env.session_dir("L").join("agent_running.flag").exists());
    // Nobody serves it any more: the client says so and does not block.
    let o = env
        .cmd()
        .args(["--session", "L", "--send", "x"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}

fn sub_agent_script() -> String {
    r#"[
      {"when":"spawn two","tool_calls":[
        {"name":"SubAgent","id":"c1","input":{"prompt":"TASK-ALPHA","description":"a"}},
        {"name":"SubAgent","id":"c2","input":{"prompt":"TASK-BETA","description":"b"}}]},
      {"when":"\"content\":\"TASK-ALPHA\"","text":"alpha result"},
      {"when":"\"content\":\"TASK-BETA\"","text":"beta result"},
      {"text":"waiting for the sub-agents"},
      {"repeat":true,"text":"noted"}
    ]"#
    .into()
}

#[test]
fn two_parallel_sub_agents_report_and_one_shot_exits() {
    let env = Env::new();
    let mock = Mock::start(&sub_agent_script());
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args([
            "--api-key",
            "sk-test-PLANTED",
            "--session",
            "P",
            "spawn two",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut agent = c.spawn().unwrap();
    assert_eq!(wait_exit(&mut agent, 60), Some(0));
    let e = evs(&env, "P");
    let results: Vec<(String, String)> = e
        .iter()
        .filter(|x| x["type"] == "sub_agent_result")
        .map(|x| {
            (
                x["status"].as_str().unwrap().into(),
                x["text"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results.contains(&("ok".into(), "alpha result".into())));
    assert!(results.contains(&("ok".into(), "beta result".into())));
    let conv = env.read("P", "conversation.jsonl");
    assert!(
        conv.contains("Text: alpha result") && conv.contains("Text: beta result"),
        "{conv}"
    );
    assert_eq!(env.read("P", "active_sub.count").trim(), "0");
}

#[test]
fn killed_sub_agent_is_failed_and_the_parent_does_not_hang() {
    let env = Env::new();
    let script = r#"[
      {"when":"spawn one","tool_calls":[{"name":"SubAgent","id":"c1","input":{"prompt":"TASK-SLOW","description":"slow"}}]},
      {"when":"\"content\":\"TASK-SLOW\"","text":"never","delay_ms":60000},
      {"text":"waiting"},
      {"repeat":true,"text":"noted"}
    ]"#;
    let mock = Mock::start(script);
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args([
            "--api-key",
            "sk-test-PLANTED",
            "--session",
            "K",
            "spawn one",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut agent = c.spawn().unwrap();
    let mut pid = None;
    wait_until("the task pid in a tool result", 30, || {
        pid = evs(&env, "K")
            .iter()
            .filter(|e| e["type"] == "tool_result")
            .filter_map(|e| {
                e["content"]
                    .as_str()?
                    .split("pid=")
                    .nth(1)?
                    .trim()
                    .parse::<i32>()
                    .ok()
            })
            .next();
        pid.is_some()
    });
    let pid = pid.unwrap();
    // Wait until the child is really talking to the model, then kill it.
    wait_until("the child to call the model", 30, || {
        mock.requests()
            .iter()
            .any(|r| r["body"].to_string().contains("\"content\":\"TASK-SLOW"))
    });
    let t0 = Instant::now();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    assert_eq!(wait_exit(&mut agent, 30), Some(0));
    assert!(t0.elapsed() < Duration::from_secs(20));
    let failed = evs(&env, "K")
        .iter()
        .any(|e| e["type"] == "sub_agent_result" && e["status"] == "failed");
    assert!(failed);
}

#[test]
fn background_task_result_starts_a_notify_turn() {
    let env = Env::new();
    let script = r#"[
      {"when":"run it","tool_calls":[{"name":"Bash","id":"b1","input":{"command":"sleep 0.3; echo bg-out","background":true}}]},
      {"text":"started"},
      {"when":"[async-task async_","text":"seen the task"},
      {"repeat":true,"text":"noted"}
    ]"#;
    let mock = Mock::start(script);
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "B", "run it"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let e = evs(&env, "B");
    let t = e
        .iter()
        .find(|x| x["type"] == "async_task_result")
        .expect("task result");
    assert_eq!(t["output"], "bg-out\n");
    assert!(e
        .iter()
        .any(|x| x["type"] == "text" && x["content"] == "seen the task"));
}

#[test]
fn crashed_run_leftovers_are_recovered_on_next_start() {
    let env = Env::new();
    let dir = env.session_dir("C");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("events.jsonl"),
        "{\"type\":\"session_start\",\"session_id\":\"C\"}\n",
    )
    .unwrap();
    std::fs::write(dir.join("agent_running.flag"), "999999 1\n").unwrap();
    let wire = Frame::new([
        "AGENT_RESULT",
        "sub_old",
        "ok",
        "",
        "old answer",
        "1",
        "2",
        "0",
        "0",
        "1",
    ]);
    std::fs::write(dir.join("notify.fifo"), wire.encode()).unwrap();
    std::fs::write(
        dir.join("notify.buf"),
        Frame::new(["USER_NOTIFY", "buffered note"]).encode(),
    )
    .unwrap();
    let mock = Mock::start(r#"[{"repeat":true,"text":"fine"}]"#);
    let o = env.agent(&mock.base("claude"), "claude", &["--session", "C", "hello"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let body = mock.requests()[0]["body"].to_string();
    assert!(body.contains("buffered note"), "{body}");
    assert!(
        body.contains("[sub-agent sub_old] ok"),
        "the orphan's regular notify.fifo was lost: recover_stale must run before Session::init"
    );
    assert!(body.contains("old answer"));
    assert!(!dir.join("agent_running.flag").exists());
    assert!(
        !dir.join("notify.buf").exists()
            || std::fs::metadata(dir.join("notify.buf")).unwrap().len() == 0
    );
}
