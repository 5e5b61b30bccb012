//! How runs end: a closed stdout pipe never panics any subcommand, and a signal that ends a
//! run ends the sub-agents and background tasks it started (their process groups), each
//! task's own result recorded, with the counter settled.
use crate::support::{events, wait_until, wait_until_or, Env, Mock};
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::Stdio;

/// Run `args`, read at most `lines` lines of stdout, close it, and return (status, stderr).
fn closed_after(env: &Env, args: &[&str], lines: usize) -> (std::process::ExitStatus, String) {
    let mut c = env.cmd();
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    {
        let out = child.stdout.take().unwrap();
        let mut r = BufReader::new(out);
        for _ in 0..lines {
            let mut l = String::new();
            if r.read_line(&mut l).unwrap_or(0) == 0 {
                break;
            }
        }
        // Dropped here: the reading end is closed.
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap(), err)
}

fn quiet(st: std::process::ExitStatus, err: &str, what: &str) {
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(
        st.success() || st.signal() == Some(libc::SIGPIPE),
        "{what}: {st:?}\n{err}"
    );
}

#[test]
fn a_closed_stdout_never_panics() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"one\ntwo\nthree","repeat":true}]"#);
    // Sessions and events to list and replay.
    for name in ["a", "b", "c"] {
        let o = env.agent(&mock.url, "claude", &["--session", name, "hello"]);
        assert!(o.status.success(), "{o:?}");
    }
    let big = "x\n".repeat(200_000);
    std::fs::write(env.session_dir("a").join("summary.txt"), &big).unwrap();
    for args in [
        vec!["--list-sessions"],
        vec!["--list-sessions", "--json"],
        vec!["--print-replay-awk"],
        vec!["--replay", "--session", "a"],
        vec!["--replay-frames", "--session", "a"],
        vec!["usage"],
        vec!["usage", "--json"],
        vec!["sessions", "show", "a"],
    ] {
        let (st, err) = closed_after(&env, &args, 0);
        quiet(st, &err, &args.join(" "));
    }
    // The agent itself: `--print … | head -2` finishes its turn and saves it.
    let (st, err) = closed_after(
        &env,
        &[
            "--provider",
            "claude",
            "--base-url",
            &mock.url,
            "--api-key",
            "sk-x",
            "--session",
            "p",
            "--print",
            "tell me",
        ],
        2,
    );
    assert!(st.success(), "{st:?}\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    let evs = events(&env.session_dir("p").join("events.jsonl"));
    assert_eq!(evs.last().unwrap()["type"], "stop", "{evs:?}");
    assert!(env.read("p", "conversation.jsonl").contains("three"));
}

fn group_alive(pgid: i32) -> bool {
    unsafe { libc::kill(-pgid, 0) == 0 }
}

#[test]
fn a_signal_ends_the_runs_background_tasks() {
    for sig in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        let env = Env::new();
        let mock = Mock::start(
            r#"[{"tool_calls":[{"name":"Bash","id":"b1","input":{"command":"sleep 60","background":true}}]},
                {"text":"started it","repeat":true}]"#,
        );
        let mut c = env.cmd();
        c.args([
            "--provider",
            "claude",
            "--base-url",
            &mock.url,
            "--api-key",
            "sk-x",
            "--session",
            "s",
            "go",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let ev_path = env.session_dir("s").join("events.jsonl");
        // The one-shot run waits for its task once the turn is over.
        let mut pid = 0;
        wait_until("the background task started", 30, || {
            for e in events(&ev_path) {
                if e["type"] == "tool_result" {
                    let t = e["content"].as_str().unwrap_or("");
                    if let Some(p) = t.rsplit("pid=").next().and_then(|p| p.trim().parse().ok()) {
                        pid = p;
                    }
                }
            }
            pid > 0 && events(&ev_path).iter().any(|e| e["type"] == "stop")
        });
        assert!(group_alive(pid));
        unsafe { libc::kill(child.id() as i32, sig) };
        let st = child.wait().unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(!err.contains("panicked"), "{err}");
        assert!(
            st.code().is_some(),
            "signal {sig}: ended by a signal, not by itself: {st:?}"
        );
        wait_until("the task's group is gone", 10, || !group_alive(pid));
        // The task's own result (ended by SIGTERM: 143), recorded by this run or, if it
        // came after the run had gone, by the task's reporter.
        wait_until_or(
            "the task's result is recorded",
            20,
            || {
                let evs = events(&ev_path);
                evs.iter()
                    .any(|e| e["type"] == "async_task_result" && e["exit_code"] == 143)
                    && evs
                        .iter()
                        .any(|e| e["type"] == "async_task_end" && e["exit_code"] == 143)
            },
            || format!("signal {sig}: {:?}", events(&ev_path)),
        );
        let logs = std::fs::read_dir(env.session_dir("s"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "log")
            })
            .count();
        assert_eq!(logs, 0, "signal {sig}: the task's output file is removed");
        let count = std::fs::read_to_string(env.session_dir("s").join("active_sub.count"))
            .unwrap_or_default();
        assert!(
            count.trim().is_empty() || count.trim() == "0",
            "count {count:?}"
        );
    }
}
