//! The terminal of an interactive run is closed in the middle of a turn (tmux
//! `kill-session` closes the pty: reads see end-of-file, writes fail with EIO), once while
//! the model streams slowly and twice while a Bash tool runs `sleep 30` (once with the
//! SIGHUP a login shell forwards to its jobs when its terminal closes, once without). Each
//! time the agent ends by itself without a panic, with exit code 0 (docs/robustness.md,
//! "How a run ends"), the interrupted turn saved (an `interrupted` stop, whole lines, paired
//! tool calls), its FIFOs and running flag removed, and the Bash command's process group
//! gone. Also: after a turn cut by `--max-tokens`, Ctrl+D exits 0.
use crate::interactive_e2e::{alive, have_tmux, read_events, Run, Tmux};
use crate::support::checks::{assert_no_panic, check_conversation, check_tree};
use crate::support::*;

/// (parent pid, process group) of a process, from /proc/<pid>/stat.
fn stat_ids(pid: i32) -> Option<(i32, i32)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some((f.get(1)?.parse().ok()?, f.get(2)?.parse().ok()?))
}

/// The process group of a descendant of `root` whose command line contains `needle`.
fn descendant_group(root: i32, needle: &str) -> Option<i32> {
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if !cmd.contains(needle) {
            continue;
        }
        // Walk up to `root`.
        let mut p = pid;
        for _ in 0..8 {
            let Some((ppid, _)) = stat_ids(p) else { break };
            if ppid == root {
                return stat_ids(pid).map(|(_, g)| g);
            }
            p = ppid;
        }
    }
    None
}

fn group_alive(pgid: i32) -> bool {
    unsafe { libc::kill(-pgid, 0) == 0 }
}

enum Moment {
    /// The slow answer has begun on the screen.
    Streaming,
    /// The Bash tool's `sleep 30` runs; `true`: SIGHUP follows the close.
    InBash(bool),
}

fn close_terminal_during(moment: Moment) {
    let env = Env::new();
    let rows: String = (1..=99).map(|i| format!("hup {i:02}\n")).collect();
    let script = serde_json::json!([
        {"when": "tell a slow story", "text": rows, "chunk": 1, "delay_ms": 100},
        {"when": "run the sleeper", "tool_calls": [
            {"name": "Bash", "id": "b1", "input": {"command": "sleep 30"}}]},
        {"text": "slept well", "repeat": true},
    ]);
    let mock = Mock::start(&script.to_string());
    let sdir = env.session_dir("s");
    let ev_path = sdir.join("events.jsonl");
    let err_path = env.dir.path().join("agent.stderr");
    let t = Tmux::for_env(&env);
    // stderr goes to a file: the terminal that would show a panic is gone.
    let redirect = format!("2>'{}'", err_path.display());
    let run = Run::start_opts(
        &t,
        &env,
        "hup",
        &mock.base("claude"),
        "NO_COLOR=1 TERM=xterm-256color",
        &redirect,
        true,
    );
    let w = run.name.as_str();
    let diag = || {
        format!(
            "screen:\n{}\nevents:\n{}\nstderr:\n{}",
            t.screen(w),
            std::fs::read_to_string(&ev_path).unwrap_or_default(),
            std::fs::read_to_string(&err_path).unwrap_or_default()
        )
    };
    wait_until_or("the prompt", 20, || t.last_line(w) == ">", diag);
    let pid = run.pid().expect("pid");
    let mut group = None;
    let mut hup = false;
    match moment {
        Moment::Streaming => {
            t.type_text(w, "tell a slow story");
            t.keys(w, &["Enter"]);
            wait_until_or(
                "the answer streaming",
                20,
                || t.screen(w).contains("hup 01"),
                diag,
            );
        }
        Moment::InBash(h) => {
            hup = h;
            t.type_text(w, "run the sleeper");
            t.keys(w, &["Enter"]);
            wait_until_or(
                "the Bash tool running",
                20,
                || {
                    group = descendant_group(pid, "sleep 30");
                    group.is_some()
                },
                diag,
            );
        }
    }
    assert!(sdir.join("agent_running.flag").exists(), "{}", diag());
    t.run(&["kill-session", "-t", w]);
    if hup {
        unsafe { libc::kill(pid, libc::SIGHUP) };
    }
    wait_until_or(
        "the agent to end after its terminal closed",
        20,
        || !alive(pid) && run.rc().is_some(),
        diag,
    );
    assert_eq!(run.rc().as_deref(), Some("0"), "{}", diag());
    let err = std::fs::read_to_string(&err_path).unwrap_or_default();
    assert_no_panic(&err);
    assert!(!err.contains("internal error"), "{err}");
    if let Some(g) = group {
        wait_until("the Bash command's process group gone", 10, || {
            !group_alive(g)
        });
    }
    for f in ["agent_running.flag", "input.fifo", "notify.fifo"] {
        assert!(!sdir.join(f).exists(), "{f} left behind\n{}", diag());
    }
    // Saved: whole lines everywhere, the turn ended as interrupted, tool calls paired.
    check_tree(&env.home);
    let evs = read_events(&ev_path);
    assert!(
        evs.iter()
            .any(|e| e["type"] == "stop" && e["reason"] == "interrupted"),
        "{}",
        diag()
    );
    check_conversation(&sdir.join("conversation.jsonl"));
    let conv = std::fs::read_to_string(sdir.join("conversation.jsonl")).unwrap_or_default();
    match moment {
        Moment::Streaming => assert!(conv.contains("tell a slow story"), "{conv}"),
        Moment::InBash(_) => assert!(conv.contains("\"b1\""), "{conv}"),
    }
    // The session resumes: the next run sends a well-formed conversation.
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "s", "and now?"],
    );
    expect_code(&o, 0);
    let last = mock.records().pop().expect("a request");
    crate::support::checks::check_request_pairing(&last["body"]);
}

