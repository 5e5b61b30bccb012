//! What a Claude Code user meets in daily interactive use (issue 35), in a real terminal
//! (tmux) against the scripted model: the status line follows a streamed answer (phase and
//! token count) and, with markdown on, the line being streamed shows while it grows.
//! Every check waits for the screen (the prompt, the status line) to come back first.
use crate::support::term::Term;
use crate::support::tmux::{have_tmux, Tmux};
use crate::support::*;
use serde_json::{json, Value};

pub(crate) const COLOR: &str = "TERM=xterm-256color";

/// The steps of the background-task tests.
impl Term {
    /// Without colours and in bypass mode, idle after a first turn (`qqserve`) that started
    /// `command` as a background task; every later message is answered `Noted.`.
    pub(crate) fn with_task(command: &str) -> Term {
        let term = Term::start(
            json!([
                {"when": "qqserve", "tool_calls": [{"name": "Bash", "id": "b1",
                    "input": {"command": command, "async": true}}]},
                {"when": "qqserve", "text": "Started."},
                {"text": "Noted.", "repeat": true}
            ]),
            "NO_COLOR=1 TERM=xterm-256color",
            "--permission-mode bypass",
        );
        term.send("qqserve");
        term.wait("the answer", 20, |s| s.contains("Started."));
        term.wait_idle();
        term
    }
    /// `line` (`/kill 1`, `/stop 1`) stops the task: it says so, the task's result (exit
    /// 143) arrives, and the prompt is idle again.
    pub(crate) fn stop_task(&self, line: &str) {
        self.send(line);
        self.wait("stopped", 20, |s| s.contains("Stopped async_"));
        self.wait("the task's result", 30, |s| s.contains("exit_code=143"));
        self.wait_idle();
    }
}

