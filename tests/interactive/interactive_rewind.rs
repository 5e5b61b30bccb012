//! `/rewind` in a real terminal (tmux) against the scripted model: two turns write a file,
//! `/rewind` lists the turns, `2` picks one (the file and the conversation go back), the
//! next prompt is sent without the rewound turn, another line cancels the pick, and
//! `/rewind undo` is refused once a turn ran since (and works right after a rewind).
use crate::interactive_e2e::{have_tmux, read_events, Run, Tmux};
use crate::support::*;

fn script() -> String {
    serde_json::json!([
        {"tool_calls": [{"name": "Write", "id": "w1", "input": {"path": "x.txt", "content": "one\n"}}]},
        {"text": "Wrote one."},
        {"tool_calls": [{"name": "Write", "id": "w2", "input": {"path": "x.txt", "content": "two\n"}}]},
        {"text": "Wrote two."},
        {"text": "Answer.", "repeat": true}
    ])
    .to_string()
}

#[test]
fn rewind_pick_list_restores_conversation_and_files() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let t = Tmux::for_env(&env);
    let mock = Mock::start(&script());
    let run = Run::start_with(
        &t,
        &env,
        "rw",
        &mock.base("claude"),
        "NO_COLOR=1 TERM=xterm-256color",
        "--permission-mode bypass",
    );
    let w = run.name.as_str();
    let diag = || t.diag(w, &mock);
    let wait = |what: &str, cond: &mut dyn FnMut() -> bool| wait_until_or(what, 30, cond, diag);
    let send = |line: &str| {
        t.type_text(w, line);
        t.keys(w, &["Enter"]);
    };
    let file = || std::fs::read_to_string(env.cwd.join("x.txt")).unwrap_or_default();
    wait("the prompt", &mut || t.last_line(w) == ">");

    send("alpha task");
    wait("turn 1", &mut || t.screen(w).contains("Wrote one."));
    t.wait_turn_end(w, &env.project_dir(), diag);
    send("beta task");
    wait("turn 2", &mut || t.screen(w).contains("Wrote two."));
    t.wait_turn_end(w, &env.project_dir(), diag);
    assert_eq!(file(), "two\n");

    // Anything but a number cancels the pick (and goes on as usual: /status runs).
    send("/rewind");
    wait("the list", &mut || {
        t.screen(w).contains("Type a turn number")
    });
    let screen = t.screen(w);
    assert!(
        screen.contains("  1. alpha task") && screen.contains("  2. beta task"),
        "{}",
        diag()
    );
    send("/status");
    wait("the cancel", &mut || {
        t.screen(w).contains("Rewind cancelled.")
    });
    assert_eq!(file(), "two\n");

    // Pick turn 2: the file is back to turn 1's version.
    send("/rewind");
    wait("the list again", &mut || {
        t.screen(w).matches("Type a turn number").count() == 2
    });
    send("2");
    wait("the rewind", &mut || {
        t.screen(w).contains("Rewound to just before turn 2")
    });
    assert_eq!(file(), "one\n");
    let conv = std::fs::read_to_string(env.session_dir("s").join("conversation.jsonl")).unwrap();
    assert!(
        conv.contains("alpha task") && !conv.contains("beta task"),
        "{conv}"
    );

    // /rewind undo right away puts it back; a second rewind, then a turn, then undo is refused.
    send("/rewind undo");
    wait("the undo", &mut || t.screen(w).contains("Undid rewind 1"));
    assert_eq!(file(), "two\n");
    send("/rewind 2");
    wait("the second rewind", &mut || {
        t.screen(w).matches("Rewound to just before turn 2").count() == 2
    });
    assert_eq!(file(), "one\n");
    send("gamma task");
    wait("the next turn", &mut || mock.requests().len() == 5);
    let body = mock.requests()[4]["body"].to_string();
    assert!(
        body.contains("alpha task") && body.contains("gamma task"),
        "{body}"
    );
    assert!(!body.contains("beta task"), "{body}");
    wait("the answer", &mut || t.screen(w).contains("Answer."));
    t.wait_turn_end(w, &env.project_dir(), diag);
    send("/rewind undo");
    wait("the refusal", &mut || {
        t.screen(w).contains("the conversation changed since")
    });
    assert_eq!(file(), "one\n");

    t.keys(w, &["C-d"]);
    wait("the exit", &mut || run.rc().is_some());
    assert_eq!(run.rc().as_deref(), Some("0"));
    let evs = read_events(&env.session_dir("s").join("events.jsonl"));
    let rewinds: Vec<_> = evs.iter().filter(|e| e["type"] == "rewind").collect();
    assert_eq!(rewinds.len(), 3, "{rewinds:?}");
    assert_eq!(rewinds[1]["action"], "undo");
}