#[test]
fn closing_the_terminal_while_the_answer_streams() {
    if have_tmux() {
        close_terminal_during(Moment::Streaming);
    }
}

#[test]
fn closing_the_terminal_while_bash_runs() {
    if have_tmux() {
        close_terminal_during(Moment::InBash(false));
    }
}

#[test]
fn closing_the_terminal_with_sighup_while_bash_runs() {
    if have_tmux() {
        close_terminal_during(Moment::InBash(true));
    }
}

/// Ctrl+D after a turn cut by `--max-tokens` (a failed turn, already reported) exits 0.
#[test]
fn ctrl_d_after_a_truncated_turn_exits_0() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"text":"This answer is cut off here","stop":"max_tokens","repeat":true}]"#,
    );
    let ev_path = env.session_dir("s").join("events.jsonl");
    let t = Tmux::for_env(&env);
    let run = Run::start_with(
        &t,
        &env,
        "cut",
        &mock.base("claude"),
        "NO_COLOR=1 TERM=xterm-256color",
        "--max-tokens 20",
    );
    let w = run.name.as_str();
    let diag = || {
        format!(
            "screen:\n{}\nevents:\n{}",
            t.screen(w),
            std::fs::read_to_string(&ev_path).unwrap_or_default()
        )
    };
    wait_until_or("the prompt", 20, || t.last_line(w) == ">", diag);
    t.type_text(w, "say a lot");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the cut answer and the prompt back",
        20,
        || {
            t.screen(w).contains("This answer is cut off here")
                && read_events(&ev_path)
                    .iter()
                    .any(|e| e["type"] == "stop" && e["reason"] == "max_tokens")
                && t.last_line(w) == ">"
        },
        diag,
    );
    t.wait_turn_end(w, &env.project_dir(), diag);
    t.keys(w, &["C-d"]);
    wait_until_or("the exit", 10, || run.rc().is_some(), diag);
    assert_eq!(run.rc().as_deref(), Some("0"), "{}", diag());
    wait_until_or(
        "the goodbye drawn",
        10,
        || t.screen(w).contains("Goodbye!"),
        diag,
    );
    // The cut answer was stored.
    let conv = env.read("s", "conversation.jsonl");
    assert!(conv.contains("This answer is cut off here"), "{conv}");
}
