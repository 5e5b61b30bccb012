//! What the interactive screen shows while and after a turn runs (docs/interactive.md), in a
//! real terminal (tmux) against the scripted model: the status line during a 4-second wait
//! for the first token and gone after; a running Bash's last lines, collapsed when it ends;
//! markdown (and raw text with `--no-markdown` or NO_COLOR); soft-wrapped answers that a
//! resize reflows; Ctrl+C and Esc mid-stream (`Interrupted.` on its own line, no stale prompt
//! row); an Esc that never swallows the next Ctrl+C; newlines with `\`+Enter, Alt+Enter and
//! Ctrl+J; plain progress lines under NO_COLOR and TERM=dumb; the status line counting a
//! background task between turns.
use crate::support::term::Term;
use crate::support::tmux::have_tmux;
use crate::support::*;
use serde_json::json;

const COLOR: &str = "TERM=xterm-256color";

impl Term {
    fn stops(&self) -> usize {
        self.events()
            .iter()
            .filter(|e| e["type"] == "stop" && e["reason"] == "interrupted")
            .count()
    }
}

fn slow_rows(tag: &str) -> String {
    (1..=99).map(|i| format!("{tag} {i:02}\n")).collect()
}

#[test]
fn status_line_during_the_wait_for_the_first_token_and_gone_after() {
    if !have_tmux() {
        return;
    }
    let term = Term::start(
        json!([{"when": "slow start", "head_delay_ms": 4000, "text": "First token came."}]),
        COLOR,
        "",
    );
    term.send("slow start");
    // It sits between the transcript and the prompt, never inside the transcript.
    term.wait("the status line above the prompt", 10, |s| {
        let lines: Vec<&str> = s.lines().collect();
        lines.len() > 2
            && lines[lines.len() - 1] == ">"
            && lines[lines.len() - 2].contains("waiting for the model")
            && lines[lines.len() - 2].contains("esc to interrupt")
            && lines[lines.len() - 3] == "> slow start"
    });
    term.wait("the answer and the status line gone", 20, |s| {
        s.contains("First token came.") && !s.contains("esc to interrupt")
    });
    term.turn_end();
    let s = term.screen();
    assert!(!s.contains("waiting for the model"), "{s}");
    assert!(s.contains("> slow start\nFirst token came.\n>"), "{s}");
}

#[test]
fn a_running_bash_shows_its_last_lines_then_collapses() {
    if !have_tmux() {
        return;
    }
    let cmd = "for i in $(seq 1 300); do echo row $i; sleep 0.01; done";
    let term = Term::start(
        json!([
            {"when": "count rows", "tool_calls": [
                {"name": "Bash", "id": "b1", "input": {"command": cmd}}]},
            {"text": "Counted."}
        ]),
        COLOR,
        "--permission-mode bypass",
    );
    term.send("count rows");
    term.wait("live output under the tool line", 20, |s| {
        s.contains("running Bash(for i in") && s.lines().any(|l| l.starts_with("  row "))
    });
    term.wait("the collapsed result", 30, |s| s.contains("Counted."));
    term.turn_end();
    let s = term.screen();
    assert!(
        s.contains("row 1\nrow 2\nrow 3\n… 294 lines\nrow 298\nrow 299\nrow 300\nCounted."),
        "{s}"
    );
    assert!(!s.contains("row 150"), "{s}");
    assert!(!s.contains("esc to interrupt"), "{s}");
    let full = term
        .events()
        .iter()
        .find(|e| e["type"] == "tool_result")
        .map(|e| e["content"].as_str().unwrap_or("").to_string())
        .unwrap_or_default();
    assert!(full.contains("row 150\n"), "events keep all of it: {full}");
}

const MD: &str = "# Title\nSome **bold** and `code`.\n- one\n- two\n\n```rust\nfn x() {}\n```\n\
| a | b |\n|---|---|\n| 1 | 2 |\nEnd.";

