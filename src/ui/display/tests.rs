//! Unit tests of the frame display table (docs/replay.md, "Display").
use super::*;

fn run(d: &mut Display, frames: &[Frame]) -> (String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    for f in frames {
        d.render(f, &mut out, &mut err);
    }
    (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// A frame as the display receives it: RESP bytes off the display pipe, decoded by ipc.
fn f(fields: &[&str]) -> Frame {
    let wire = crate::ipc::resp::encode(fields);
    let mut frames = crate::ipc::resp::decode_all(&wire, |e| panic!("{e:?}"));
    assert_eq!(frames.len(), 1);
    frames.remove(0)
}

#[test]
fn thinking_then_text_gets_a_newline() {
    let mut d = Display::new(false, true);
    let (out, _) = run(
        &mut d,
        &[
            f(&["THINKING", "hmm"]),
            f(&["TEXT", "Hi"]),
            f(&["TEXT", "!"]),
        ],
    );
    assert_eq!(out, "\x1b[90mhmm\x1b[0m\nHi!");
    let mut d = Display::new(false, false);
    let (out, _) = run(
        &mut d,
        &[
            f(&["THINKING", "a\n"]),
            f(&["TEXT", "b"]),
            f(&["USAGE", "1"]),
        ],
    );
    assert_eq!(out, "a\nb");
}

#[test]
fn interactive_erases_the_prompt_at_line_start_only() {
    let mut d = Display::new(true, false);
    let (out, _) = run(
        &mut d,
        &[
            f(&["TEXT", "a"]),
            f(&["TEXT", "b\n"]),
            f(&["TOOL_CALL", "Read", "t1", "{}", "path", "x.rs"]),
        ],
    );
    assert_eq!(out, "\r\x1b[Kab\n\r\x1b[K[tool] Read(x.rs)\n");
}

#[test]
fn tool_calls_and_results() {
    let mut d = Display::new(false, true);
    let long = "x".repeat(81);
    let (out, _) = run(
        &mut d,
        &[
            f(&["TEXT", "go"]),
            f(&[
                "TOOL_CALL",
                "Bash",
                "t",
                "{}",
                "command",
                &format!("a\nb{long}"),
            ]),
            f(&["TOOL_RESULT", "t", "Read", "Read(a) [1 lines]\nbody"]),
            f(&[
                "TOOL_RESULT",
                "t",
                "Edit",
                "ok\n\x1b[31m-x\x1b[0m\x1b]0;title\x07",
            ]),
            f(&["TOOL_CALL", "PlanConfirm", "t", "{}"]),
            f(&["TOOL_CALL", "Bash", "t", "{}", "command", &"y".repeat(80)]),
        ],
    );
    let cut: String = format!("a b{long}").chars().take(77).collect();
    assert_eq!(
        out,
        format!(
            "go\n\x1b[33m[tool] Bash({cut}...)\x1b[0m\nRead(a) [1 lines]\nok\n\x1b[31m-x\x1b[0m\n\
             \x1b[33m[tool] PlanConfirm()\x1b[0m\n\x1b[33m[tool] Bash({})\x1b[0m\n",
            "y".repeat(80)
        )
    );
    let mut d = Display::new(false, false);
    let (out, _) = run(
        &mut d,
        &[f(&["TOOL_RESULT", "t", "Edit", "\x1b[31m-x\x1b[0m"])],
    );
    assert_eq!(out, "-x\n");
}

#[test]
fn results_notices_and_errors() {
    let mut d = Display::new(false, true);
    let long = "é".repeat(130);
    let (out, err) = run(
        &mut d,
        &[
            f(&["TEXT", "partial"]),
            f(&["AGENT_RESULT", "sub_1", "ok", "5", "3", "", &long]),
            f(&["AGENT_RESULT", "sub_2", "failed", "0", "0", "why", ""]),
            f(&["ASYNC_TASK_RESULT", "task_1", "2", "oops\n"]),
            f(&["USER_NOTIFY", "check tests"]),
            f(&["CONTEXT_UPDATE", "compact", "auto"]),
            f(&["STOP", "interrupted"]),
            f(&["ERROR", "boom"]),
        ],
    );
    let cut: String = long.chars().take(120).collect();
    assert_eq!(
        out,
        format!(
            "partial\n\x1b[35m[sub-agent sub_1] completed (in=5, out=3)\x1b[0m\n{cut}…\n\
             \x1b[31m[sub-agent sub_2] failed\x1b[0m\n\x1b[90mwhy\x1b[0m\n\
             \x1b[31m[async-task task_1] failed (exit_code=2)\x1b[0m\noops\n\
             \x1b[33m[user inject] check tests\x1b[0m\n\
             \x1b[36mContext compacted (auto).\x1b[0m\n\x1b[36mInterrupted.\x1b[0m\n"
        )
    );
    assert_eq!(err, "\x1b[31mError: boom\x1b[0m\n");
}

#[test]
fn user_message_first_line_cut() {
    let mut d = Display::new(false, false);
    let long = "z".repeat(90);
    let (out, _) = run(
        &mut d,
        &[
            f(&["USER_MESSAGE", "line one\nline two"]),
            f(&["USER_MESSAGE", &long]),
        ],
    );
    assert_eq!(out, format!("> line one\n> {}...\n", "z".repeat(77)));
}

#[test]
fn async_task_lines() {
    let mut d = Display::new(false, true);
    let long = "ü".repeat(121);
    let (out, _) = run(
        &mut d,
        &[
            f(&[
                "ASYNC_TASK_RESULT",
                "async_20261201-040738-1f2e",
                "0",
                "built\n",
            ]),
            f(&["ASYNC_TASK_RESULT", "async_2", "7", &long]),
            f(&["ASYNC_TASK_RESULT", "async_3", "0", ""]),
        ],
    );
    let cut: String = long.chars().take(120).collect();
    assert_eq!(
        out,
        format!(
            "\x1b[36m[async-task async_20261201-040738-1f2e] completed (exit_code=0)\x1b[0m\nbuilt\n\
             \x1b[31m[async-task async_2] failed (exit_code=7)\x1b[0m\n{cut}…\n\
             \x1b[36m[async-task async_3] completed (exit_code=0)\x1b[0m\n"
        )
    );
}
