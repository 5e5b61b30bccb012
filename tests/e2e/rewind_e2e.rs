//! `bash-agent rewind` (docs/rewind.md) on real session folders: three one-shot runs of the
//! scripted model write and edit files, then rewind to turn 2 (conversation cut, files
//! restored, lines archived, a `rewind` event that replay shows and the awk skips or
//! renders), `rewind --undo` (byte-identical conversation and files again), outside changes
//! refused without --force, bad turn numbers, a compacted turn and a running session.
use crate::support::*;
use std::fs;

/// Turn 1 writes a.txt, turn 2 edits it and creates b.txt, turn 3 writes a.txt again.
fn script() -> String {
    serde_json::json!([
        {"tool_calls": [{"name": "Write", "id": "w1", "input": {"path": "a.txt", "content": "one\n"}}]},
        {"text": "Wrote one."},
        {"tool_calls": [
            {"name": "Edit", "id": "e2", "input": {"path": "a.txt", "old_string": "one", "new_string": "two"}},
            {"name": "Write", "id": "w2", "input": {"path": "b.txt", "content": "bee\n"}}
        ]},
        {"text": "Edited to two."},
        {"tool_calls": [{"name": "Write", "id": "w3", "input": {"path": "a.txt", "content": "three\n"}}]},
        {"text": "Wrote three."},
        {"when": "The messages above are being removed", "text": "Task focus: t\nLatest request: r\nProgress: p\nTool evidence: e\nReflections: none", "repeat": true},
        {"text": "More.", "repeat": true}
    ])
    .to_string()
}

struct Fx {
    env: Env,
    mock: Mock,
}

impl Fx {
    /// A session `r` with the three turns, each run as its own process.
    fn new() -> Fx {
        let env = Env::new();
        fs::write(env.cwd.join("a.txt"), "zero\n").unwrap();
        let mock = Mock::start(&script());
        let fx = Fx { env, mock };
        for p in ["first prompt", "second prompt", "third prompt"] {
            fx.turn(p);
        }
        assert_eq!(fx.file("a.txt"), "three\n");
        assert_eq!(fx.file("b.txt"), "bee\n");
        fx
    }
    fn turn(&self, prompt: &str) {
        let o = self.env.agent(
            &self.mock.base("claude"),
            "claude",
            &["--session", "r", prompt],
        );
        expect_code(&o, 0);
    }
    fn file(&self, name: &str) -> String {
        fs::read_to_string(self.env.cwd.join(name)).unwrap_or_else(|_| "<absent>".into())
    }
    fn conv(&self) -> String {
        self.env.read("r", "conversation.jsonl")
    }
    fn events(&self) -> String {
        self.env.read("r", "events.jsonl")
    }
    fn run(&self, args: &[&str]) -> std::process::Output {
        self.env.run(args)
    }
}

/// The conversation lines from the user line of `prompt` on.
fn from_prompt(conv: &str, prompt: &str) -> usize {
    let marker = format!("{{\"role\":\"user\",\"content\":\"{prompt}\"}}");
    conv.find(&marker)
        .unwrap_or_else(|| panic!("{prompt} in {conv}"))
}