#[test]
fn markdown_is_rendered_and_raw_with_no_markdown_or_no_color() {
    if !have_tmux() {
        return;
    }
    let script = json!([{"when": "show md", "text": MD, "chunk": 3, "delay_ms": 5}]);
    let term = Term::start(script.clone(), COLOR, "");
    term.send("show md");
    term.wait("the rendered answer", 20, |s| s.contains("End."));
    term.turn_end();
    let s = term.screen();
    for want in [
        "\nTitle\n",
        "Some bold and code.",
        "• one\n• two",
        "```rust\nfn x() {}\n```",
        "a │ b\n──┼──\n1 │ 2",
    ] {
        assert!(s.contains(want), "{want:?} in\n{s}");
    }
    let escapes = term
        .t
        .run(&["capture-pane", "-p", "-e", "-t", &term.run.name]);
    assert!(escapes.contains("\x1b[1m"), "bold is drawn: {escapes:?}");
    drop(term);
    for (vars, args) in [
        (COLOR, "--no-markdown"),
        ("NO_COLOR=1 TERM=xterm-256color", ""),
    ] {
        let term = Term::start(script.clone(), vars, args);
        term.send("show md");
        term.wait("the raw answer", 20, |s| s.contains("End."));
        term.turn_end();
        let s = term.screen();
        assert!(s.contains("# Title\nSome **bold** and `code`."), "{s}");
        assert!(s.contains("| a | b |"), "{s}");
    }
}

#[test]
fn soft_wrap_resize_and_ctrl_c_leave_a_clean_transcript() {
    if !have_tmux() {
        return;
    }
    let long_a = "alpha ".repeat(40).trim_end().to_string();
    let long_b = "bravo ".repeat(30).trim_end().to_string();
    let term = Term::start(
        json!([
            {"when": "wide one", "text": format!("{long_a}\nok"), "chunk": 7, "delay_ms": 2},
            {"when": "narrow one", "text": format!("{long_b}\nok"), "chunk": 7, "delay_ms": 2},
            {"when": "slow story", "text": slow_rows("line"), "chunk": 1, "delay_ms": 40},
        ]),
        COLOR,
        "",
    );
    let name = term.run.name.clone();
    term.send("wide one");
    term.wait("the long answer", 20, |s| s.contains(&long_a));
    term.turn_end();
    // No inserted breaks: the joined capture has the line whole, the pane wraps it.
    let rows: Vec<String> = term.t.visible(&name).lines().map(String::from).collect();
    assert!(rows.iter().all(|r| r.chars().count() <= 100), "{rows:?}");
    term.t.resize(&name, 60, 40);
    wait_until("the new width", 10, || {
        term.t
            .run(&["display-message", "-p", "-t", &name, "#{window_width}"])
            .trim()
            == "60"
    });
    term.send("narrow one");
    term.wait("the answer after the resize", 20, |s| s.contains(&long_b));
    term.turn_end();
    let visible = term.t.visible(&name);
    let b_rows: Vec<&str> = visible.lines().filter(|l| l.contains("bravo")).collect();
    assert!(
        b_rows.len() >= 3,
        "wrapped by the terminal at 60: {visible}"
    );
    assert!(b_rows.iter().all(|r| r.chars().count() <= 60), "{visible}");

    term.send("slow story");
    term.wait("the slow answer", 20, |s| s.contains("line 02"));
    term.keys(&["C-c"]);
    term.wait("the interrupt", 20, |s| s.contains("Interrupted."));
    term.turn_end();
    let s = term.screen();
    let lines: Vec<&str> = s.lines().collect();
    let i = lines.iter().position(|l| *l == "Interrupted.").unwrap_or(0);
    assert!(lines[i - 1].starts_with('l'), "{s}");
    assert_eq!(lines[i + 1..], [">"], "the prompt right below: {s}");
    // Every `>` row is an echoed input or the prompt: no stale prompt row in the answer.
    let prompts: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with('>'))
        .copied()
        .collect();
    assert_eq!(
        prompts,
        ["> wide one", "> narrow one", "> slow story", ">"],
        "{s}"
    );
}