/// The token count the status line shows (`↓ N tokens`), if any.
pub(crate) fn shown_tokens(screen: &str) -> Option<u64> {
    let at = screen.rfind("↓ ")?;
    screen[at + "↓ ".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[test]
fn the_status_line_and_the_streamed_line_follow_a_long_answer() {
    if !have_tmux() {
        return;
    }
    let words = "streaming words arrive one by one ".repeat(6);
    let term = Term::start(
        json!([{"when": "tell me", "text": format!("{words}END"), "chunk": 2, "delay_ms": 40}]),
        COLOR,
        "",
    );
    term.send("tell me");
    // Markdown is on: the growing line shows above the status line, which says "writing"
    // and counts tokens.
    term.wait("the growing line and a counting status line", 20, |s| {
        s.contains("streaming words arrive")
            && s.contains("writing…")
            && shown_tokens(s).is_some_and(|n| n > 0)
    });
    let first = shown_tokens(&term.screen()).unwrap_or(0);
    term.wait("the count grows", 20, |s| {
        s.contains("END") || shown_tokens(s).is_some_and(|n| n > first)
    });
    term.wait_idle();
    let s = term.screen();
    assert!(s.contains(&format!("{}END", words)), "{s}");
    assert!(!s.contains("esc to interrupt"), "{s}");
    term.keys(&["C-d"]);
}

#[test]
fn an_edit_shows_its_diff_first_typeahead_is_queued_and_p_saves_the_rule() {
    if !have_tmux() {
        return;
    }
    let edit = |from: &str, to: &str| {
        json!({"name": "Edit", "id": format!("e_{to}"),
               "input": {"path": "notes.txt", "old_string": from, "new_string": to}})
    };
    let term = Term::start(
        json!([
            {"when": "change notes", "tool_calls": [edit("beta", "gamma")]},
            {"when": "hello there", "text": "Hi back."},
            {"text": "Edited."}
        ]),
        "NO_COLOR=1 TERM=xterm-256color",
        "",
    );
    let notes = term.env.cwd.join("notes.txt");
    std::fs::write(&notes, "alpha\nbeta\n").unwrap();
    term.send("change notes");
    term.wait("the question", 30, |s| s.contains("Allow Edit(notes.txt)?"));
    let s = term.screen();
    let (q, minus, plus) = (
        s.find("Allow Edit(notes.txt)?").unwrap(),
        s.find("-beta").expect("the diff's removed line"),
        s.find("+gamma").expect("the diff's added line"),
    );
    assert!(
        minus < q && plus < q,
        "the diff comes before the question:\n{s}"
    );
    // The folder has no trust decision: the project choice says that it trusts it.
    assert!(
        s.contains("3. Yes, and don't ask again in this project (saved in .bash-agent/settings.json; this also trusts the folder)"),
        "{s}"
    );
    // A message typed while the question waits is not an answer.
    term.send("hello there");
    term.wait("the typed line queued", 30, |s| {
        s.contains("(queued as your next message")
    });
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "alpha\nbeta\n");
    term.send("p");
    term.wait("the edit and the queued message answered", 30, |s| {
        s.contains("Edited.") && s.contains("Hi back.")
    });
    term.wait_idle();
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "alpha\ngamma\n");
    let saved = std::fs::read_to_string(term.env.cwd.join(".bash-agent/settings.json")).unwrap();
    let v: Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(
        v["permissions"]["allow"],
        json!(["Edit(./notes.txt)"]),
        "{saved}"
    );
    term.keys(&["C-d"]);
    // Saving in the project trusted the folder (issue 39: a project's allow rules widen
    // what a run may do, docs/sandbox.md#trust): a new run (headless, default mode: it
    // cannot ask) honours the saved rule with no trust question first.
    let user: Value = serde_json::from_str(
        &std::fs::read_to_string(term.env.home.join(".bash-agent/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        user["trusted_folders"][term.env.cwd.to_str().unwrap()],
        true,
        "{user}"
    );
    let mock = Mock::start(
        &json!([{"when": "again", "tool_calls": [edit("gamma", "delta")]}, {"text": "ok"}])
            .to_string(),
    );
    let out = term.env.agent(
        &mock.base("claude"),
        "claude",
        &["--permission-mode", "default", "again"],
    );
    expect_code(&out, 0);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "alpha\ndelta\n");
}

#[test]
fn shift_tab_cycles_the_permission_mode_shown_above_the_prompt() {
    if !have_tmux() {
        return;
    }
    let term = Term::start(
        json!([
            {"when": "write it", "tool_calls": [{"name": "Write", "id": "w1",
                "input": {"path": "new.txt", "content": "hello\n"}}]},
            {"text": "Written."}
        ]),
        COLOR,
        "",
    );
    term.keys(&["BTab"]);
    term.wait("the accept-edits line", 20, |s| {
        let l: Vec<&str> = s.lines().collect();
        l.len() > 1 && l[l.len() - 2].contains("accept-edits mode (shift+tab to cycle)")
    });
    // accept-edits: a Write inside the workspace runs without a question.
    term.send("write it");
    term.wait("the answer", 30, |s| s.contains("Written."));
    term.wait("the mode line back after the turn", 20, |s| {
        s.lines()
            .rev()
            .nth(1)
            .is_some_and(|l| l.contains("accept-edits mode"))
    });
    assert!(!term.screen().contains("Allow Write"), "{}", term.screen());
    assert_eq!(
        std::fs::read_to_string(term.env.cwd.join("new.txt")).unwrap(),
        "hello\n"
    );
    term.keys(&["BTab"]);
    term.wait("plan mode", 20, |s| {
        s.lines()
            .rev()
            .nth(1)
            .is_some_and(|l| l.contains("plan mode (shift+tab"))
    });
    term.keys(&["BTab"]);
    term.wait("back to default: no mode line", 20, |s| {
        !s.contains("plan mode (shift+tab") && s.lines().last() == Some(">")
    });
    term.send("/permissions");
    term.wait("/permissions names the mode", 20, |s| {
        s.contains("permission mode  default")
    });
    term.keys(&["C-d"]);
}

#[test]
fn banner_help_cost_and_an_interrupted_command_read_well() {
    if !have_tmux() {
        return;
    }
    let term = Term::start(
        json!([
            {"when": "qqhang", "tool_calls": [{"name": "Bash", "id": "b1",
                "input": {"command": "printf 'partial out'; sleep 30"}}]},
            {"when": "qqhello", "text": "Hello."}
        ]),
        COLOR,
        "--permission-mode bypass",
    );
    // The banner names the model and the folder.
    let s = term.screen();
    let folder = term.env.cwd.display().to_string();
    assert!(
        s.lines().nth(1).is_some_and(|l| l.starts_with("model ")
            && l.contains("(claude)")
            && l.contains(&folder)),
        "{s}"
    );
    // /help: one column for every row, the keys listed.
    term.send("/help");
    term.wait("the keys", 20, |s| s.contains("search the history"));
    let s = term.screen();
    let col = |prefix: &str| {
        let l = s
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("{prefix} in\n{s}"));
        l.len() - l[prefix.len()..].trim_start().len()
    };
    let at = col("  /export [md|html|json] [FILE]");
    for row in [
        "  /help",
        "  /status",
        "  !CMD",
        "  Esc, Ctrl+C",
        "  Shift+Tab",
    ] {
        assert_eq!(col(row), at, "{row} aligned in\n{s}");
    }
    assert!(s.contains("Alt+Enter, Ctrl+J"), "{s}");
    // /cost: rows fit the 100-column pane (a joined capture line longer would have wrapped).
    term.send("qqhello");
    term.wait("the answer", 20, |s| s.contains("Hello."));
    term.wait_idle();
    term.send("/cost");
    term.wait("the total row", 20, |s| {
        s.lines().any(|l| l.starts_with("  total"))
    });
    let s = term.screen();
    let rows: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.starts_with("cost of session"))
        .take_while(|l| !l.starts_with('>'))
        .collect();
    assert!(rows.len() >= 3, "{s}");
    assert!(rows.iter().all(|l| l.chars().count() <= 100), "{rows:#?}");
    // An interrupted command: `Error:` on its own line, not glued to the output.
    term.send("qqhang");
    term.wait("the command's output under the status line", 20, |s| {
        s.contains("running Bash(printf") && s.contains("  partial out")
    });
    term.keys(&["Escape"]);
    term.wait("the interruption", 20, |s| s.contains("Interrupted."));
    let s = term.screen();
    assert!(s.contains("Error:\npartial out"), "{s}");
    assert!(!s.contains("Error: partial out"), "{s}");
    term.keys(&["C-d"]);
}

