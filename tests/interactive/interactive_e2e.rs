//! The real `bash-agent -i` in a terminal (tmux) against the scripted model server: a
//! streamed answer, a turn interrupted with Ctrl+C, a Ctrl+O injection into a running
//! turn, a line queued while a turn runs, the Ctrl+D exit (goodbye, resume hint, session
//! files, history), and the replay of the earlier turns when the session is resumed.
//! Also `-i` without a terminal (stdin piped). The tmux tests are skipped (with a note)
//! when tmux is missing.
// Re-exported: tests written against this module's harness keep their imports.
pub(crate) use crate::support::tmux::{alive, have_tmux, read_events, Run, Tmux};
use crate::support::*;
use serde_json::Value;
use std::io::Write;
use std::process::Stdio;

fn count(evs: &[Value], ty: &str) -> usize {
    evs.iter().filter(|e| e["type"] == ty).count()
}

fn stops(evs: &[Value]) -> Vec<String> {
    evs.iter()
        .filter(|e| e["type"] == "stop")
        .map(|e| e["reason"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Lines of `n` numbered rows: `"{tag} 01\n{tag} 02\n…"`.
fn rows(tag: &str, n: usize) -> String {
    (1..=n).map(|i| format!("{tag} {i:02}\n")).collect()
}

#[test]
fn real_agent_in_a_terminal() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let script = serde_json::json!([
        // 1. streamed in small pieces
        {"when": "alpha question", "text": "Alpha answer: all good.\nSecond alpha line.",
         "chunk": 4, "delay_ms": 10},
        // 2. slow: interrupted by Ctrl+C after its first row
        {"when": "beta slow story", "text": rows("beta", 99), "chunk": 1, "delay_ms": 100},
        // 3. slow: a line injected with Ctrl+O and a line queued while it streams
        {"when": "gamma slow task", "text": rows("gamma", 50), "chunk": 1, "delay_ms": 15},
        // 3b. the same turn continues with the injected text
        {"when": "please check the tests", "text": "Injection noted."},
        // 4. the queued line, after the gamma turn
        {"when": "delta queued line", "text": "Delta answer."},
    ]);
    let mock = Mock::start(&script.to_string());
    let url = mock.base("claude");
    let sdir = env.session_dir("s");
    let events_path = sdir.join("events.jsonl");
    let evs = || read_events(&events_path);
    let t = Tmux::for_env(&env);
    let run = Run::start(&t, &env, "one", &url);
    let w = run.name.as_str();
    let diag = || {
        format!(
            "screen:\n{}\nevents:\n{}\nrequests: {}",
            t.screen(w),
            std::fs::read_to_string(&events_path).unwrap_or_default(),
            mock.requests().len()
        )
    };
    let prompt_idle = || t.last_line(w) == ">";
    wait_until_or(
        "the banner and the prompt",
        20,
        || t.screen(w).contains("bash-agent interactive mode") && prompt_idle(),
        diag,
    );

    // 1. A prompt and its streamed answer.
    t.type_text(w, "alpha question");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the first answer",
        10,
        || {
            let s = t.screen(w);
            s.contains("Alpha answer: all good.") && s.contains("Second alpha line.")
        },
        diag,
    );
    // (the final stop is logged twice per turn: the stream's and the turn's, spec §4.3)
    wait_until_or(
        "the first turn's end",
        10,
        || stops(&evs()).len() == 2,
        diag,
    );
    assert_eq!(stops(&evs()), ["end_turn", "end_turn"], "{}", diag());
    wait_until_or("the prompt", 10, prompt_idle, diag);

    // 2. A slow answer, interrupted with Ctrl+C while it streams.
    t.type_text(w, "beta slow story");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the slow answer streaming",
        10,
        || t.screen(w).contains("beta 01"),
        diag,
    );
    assert!(sdir.join("agent_running.flag").exists(), "{}", diag());
    t.keys(w, &["C-c"]);
    wait_until_or(
        "the interrupt",
        10,
        || stops(&evs()).len() == 3 && t.screen(w).contains("Interrupted."),
        diag,
    );
    assert_eq!(
        stops(&evs()),
        ["end_turn", "end_turn", "interrupted"],
        "{}",
        diag()
    );
    wait_until_or(
        "the turn's end",
        10,
        || !sdir.join("agent_running.flag").exists(),
        diag,
    );
    wait_until_or("the prompt back", 10, prompt_idle, diag);
    assert!(!t.screen(w).contains("beta 99"), "{}", diag());

    // 3. A slow answer; during it, Ctrl+O injects a line and another line is queued.
    t.type_text(w, "gamma slow task");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the third answer streaming",
        10,
        || t.screen(w).contains("gamma 01"),
        diag,
    );
    t.type_text(w, "please check the tests");
    wait_until_or(
        "the line typed",
        10,
        || t.last_line(w) == "> please check the tests",
        diag,
    );
    t.keys(w, &["C-o"]);
    wait_until_or("the line cleared", 10, prompt_idle, diag);
    wait_until_or(
        "the injection buffered",
        10,
        || {
            std::fs::read_to_string(sdir.join("notify.buf"))
                .unwrap_or_default()
                .contains("please check the tests")
                || count(&evs(), "user_notify") == 1
        },
        diag,
    );
    // 4. A line typed while the turn runs is queued.
    t.type_text(w, "delta queued line");
    t.keys(w, &["Enter"]);
    wait_until_or("the queued line sent", 10, prompt_idle, diag);
    {
        let e = evs();
        assert!(
            !t.screen(w).contains("gamma 50") && sdir.join("agent_running.flag").exists(),
            "the gamma turn ended before the injection and the queued line were typed:\n{}",
            diag()
        );
        assert_eq!(count(&e, "user_input"), 3, "{}", diag());
    }
    wait_until_or(
        "the injection shown",
        20,
        || t.screen(w).contains("[user inject] please check the tests"),
        diag,
    );
    wait_until_or(
        "the queued turn's answer",
        20,
        || t.screen(w).contains("Delta answer.") && stops(&evs()).len() == 8,
        diag,
    );
    wait_until_or(
        "the turn's end",
        10,
        || !sdir.join("agent_running.flag").exists(),
        diag,
    );
    let s = t.screen(w);
    assert!(
        s.contains("gamma 50") && s.contains("Injection noted."),
        "{s}"
    );

    // The model requests: the injection went into the gamma turn's next request.
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 5, "{reqs:#?}");
    let body = |i: usize| reqs[i]["body"].to_string();
    assert!(body(2).contains("gamma slow task") && !body(2).contains("please check the tests"));
    assert!(body(3).contains("please check the tests"), "{}", body(3));
    assert!(!body(3).contains("delta queued line"), "{}", body(3));
    assert!(body(4).contains("delta queued line"), "{}", body(4));

    // 5. Ctrl+D at the empty prompt ends the session.
    let pid = run.pid().expect("pid");
    assert!(alive(pid), "{}", diag());
    t.keys(w, &["C-d"]);
    wait_until_or("the exit", 10, || run.rc().is_some(), diag);
    assert_eq!(run.rc().as_deref(), Some("0"), "{}", diag());
    assert!(!alive(pid), "the agent (pid {pid}) is still running");
    // Written before the exit, drawn by tmux when it has read the terminal.
    wait_until_or(
        "the goodbye drawn",
        10,
        || t.screen(w).contains("Resume with:"),
        diag,
    );
    let s = t.screen(w);
    assert!(s.contains("Goodbye!"), "{s}");
    assert!(
        s.contains("Resume with: --session s  or  --continue"),
        "{s}"
    );
    // The answers are whole lines, never glued to a prompt line.
    for line in s.lines() {
        if let Some(rest) = line.strip_prefix("> ") {
            assert!(
                !rest.contains("Alpha answer")
                    && !rest.contains("gamma 0")
                    && !rest.contains("beta 0"),
                "garbled prompt line: {line:?}\n{s}"
            );
        }
    }

    // The session files.
    let e = evs();
    let inputs: Vec<&str> = e
        .iter()
        .filter(|x| x["type"] == "user_input")
        .map(|x| x["content"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        inputs,
        [
            "alpha question",
            "beta slow story",
            "gamma slow task",
            "delta queued line"
        ]
    );
    assert_eq!(
        stops(&e),
        [
            "end_turn",
            "end_turn",
            "interrupted",
            "end_turn",
            "end_turn",
            "end_turn",
            "end_turn",
            "end_turn"
        ]
    );
    let pos = |pred: &dyn Fn(&Value) -> bool| e.iter().position(pred).expect("event");
    let notify_at = pos(&|x| x["type"] == "user_notify");
    assert_eq!(e[notify_at]["content"], "please check the tests");
    let gamma_at = pos(&|x| x["type"] == "user_input" && x["content"] == "gamma slow task");
    let delta_at = pos(&|x| x["type"] == "user_input" && x["content"] == "delta queued line");
    assert!(gamma_at < notify_at && notify_at < delta_at, "{e:#?}");
    // The queued line ran after the gamma turn had ended.
    assert!(
        e[gamma_at..delta_at]
            .iter()
            .any(|x| x["type"] == "stop" && x["reason"] == "end_turn"),
        "{e:#?}"
    );
    let conv = std::fs::read_to_string(sdir.join("conversation.jsonl")).expect("conversation");
    for s in [
        "alpha question",
        "beta slow story",
        "gamma slow task",
        "please check the tests",
        "delta queued line",
        "Injection noted.",
        "Delta answer.",
    ] {
        assert!(conv.contains(s), "{s:?} missing in conversation:\n{conv}");
    }
    for f in ["agent_running.flag", "input.fifo", "notify.fifo"] {
        assert!(!sdir.join(f).exists(), "{f} left behind");
    }
    let hist = std::fs::read_to_string(env.home.join(".bash-agent/history")).expect("history");
    assert_eq!(
        hist,
        "alpha question\nbeta slow story\ngamma slow task\ndelta queued line\n"
    );

    // 6. Resuming shows the earlier turns before the new prompt.
    let run2 = Run::start(&t, &env, "two", &url);
    let w2 = run2.name.as_str();
    let diag2 = || format!("screen:\n{}", t.screen(w2));
    wait_until_or(
        "the second run's prompt",
        20,
        || t.last_line(w2) == ">",
        diag2,
    );
    let s = t.screen(w2);
    let lines: Vec<&str> = s.lines().collect();
    let at = |want: &str| {
        lines
            .iter()
            .position(|l| *l == want)
            .unwrap_or_else(|| panic!("{want:?} not replayed:\n{s}"))
    };
    let banner = lines
        .iter()
        .position(|l| l.contains("bash-agent interactive mode"))
        .expect("banner");
    let order = [
        banner,
        at("> alpha question"),
        at("> beta slow story"),
        at("> gamma slow task"),
        at("> delta queued line"),
        lines.len() - 1,
    ];
    assert!(order.windows(2).all(|p| p[0] < p[1]), "{order:?}\n{s}");
    assert!(s.contains("Delta answer."), "{s}");
    let pid2 = run2.pid().expect("pid");
    t.keys(w2, &["C-d"]);
    wait_until_or("the second exit", 10, || run2.rc().is_some(), diag2);
    assert_eq!(run2.rc().as_deref(), Some("0"), "{}", diag2());
    assert!(!alive(pid2));
    wait_until_or(
        "the second goodbye drawn",
        10,
        || t.screen(w2).contains("Goodbye!"),
        diag2,
    );
    assert_eq!(
        mock.requests().len(),
        5,
        "the replay must not call the model"
    );
}

/// `-i` without a terminal: each stdin line is one turn, EOF ends the session.
#[test]
fn piped_stdin_runs_each_line() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"when":"first piped line","text":"First reply."},
            {"when":"second piped line","text":"Second reply."}]"#,
    );
    let mut child = env
        .cmd()
        .args(["-i", "--session", "p", "--base-url"])
        .arg(mock.base("claude"))
        .args(["--api-key", "k"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"first piped line\nsecond piped line\n")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("First reply."), "{stdout}");
    assert!(stdout.contains("Second reply."), "{stdout}");
    assert!(
        stdout.find("First reply.") < stdout.find("Second reply."),
        "{stdout}"
    );
    let e = events(&env.session_dir("p").join("events.jsonl"));
    let inputs: Vec<&str> = e
        .iter()
        .filter(|x| x["type"] == "user_input")
        .map(|x| x["content"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(inputs, ["first piped line", "second piped line"]);
    assert_eq!(stops(&e), ["end_turn"; 4]);
    assert_eq!(mock.requests().len(), 2);
    let sdir = env.session_dir("p");
    for f in ["agent_running.flag", "input.fifo", "notify.fifo"] {
        assert!(!sdir.join(f).exists(), "{f} left behind");
    }
}
