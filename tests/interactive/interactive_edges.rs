//! Daily details of issue 42 in a real terminal (tmux) against the scripted model: the token
//! count moves while a tool call's arguments stream, `/kill N` confirms in short and starts
//! no turn, Ctrl+V with nothing to paste says so.
use crate::interactive_daily::{shown_tokens, COLOR};
use crate::support::term::Term;
use crate::support::tmux::have_tmux;
use serde_json::json;

#[test]
fn the_token_count_follows_a_tool_calls_streaming_arguments() {
    if !have_tmux() {
        return;
    }
    let long = "a/".repeat(300);
    let term = Term::start(
        json!([
            {"when": "read it", "tool_calls": [{"name": "Read", "id": "r1",
                "input": {"path": format!("{long}missing.txt")}}], "chunk": 6, "delay_ms": 30},
            {"text": "END", "repeat": true}
        ]),
        COLOR,
        "",
    );
    term.send("read it");
    // Before the call is complete (no tool line yet), the count is already moving.
    term.wait("a count above zero while the arguments stream", 30, |s| {
        shown_tokens(s).is_some_and(|n| n > 0) && !s.contains("Read(")
    });
    term.wait_idle();
    term.keys(&["C-d"]);
}

#[test]
fn kill_confirms_in_short_and_starts_no_turn() {
    if !have_tmux() {
        return;
    }
    let term = Term::with_task("for i in $(seq 1 40); do echo line$i; done; sleep 60");
    // The task's end is shown in short.
    term.stop_task("/kill 1");
    let s = term.screen();
    assert!(
        !s.contains("line1\n"),
        "the output's head is not shown: {s}"
    );
    assert!(!s.contains("Noted."), "no turn started: {s}");
    assert_eq!(term.mock.records().len(), 2, "no model call after /kill");
    // The model learns of it with the next message.
    term.send("what now");
    term.wait("the next answer", 20, |s| s.contains("Noted."));
    let reqs = term.mock.records();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[2]["body"].to_string().contains("exit_code=143"));
    term.keys(&["C-d"]);
}

#[test]
fn ctrl_v_with_nothing_to_paste_says_so() {
    if !have_tmux() {
        return;
    }
    let term = Term::start(json!([{"text": "ok", "repeat": true}]), COLOR, "");
    term.keys(&["C-v"]);
    term.wait("the message", 20, |s| s.contains("Nothing to paste"));
    term.keys(&["C-d"]);
}