#[test]
fn a_line_typed_right_after_new_starts_the_new_session_and_no_goodbye() {
    if !have_tmux() {
        return;
    }
    let term = Term::start(
        json!([
            {"when": "qqfirst", "text": "First."},
            {"when": "hello again", "text": "Fresh hello."}
        ]),
        "NO_COLOR=1 TERM=xterm-256color BASH_AGENT_BELL_SECS=0",
        "",
    );
    term.send("qqfirst");
    term.wait("the answer", 20, |s| s.contains("First."));
    term.wait_idle();
    // Both lines reach the terminal at once: the second is sent before the restart.
    term.keys(&["/new", "Enter", "hello again", "Enter"]);
    term.wait("the new session answering", 30, |s| {
        s.contains("Fresh hello.")
    });
    let s = term.screen();
    assert!(!s.contains("Goodbye!"), "{s}");
    assert!(s.contains("Starting a new session"), "{s}");
    let reqs = term.mock.requests();
    let last = reqs.last().unwrap()["body"].to_string();
    assert!(
        last.contains("hello again") && !last.contains("First."),
        "the line went to the new session: {last}"
    );
    term.keys(&["C-d"]);
}

#[test]
fn the_bell_rings_when_a_long_turn_ends() {
    if !have_tmux() {
        return;
    }
    let term = Term::start(
        json!([{"when": "qqring", "text": "Rang."}]),
        "NO_COLOR=1 TERM=xterm-256color BASH_AGENT_BELL_SECS=0",
        "",
    );
    // What the program writes to the terminal, byte for byte.
    let raw = term.env.dir.path().join("pane.raw");
    term.t.run(&[
        "pipe-pane",
        "-o",
        "-t",
        &term.run.name,
        &format!("cat >> '{}'", raw.display()),
    ]);
    let bells = || {
        std::fs::read(&raw)
            .unwrap_or_default()
            .iter()
            .filter(|&&b| b == 7)
            .count()
    };
    term.send("qqring");
    term.wait("the answer", 20, |s| s.contains("Rang."));
    wait_until("the bell", 20, || bells() >= 1);
    term.keys(&["C-d"]);
}

#[test]
fn model_and_resume_pickers_show_what_a_person_recognises() {
    if !have_tmux() {
        return;
    }
    let term = Term::start(
        json!([
            {"when": "qqolder", "text": "Older."},
            {"when": "qqcancel", "text": "Went on."},
            {"when": "qqafter", "text": "After the switch."}
        ]),
        "NO_COLOR=1 TERM=xterm-256color",
        "",
    );
    // An older session of this folder, made by a one-shot run.
    let mock = Mock::start(&json!([{"text": "ok"}]).to_string());
    let out = term.env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "older-one", "qqolder fix the parser please"],
    );
    expect_code(&out, 0);
    // /resume lists it with its first prompt.
    term.send("/resume");
    term.wait("the list", 20, |s| s.contains("Type a number to resume"));
    let s = term.screen();
    let row = s.lines().find(|l| l.contains("older-one")).unwrap_or("");
    assert!(row.contains("1. qqolder fix the parser please"), "{s}");
    // A line that is not a number cancels, and then goes on as typed.
    term.send("qqcancel");
    term.wait("cancelled", 20, |s| {
        s.contains("Resume cancelled.") && s.contains("Went on.")
    });
    term.wait_idle();
    // /model: the provider's models with their aliases; a number switches.
    term.send("/model");
    term.wait("the model list", 20, |s| {
        s.contains("Type a number or a model name")
    });
    let s = term.screen();
    assert!(
        s.contains("claude-sonnet-5-5  alias sonnet  (current)"),
        "{s}"
    );
    let haiku = s
        .lines()
        .find(|l| l.contains("claude-haiku-5-5  alias haiku"))
        .unwrap_or_else(|| panic!("{s}"));
    let n = haiku.trim().split('.').next().unwrap().to_string();
    term.send(&n);
    term.wait("the switch", 20, |s| {
        s.contains("Switching this session to claude-haiku-5-5")
    });
    term.wait_idle();
    term.wait_editor();
    term.send("qqafter");
    term.wait("the answer", 20, |s| s.contains("After the switch."));
    let reqs = term.mock.requests();
    assert_eq!(reqs.last().unwrap()["body"]["model"], "claude-haiku-5-5");
    term.keys(&["C-d"]);
}