#[test]
fn rewind_to_turn_two_then_undo_it() {
    let fx = Fx::new();
    let conv0 = fx.conv();
    let events0 = fx.events();

    // The list and `sessions show` number the turns alike.
    let o = fx.run(&["rewind", "--session", "r"]);
    expect_code(&o, 0);
    let list = stdout(&o);
    assert!(
        list.contains("  1. first prompt") && list.contains("  3. third prompt"),
        "{list}"
    );
    let o = fx.run(&["sessions", "show", "r"]);
    assert!(stdout(&o).contains("[2] > second prompt"), "{}", stdout(&o));

    let o = fx.run(&["rewind", "--session", "r", "--to", "2"]);
    expect_code(&o, 0);
    let out = stdout(&o);
    assert!(out.contains("Rewound to just before turn 2"), "{out}");
    assert!(out.contains("a.txt") && out.contains("b.txt"), "{out}");
    // Files as before turn 2; the file turn 2 created is gone.
    assert_eq!(fx.file("a.txt"), "one\n");
    assert_eq!(fx.file("b.txt"), "<absent>");
    // The conversation is its own prefix up to turn 2, byte for byte.
    let cut = from_prompt(&conv0, "second prompt");
    assert_eq!(fx.conv(), conv0[..cut]);
    // The dropped lines are archived verbatim.
    let archived = fx.env.read("r", "rewinds/1/conversation.jsonl");
    assert_eq!(archived, conv0[cut..]);
    // events.jsonl keeps every line and adds one rewind event.
    let ev = fx.events();
    assert!(ev.starts_with(&events0));
    let added: Vec<&str> = ev[events0.len()..].lines().collect();
    assert_eq!(added.len(), 1, "{ev}");
    assert!(
        added[0].starts_with(r#"{"type":"rewind","action":"rewind","id":1,"to":2,"turns":2,"#),
        "{}",
        added[0]
    );
    // Numbering now ends at turn 1.
    let o = fx.run(&["rewind", "--session", "r", "--json"]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["turns"].as_array().unwrap().len(), 1, "{v}");

    // Replay shows it; the shell replay stage skips it by default and renders it rich.
    let o = fx.run(&["--session", "r", "--replay"]);
    expect_code(&o, 0);
    assert!(
        stdout(&o)
            .contains("Rewound to just before turn 2 (2 turn(s) archived, 2 file(s) restored)."),
        "{}",
        stdout(&o)
    );
    let awk = fx.env.dir.path().join("replay.awk");
    fs::write(&awk, bash_agent::ui::replay::REPLAY_AWK).unwrap();
    for rich in ["0", "1"] {
        let o = std::process::Command::new("awk")
            .env("LC_ALL", "C")
            .args(["-v", &format!("er_rich={rich}"), "-f"])
            .arg(&awk)
            .arg(fx.env.session_dir("r").join("events.jsonl"))
            .output()
            .unwrap();
        expect_code(&o, 0);
        let frames = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(frames.contains("REWIND"), rich == "1", "{frames}");
        assert!(frames.contains("third prompt"));
    }

    // The next turn is turn 2 again, and the model sees only turn 1.
    fx.turn("new second");
    let last = fx.mock.requests().last().cloned().unwrap();
    let body = last["body"].to_string();
    assert!(
        body.contains("first prompt") && !body.contains("third prompt"),
        "{body}"
    );
    let o = fx.run(&["sessions", "show", "r"]);
    assert!(stdout(&o).contains("[2] > new second"), "{}", stdout(&o));

    // Undo is refused now: the conversation moved on.
    let o = fx.run(&["rewind", "--session", "r", "--undo"]);
    expect_code(&o, 1);
    assert!(
        stderr(&o).contains("the conversation changed since"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn undo_puts_conversation_and_files_back() {
    let fx = Fx::new();
    let conv0 = fx.conv();
    let o = fx.run(&["rewind", "--to", "1"]); // the latest session, like `undo`
    expect_code(&o, 0);
    assert_eq!(fx.conv(), "");
    assert_eq!(fx.file("a.txt"), "zero\n");
    let o = fx.run(&["rewind", "--undo", "--json"]);
    expect_code(&o, 0);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["action"], "undo");
    assert_eq!(v["turns"], 3);
    assert_eq!(fx.conv(), conv0);
    assert_eq!(fx.file("a.txt"), "three\n");
    assert_eq!(fx.file("b.txt"), "bee\n");
    assert!(fx
        .events()
        .contains(r#"{"type":"rewind","action":"undo","id":1,"#));
    let o = fx.run(&["rewind", "--undo"]);
    expect_code(&o, 1);
    assert!(stderr(&o).contains("nothing to undo"), "{}", stderr(&o));
    // `undo` still knows the file history: it undoes turn 3's write (each run numbered its
    // file-history turn after the last one, so run 3's copy of a.txt was kept).
    let o = fx.run(&["undo"]);
    expect_code(&o, 0);
    assert_eq!(fx.file("a.txt"), "two\n");
}

#[test]
fn outside_change_stops_without_force() {
    let fx = Fx::new();
    let conv0 = fx.conv();
    fs::write(fx.env.cwd.join("a.txt"), "user's work\n").unwrap();
    let o = fx.run(&["rewind", "--session", "r", "--to", "3"]);
    expect_code(&o, 1);
    let err = stderr(&o);
    assert!(err.starts_with("Error: refusing to rewind"), "{err}");
    assert!(
        err.contains("a.txt (modified)") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(fx.file("a.txt"), "user's work\n");
    assert_eq!(fx.conv(), conv0, "the session is intact");
    assert!(!fx.env.session_dir("r").join("rewinds").join("1").exists());

    let o = fx.run(&["rewind", "--session", "r", "--to", "3", "--force"]);
    expect_code(&o, 0);
    assert!(
        stdout(&o).contains("overwrote an outside change"),
        "{}",
        stdout(&o)
    );
    assert_eq!(fx.file("a.txt"), "two\n");
    // Undo puts back what was there before the rewind: the user's version.
    let o = fx.run(&["rewind", "--session", "r", "--undo"]);
    expect_code(&o, 0);
    assert_eq!(fx.file("a.txt"), "user's work\n");
    assert_eq!(fx.conv(), conv0);
}

#[test]
fn bad_turns_are_usage_errors_and_change_nothing() {
    let fx = Fx::new();
    let conv0 = fx.conv();
    let events0 = fx.events();
    for (to, msg) in [
        ("0", "there is no turn 0"),
        ("-1", "nothing before the first turn"),
        ("abc", "needs a turn number"),
        ("4", "has no turn 4"),
        ("", "needs a turn number"),
    ] {
        let o = fx.run(&["rewind", "--session", "r", "--to", to]);
        expect_code(&o, 2);
        let err = stderr(&o);
        assert!(
            err.starts_with("Error: ") && err.contains(msg),
            "{to}: {err}"
        );
    }
    let o = fx.run(&["rewind", "--session", "r", "--to", "2", "--undo"]);
    expect_code(&o, 2);
    assert!(stderr(&o).starts_with("Error: rewind takes --to N or --undo"));
    let o = fx.run(&["rewind", "--session", "nosuch", "--to", "1"]);
    expect_code(&o, 1);
    let o = fx.run(&["rewind", "--session", "../r", "--to", "1"]);
    expect_code(&o, 2);
    assert_eq!(fx.conv(), conv0);
    assert_eq!(fx.events(), events0);
    assert_eq!(fx.file("a.txt"), "three\n");

    // A running agent holds the lock: refused, nothing changed.
    let s = fx.env.session("r");
    let lock = bash_agent::session::lock::SessionLock::acquire(&s.dir, "r").unwrap();
    let o = fx.run(&["rewind", "--session", "r", "--to", "2"]);
    expect_code(&o, 1);
    assert!(stderr(&o).contains("in use"), "{}", stderr(&o));
    drop(lock);
    assert_eq!(fx.conv(), conv0);
}

#[test]
fn compacted_turn_is_refused() {
    let fx = Fx::new();
    fx.turn("fourth prompt");
    let url = fx.mock.base("claude");
    let o = fx.run(&[
        "compact",
        "--base-url",
        &url,
        "--api-key",
        "k",
        "--session",
        "r",
    ]);
    expect_code(&o, 0);
    assert!(
        !fx.env.read("r", "conversation-archive.jsonl").is_empty(),
        "{}",
        stdout(&o)
    );
    let conv0 = fx.conv();
    let o = fx.run(&["rewind", "--session", "r"]);
    assert!(
        stdout(&o).contains("first prompt  (compacted)"),
        "{}",
        stdout(&o)
    );
    let o = fx.run(&["rewind", "--session", "r", "--to", "1"]);
    expect_code(&o, 2);
    let err = stderr(&o);
    assert!(
        err.contains("compacted") && err.contains("earliest turn you can rewind to is"),
        "{err}"
    );
    assert_eq!(fx.conv(), conv0);
    // The last turn is still in the conversation and can be rewound.
    let o = fx.run(&["rewind", "--session", "r", "--to", "4"]);
    expect_code(&o, 0);
}

/// Shell-written sessions (no file history): the conversation is cut at the turn's line,
/// byte for byte, and the undo gives the shell's bytes back; a compacted turn is refused.
#[test]
fn shell_written_sessions() {
    let env = Env::new();
    install_fixtures(&env);
    let conv = env.session_dir("demo1").join("conversation.jsonl");
    let original = fs::read(&conv).unwrap();
    let o = env.run(&["rewind", "--session", "demo1", "--to", "3"]);
    expect_code(&o, 0);
    let text = String::from_utf8_lossy(&original).into_owned();
    let cut = text
        .find(r#"{"role":"user","content":"Injected via fifo"#)
        .unwrap();
    assert_eq!(fs::read(&conv).unwrap(), original[..cut]);
    assert!(stdout(&o).contains("0 file(s) restored"), "{}", stdout(&o));
    let o = env.run(&["rewind", "--session", "demo1", "--undo"]);
    expect_code(&o, 0);
    assert_eq!(fs::read(&conv).unwrap(), original);

    let plans = env.session_dir("plans").join("conversation.jsonl");
    let before = fs::read(&plans).unwrap();
    let o = env.run(&["rewind", "--session", "plans", "--to", "1"]);
    expect_code(&o, 2);
    assert!(stderr(&o).contains("compacted"), "{}", stderr(&o));
    assert_eq!(fs::read(&plans).unwrap(), before);
}

/// A real agent serving the session (`--listen`) holds its lock: rewind refuses, nothing
/// changes; once it has ended, the rewind goes through.
#[test]
fn running_agent_is_refused() {
    let fx = Fx::new();
    let conv0 = fx.conv();
    let url = fx.mock.base("claude");
    let mut agent = fx
        .env
        .cmd()
        .args([
            "--listen",
            "--session",
            "r",
            "--base-url",
            &url,
            "--api-key",
            "k",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let dir = fx.env.session_dir("r");
    wait_until("the agent's lock", 30, || {
        bash_agent::session::lock::holder(&dir).is_some()
    });
    let o = fx.run(&["rewind", "--session", "r", "--to", "2"]);
    expect_code(&o, 1);
    let err = stderr(&o);
    assert!(
        err.contains("in use by pid") && err.contains("/rewind"),
        "{err}"
    );
    assert_eq!(fx.conv(), conv0);
    assert_eq!(fx.file("a.txt"), "three\n");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(agent.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    agent.wait().unwrap();
    let o = fx.run(&["rewind", "--session", "r", "--to", "2"]);
    expect_code(&o, 0);
    assert_eq!(fx.file("a.txt"), "one\n");
}