#[test]
fn esc_interrupts_never_swallows_ctrl_c_and_newline_keys() {
    if !have_tmux() {
        return;
    }
    let term = Term::start(
        json!([
            {"when": "slow story", "text": slow_rows("line"), "chunk": 1, "delay_ms": 40},
            {"when": "fourth", "text": "Four lines read."},
        ]),
        COLOR,
        "",
    );
    term.send("slow story");
    term.wait("the slow answer", 20, |s| s.contains("line 02"));
    term.keys(&["Escape"]);
    term.wait("the interrupt", 20, |s| s.contains("Interrupted."));
    wait_until("the interrupted stop", 10, || term.stops() == 1);
    term.turn_end();
    assert!(!term.screen().contains("line 99"));

    // `\`+Enter, Alt+Enter and Ctrl+J each start a new line; Enter sends the lot.
    let name = term.run.name.clone();
    term.t.type_text(&name, "first\\");
    term.keys(&["Enter"]);
    term.t.type_text(&name, "second");
    term.keys(&["M-Enter"]);
    term.t.type_text(&name, "third");
    term.keys(&["C-j"]);
    term.send("fourth");
    term.wait("the multi-line answer", 20, |s| {
        s.contains("Four lines read.")
    });
    term.turn_end();
    let input: Vec<String> = term
        .events()
        .iter()
        .filter(|e| e["type"] == "user_input")
        .map(|e| e["content"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        input.last().map(String::as_str),
        Some("first\nsecond\nthird\nfourth")
    );

    // Esc and Ctrl+C read together at the idle prompt: the Ctrl+C still counts.
    term.keys(&["Escape", "C-c"]);
    term.wait("the exit hint", 10, |s| {
        s.contains("Press Ctrl+C again to exit")
    });
    term.keys(&["C-c"]);
    wait_until("the exit", 20, || term.run.rc().is_some());
    assert_eq!(term.run.rc().as_deref(), Some("0"), "{}", term.screen());
}

#[test]
fn no_color_and_dumb_terminals_get_plain_progress_lines() {
    if !have_tmux() {
        return;
    }
    for vars in ["NO_COLOR=1 TERM=xterm-256color", "TERM=dumb"] {
        let term = Term::start(
            json!([{"when": "slow start", "head_delay_ms": 1500, "text": "Plain answer."}]),
            vars,
            "",
        );
        term.send("slow start");
        term.wait("the answer", 20, |s| s.contains("Plain answer."));
        term.turn_end();
        let s = term.screen();
        assert!(
            s.contains("… waiting for the model (esc to interrupt)\nPlain answer."),
            "{vars}: {s}"
        );
        assert!(!s.contains('⠋') && !s.contains("tokens ·"), "{vars}: {s}");
        let esc = term
            .t
            .run(&["capture-pane", "-p", "-e", "-t", &term.run.name]);
        assert!(!esc.contains("\x1b[36m"), "{vars}: no colours: {esc:?}");
    }
}

#[test]
fn status_line_counts_background_work_between_turns() {
    if !have_tmux() {
        return;
    }
    let term = Term::start(
        json!([
            {"when": "start a job", "tool_calls": [
                {"name": "Bash", "id": "j1", "input": {"command": "sleep 3", "background": true}}]},
            {"when": "Async task started", "text": "Started."},
            {"repeat": true, "text": "Noted."}
        ]),
        COLOR,
        "--permission-mode bypass",
    );
    term.send("start a job");
    term.wait("the turn's end with the task still running", 20, |s| {
        let lines: Vec<&str> = s.lines().collect();
        s.contains("Started.")
            && lines.len() > 2
            && lines[lines.len() - 1] == ">"
            && lines[lines.len() - 2].contains("waiting for 1 sub-agent or background task")
    });
    term.wait("the task's end", 30, |s| {
        s.contains("completed (exit_code=0)")
            && s.contains("Noted.")
            && !s.contains("background task…")
    });
}