#[test]
fn resume_without_a_name_opens_a_picker_at_launch() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let mock = Mock::start(&json!([{"text": "ok", "repeat": true}]).to_string());
    for (name, prompt) in [
        ("alpha", "qqfirst the alpha task"),
        ("beta", "qqsecond beta"),
    ] {
        let out = env.agent(&mock.base("claude"), "claude", &["--session", name, prompt]);
        expect_code(&out, 0);
        set_mtime(
            &env.session_dir(name).join("events.jsonl"),
            1_700_000_000 + name.len() as i64,
        );
    }
    let t = Tmux::for_env(&env);
    // `-r` alone (Run's line names a session, so this one is written here).
    let script = env.dir.path().join("picker.sh");
    std::fs::write(
        &script,
        format!(
            "cd '{}' && exec env -i PATH='{}' HOME='{home}' BASH_AGENT_HOME='{home}' NO_COLOR=1 \
             TERM=xterm-256color LANG=C.UTF-8 '{}' --base-url '{}' --api-key k -r\n",
            env.cwd.display(),
            std::env::var("PATH").unwrap_or_default(),
            BIN,
            mock.base("claude"),
            home = env.home.display(),
        ),
    )
    .unwrap();
    let cmd = format!("sh '{}'; sleep 120", script.display());
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "p",
        "-x",
        "100",
        "-y",
        "40",
        &cmd,
    ]);
    struct Name {
        name: String,
    }
    let run = Name { name: "p".into() };
    let diag = || t.diag(&run.name, &mock);
    wait_until_or(
        "the picker",
        30,
        || t.screen(&run.name).contains("Enter to resume"),
        diag,
    );
    let s = t.screen(&run.name);
    assert!(s.contains("qqfirst the alpha task"), "{s}");
    assert!(s.contains("qqsecond beta"), "{s}");
    // The marker starts on the newest; ↓ moves it to alpha's row.
    let rows: Vec<&str> = s.lines().filter(|l| l.contains(". qq")).collect();
    assert!(rows[0].starts_with('›'), "{s}");
    let alpha = rows.iter().position(|l| l.contains("alpha")).unwrap();
    let second = if alpha == 0 { "beta" } else { "alpha" };
    t.keys(&run.name, &["Down"]);
    wait_until_or(
        "the marker on the second row",
        20,
        || {
            t.screen(&run.name)
                .lines()
                .any(|l| l.starts_with('›') && l.contains(second))
        },
        diag,
    );
    if alpha == 0 {
        t.keys(&run.name, &["Up"]);
    }
    wait_until_or(
        "the marker on alpha",
        20,
        || {
            t.screen(&run.name)
                .lines()
                .any(|l| l.starts_with('›') && l.contains("alpha"))
        },
        diag,
    );
    t.keys(&run.name, &["Enter"]);
    // The chosen session's last turn is replayed above the prompt.
    wait_until_or(
        "the resumed session",
        30,
        || {
            let s = t.screen(&run.name);
            s.lines().last() == Some(">") && s.contains("> qqfirst the alpha task")
        },
        diag,
    );
    t.keys(&run.name, &["C-d"]);
    // Not a terminal: a clear usage error.
    let out = env.cmd().args(["-r"]).output().unwrap();
    expect_code(&out, 2);
    assert!(stderr(&out).contains("needs a terminal"), "{out:?}");
}

#[test]
fn bashes_lists_running_tasks_and_stop_ends_one() {
    if !have_tmux() {
        return;
    }
    let term = Term::with_task("echo serving; sleep 60");
    term.send("/ps");
    term.wait("the list", 20, |s| {
        s.contains("Running (stop one with /kill N):")
    });
    let s = term.screen();
    assert!(
        s.lines()
            .any(|l| l.contains("1. task") && l.contains("echo serving; sleep 60")),
        "{s}"
    );
    term.stop_task("/stop 1");
    // The list is empty again.
    term.send("/bashes");
    term.wait("nothing running", 20, |s| {
        s.contains("No background tasks or sub-agents are running.")
    });
    term.keys(&["C-d"]);
}
