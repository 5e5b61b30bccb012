//! A background task whose result comes after its one-shot parent was ended with SIGTERM
//! (issue 27): the task's reporter records it in notify.buf with its events, and the next
//! `--continue` run shows it to the model. Real processes: the agent, its task's reporter
//! and `bash`, the scripted model server.
use crate::support::{events, wait_until, Env, Mock};
use std::process::Stdio;

/// On SIGTERM the task ignores further signals, waits until the agent (its reporter's
/// parent) is gone, then prints its result: the result is late by construction. It writes
/// [`READY`] (in the project folder, its working directory) once the trap is in place: a
/// SIGTERM before that would end the task at once, with no result at all.
const TASK: &str = r#"trap 'trap "" TERM; a=$(ps -o ppid= -p $PPID | tr -d " "); while kill -0 $a 2>/dev/null; do sleep 0.1; done; echo LATE-RESULT-7; exit 7' TERM; : > task-trap-ready; sleep 60 & wait"#;

/// The file [`TASK`] writes once its TERM trap is set.
const READY: &str = "task-trap-ready";

#[test]
fn a_result_after_the_parent_was_ended_reaches_the_next_run() {
    let env = Env::new();
    let call = serde_json::json!([
        {"tool_calls":[{"name":"Bash","id":"b1","input":{"command":TASK,"background":true}}]},
        {"text":"started it","repeat":true}
    ]);
    let mock = Mock::start(&call.to_string());
    let args = |extra: &[&str]| {
        let mut c = env.cmd();
        c.args(["--provider", "claude", "--base-url", &mock.url])
            .args(["--api-key", "sk-late"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    let mut parent = args(&["--session", "s", "go"]).spawn().unwrap();
    let sdir = env.session_dir("s");
    let ev_path = sdir.join("events.jsonl");
    // The one-shot run waits for its task once the turn is over.
    wait_until("the background task started", 30, || {
        let evs = events(&ev_path);
        evs.iter().any(|e| e["type"] == "async_task_start")
            && evs.iter().any(|e| e["type"] == "stop")
    });
    // Only signal once the task's bash has set its trap: under load the turn can be over
    // before that bash has run its first command.
    let ready = env.cwd.join(READY);
    wait_until("the task's TERM trap is set", 30, || ready.exists());
    unsafe { libc::kill(parent.id() as i32, libc::SIGTERM) };
    let st = parent.wait().unwrap();
    assert!(st.code().is_some(), "ended by the signal itself: {st:?}");
    let late = |e: &serde_json::Value| {
        e["type"] == "async_task_result"
            && e["exit_code"] == 7
            && e["output"].as_str().unwrap_or("").contains("LATE-RESULT-7")
    };
    wait_until("the late result is recorded", 60, || {
        let evs = events(&ev_path);
        evs.iter().any(late)
            && evs
                .iter()
                .any(|e| e["type"] == "async_task_end" && e["exit_code"] == 7)
    });
    let buf = std::fs::read_to_string(sdir.join("notify.buf")).unwrap_or_default();
    assert!(buf.contains("LATE-RESULT-7"), "notify.buf: {buf:?}");
    let logs = std::fs::read_dir(&sdir)
        .unwrap()
        .filter(|e| {
            let p = e.as_ref().unwrap().path();
            p.extension().is_some_and(|x| x == "log")
        })
        .count();
    assert_eq!(logs, 0, "the task's .log is taken");
    // The next run of the session shows it to the model.
    let before = mock.requests().len();
    let st = args(&["--continue", "what happened?"]).status().unwrap();
    assert!(st.success(), "{st:?}");
    let reqs = mock.requests();
    assert!(reqs.len() > before);
    let body = reqs[before..]
        .iter()
        .map(|r| r["body"].to_string())
        .collect::<String>();
    assert!(
        body.contains("LATE-RESULT-7") && body.contains("exit_code=7"),
        "the next run did not see the late result: {body}"
    );
    assert!(
        !bash_agent::util::fsx::non_empty(&sdir.join("notify.buf")),
        "notify.buf is drained"
    );
}
