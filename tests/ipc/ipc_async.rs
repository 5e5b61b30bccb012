//! Bash with `async` as the shell agent of our session layout has it: the tool result, the
//! task's `.log` file, the counter, the three events, the display and the injected text,
//! with the real binary against the scripted model; and a shell-format result naming a
//! `.log` file, written into notify.fifo by another process.

use crate::support::checks::wait_timeout;
use crate::support::*;
use bash_agent::ipc::client::has_reader;
use bash_agent::ipc::resp::Frame;
use bash_agent::session::paths::is_generated_id;
use std::process::{Child, Command, Stdio};

fn raw_events(env: &Env, s: &str) -> Vec<String> {
    env.read(s, "events.jsonl")
        .lines()
        .map(str::to_string)
        .collect()
}

/// `YYYY-MM-DDTHH:MM:SSZ`
fn is_utc_stamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// The line of `lines` that starts with `prefix` and ends with `"timestamp":"<stamp>"}`;
/// returns its index.
fn stamped(lines: &[String], prefix: &str) -> usize {
    let i = lines
        .iter()
        .position(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix} in {lines:#?}"));
    let rest = &lines[i][prefix.len()..];
    let stamp = rest
        .strip_prefix("\"timestamp\":\"")
        .and_then(|r| r.strip_suffix("\"}"))
        .unwrap_or_else(|| panic!("{}", lines[i]));
    assert!(is_utc_stamp(stamp), "{}", lines[i]);
    i
}

/// The user messages of a session's conversation.jsonl, in order.
fn user_texts(env: &Env, s: &str) -> Vec<String> {
    env.read(s, "conversation.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["role"] == "user" && v["content"].is_string())
        .map(|v| v["content"].as_str().unwrap().to_string())
        .collect()
}

/// `Async task started: task_id=async_<id>, pid=<pid>` → the task id.
fn task_id_of(result: &str) -> String {
    let rest = result
        .strip_prefix("Async task started: task_id=")
        .unwrap_or_else(|| panic!("{result}"));
    let (id, pid) = rest
        .split_once(", pid=")
        .unwrap_or_else(|| panic!("{result}"));
    assert!(pid.parse::<u32>().is_ok(), "{result}");
    let sid = id
        .strip_prefix("async_")
        .unwrap_or_else(|| panic!("{result}"));
    assert!(is_generated_id(sid), "{result}");
    id.to_string()
}

fn tool_result(env: &Env, s: &str, call: &str) -> String {
    events(&env.session_dir(s).join("events.jsonl"))
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == call)
        .and_then(|e| e["content"].as_str().map(str::to_string))
        .expect("tool result")
}

fn one_shot(env: &Env, mock: &Mock, session: &str, prompt: &str) -> Child {
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args(["--api-key", "sk-test-PLANTED", "--session", session, prompt])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c.spawn().unwrap()
}

fn finish(mut child: Child) -> (String, String) {
    let st = wait_timeout(&mut child, 60);
    let o = child.wait_with_output().unwrap();
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(st.code(), Some(0), "{err}");
    (out, err)
}

#[test]
fn async_task_life_in_a_one_shot_run() {
    let env = Env::new();
    let go = env.dir.path().join("go");
    let cmd = format!(
        "echo first; while [ ! -e '{}' ]; do sleep 0.02; done; echo done; exit 3",
        go.display()
    );
    let script = serde_json::json!([
        {"when": "build it", "tool_calls": [
            {"name": "Bash", "id": "a1", "input": {"command": cmd, "async": true}}]},
        {"text": "started"},
        {"when": "[async-task async_", "text": "seen the task"},
        {"repeat": true, "text": "noted"}
    ]);
    let mock = Mock::start(&script.to_string());
    let child = one_shot(&env, &mock, "A", "build it");
    let dir = env.session_dir("A");

    // While it runs: the tool result, the start event, the counter and the .log file.
    wait_until("the tool result", 30, || {
        env.read("A", "events.jsonl").contains("\"tool_result\"")
    });
    let id = task_id_of(&tool_result(&env, "A", "a1"));
    let log = dir.join(format!("{id}.log"));
    wait_until("the task's first output in its .log", 20, || {
        std::fs::read_to_string(&log).unwrap_or_default() == "first\n"
    });
    assert_eq!(env.read("A", "active_sub.count"), "1\n");
    let lines = raw_events(&env, "A");
    let start = stamped(
        &lines,
        &format!(
            r#"{{"type":"async_task_start","task_id":"{id}","command":{},"#,
            serde_json::to_string(&cmd).unwrap()
        ),
    );
    assert!(!lines.iter().any(|l| l.contains("async_task_result")));

    std::fs::write(&go, "").unwrap();
    let (out, _) = finish(child);

    // After: the file is gone, the counter back to 0, two more events, one injection.
    assert!(!log.exists());
    assert_eq!(env.read("A", "active_sub.count"), "0\n");
    let lines = raw_events(&env, "A");
    let result = lines
        .iter()
        .position(|l| {
            *l == format!(
                r#"{{"type":"async_task_result","task_id":"{id}","exit_code":3,"output":"first\ndone\n"}}"#
            )
        })
        .unwrap_or_else(|| panic!("{lines:#?}"));
    let end = stamped(
        &lines,
        &format!(r#"{{"type":"async_task_end","task_id":"{id}","exit_code":3,"#),
    );
    assert!(start < result && end == result + 1, "{lines:#?}");
    let injected = format!("[async-task {id}] exit_code=3\nOutput: first\ndone\n");
    assert!(
        user_texts(&env, "A").contains(&injected),
        "{:?}",
        user_texts(&env, "A")
    );
    assert!(mock.requests().iter().any(|r| {
        let b = r["body"].to_string();
        b.contains(&format!("[async-task {id}] exit_code=3")) && b.contains("Output: first")
    }));
    assert!(
        out.contains(&format!(
            "[async-task {id}] failed (exit_code=3)\nfirst\ndone\n"
        )),
        "{out}"
    );
    assert!(env.read("A", "events.jsonl").contains("seen the task"));
}

#[test]
fn background_is_a_synonym_and_success_is_shown_completed() {
    let env = Env::new();
    let long = "x".repeat(130);
    let script = serde_json::json!([
        {"when": "go", "tool_calls": [
            {"name": "Bash", "id": "b1", "input": {"command": format!("echo {long}"), "background": true}}]},
        {"text": "started"},
        {"when": "[async-task async_", "text": "seen"},
        {"repeat": true, "text": "noted"}
    ]);
    let mock = Mock::start(&script.to_string());
    let (out, _) = finish(one_shot(&env, &mock, "B", "go"));
    let id = task_id_of(&tool_result(&env, "B", "b1"));
    assert!(
        out.contains(&format!(
            "[async-task {id}] completed (exit_code=0)\n{}…\n",
            "x".repeat(120)
        )),
        "{out}"
    );
    let ty = types(&events(&env.session_dir("B").join("events.jsonl")));
    for t in ["async_task_start", "async_task_result", "async_task_end"] {
        assert_eq!(ty.iter().filter(|x| *x == t).count(), 1, "{t}: {ty:?}");
    }
    assert!(
        user_texts(&env, "B").contains(&format!("[async-task {id}] exit_code=0\nOutput: {long}\n"))
    );
    assert!(!env.session_dir("B").join(format!("{id}.log")).exists());
    assert_eq!(env.read("B", "active_sub.count"), "0\n");
}

#[test]
fn shell_format_result_with_a_log_path_from_another_process() {
    let env = Env::new();
    let id = "async_20261201-040738-1f2e";
    let mock = Mock::start(
        &serde_json::json!([
            {"when": format!("[async-task {id}] exit_code=0"), "text": "got the log"},
            {"repeat": true, "text": "ok."}
        ])
        .to_string(),
    );
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args(["--api-key", "sk-test-PLANTED", "--session", "S", "--listen"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut agent = c.spawn().unwrap();
    let dir = env.session_dir("S");
    wait_until("the agent to serve input.fifo", 20, || {
        has_reader(&dir.join("input.fifo"))
    });

    // What the shell agent's task leaves: its .log (here longer than the 8192 bytes kept,
    // with a character cut by the limit and an invalid byte) and the count it added.
    let log = dir.join(format!("{id}.log"));
    let mut body = "a".repeat(9000).into_bytes();
    body.extend_from_slice("ü".repeat(4200).as_bytes());
    body.extend_from_slice(b"\nlast \xff line\n");
    std::fs::write(&log, &body).unwrap();
    let mut tail = body[body.len() - 8192..].to_vec();
    assert_eq!(tail[0] & 0xC0, 0x80, "the cut splits a character");
    tail.remove(0);
    let expected = String::from_utf8_lossy(&tail).into_owned();
    std::fs::write(dir.join("active_sub.count"), "1\n").unwrap();

    let frame = env.dir.path().join("frame");
    let log_s = log.to_string_lossy().into_owned();
    std::fs::write(
        &frame,
        Frame::new(["ASYNC_TASK_RESULT", id, "0", &log_s]).encode(),
    )
    .unwrap();
    let st = Command::new("sh")
        .arg("-c")
        .arg("cat \"$T\" > \"$F\"")
        .env("T", &frame)
        .env("F", dir.join("notify.fifo"))
        .status()
        .unwrap();
    assert!(st.success());

    wait_until("the notify turn to answer", 30, || {
        env.read("S", "events.jsonl").contains("got the log")
    });
    assert!(!log.exists());
    assert_eq!(env.read("S", "active_sub.count"), "0\n");
    let lines = raw_events(&env, "S");
    let result = lines
        .iter()
        .position(|l| *l == bash_agent::session::events::ev::async_task_result(id, 0, &expected))
        .unwrap_or_else(|| panic!("{lines:#?}"));
    let end = stamped(
        &lines,
        &format!(r#"{{"type":"async_task_end","task_id":"{id}","exit_code":0,"#),
    );
    assert_eq!(end, result + 1);
    assert!(user_texts(&env, "S").contains(&format!(
        "[async-task {id}] exit_code=0\nOutput: {expected}"
    )));
    assert!(!dir.join("notify.buf").exists() || env.read("S", "notify.buf").is_empty());

    let input = dir.join("input.fifo");
    std::fs::write(&frame, Frame::new(["SESSION_END"]).encode()).unwrap();
    let st = Command::new("sh")
        .arg("-c")
        .arg("cat \"$T\" > \"$F\"")
        .env("T", &frame)
        .env("F", &input)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(wait_timeout(&mut agent, 20).code(), Some(0));
}

/// A path-form result buffered while no reader ran (the task outlived its agent) is read
/// from notify.buf on the next drain, its file deleted and its events logged then.
#[test]
fn buffered_path_form_is_resolved_by_the_drain() {
    let d = tempfile::tempdir().unwrap();
    let (s, _) = crate::support::ipc::session(d.path(), "p");
    let log = s.dir.join("async_x.log");
    std::fs::write(&log, "from the file\n").unwrap();
    bash_agent::ipc::notify::append_to_buf(
        &s.notify_buf(),
        &Frame::new(["ASYNC_TASK_RESULT", "async_x", "1", &log.to_string_lossy()]),
    )
    .unwrap();
    // The later form: text inline, even when it looks like a path of another file.
    let other = s.events().to_string_lossy().into_owned();
    bash_agent::ipc::notify::append_to_buf(
        &s.notify_buf(),
        &Frame::new(["ASYNC_TASK_RESULT", "task_y", "0", &other]),
    )
    .unwrap();
    let f = bash_agent::ipc::notify::drain(&s);
    assert_eq!(f[0].field(3), "from the file\n");
    assert_eq!(f[1].field(3), other);
    assert!(!log.exists() && s.events().exists());
    assert_eq!(
        bash_agent::ipc::notify::injection_text(&f),
        format!("[async-task async_x] exit_code=1\nOutput: from the file\n\n[async-task task_y] exit_code=0\nOutput: {other}")
    );
    let ty: Vec<_> = crate::support::ipc::events(&s)
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ty.iter().filter(|t| t.starts_with("async_task")).count(), 2);
    assert!(ty.contains(&"async_task_end".to_string()));
}

#[test]
fn inject_help_says_old_shell_agents_drop_user_notify() {
    let env = Env::new();
    for args in [&["--help"][..], &["--inject", "--help"][..]] {
        let o = env.run(args);
        expect_code(&o, 0);
        let out = stdout(&o);
        let at = out.find("--inject <TEXT>").expect("--inject in --help");
        assert!(
            out[at..].contains("4.2.11-4.2.13 era drops the frame silently"),
            "{args:?}: {out}"
        );
    }
}
