//! Issue 34 item 1: `kill -9` of `bash-agent rewind --to 2` and of `rewind --undo` at every
//! step leaves the session before or after, nothing lost, finished at the next open.
//!
//! A real session (three one-shot runs of the scripted model: turn 1 writes a.txt, turn 2
//! edits it and creates b.txt, turn 3 writes a.txt again) is saved once; for every N the
//! session and files are put back, and the real binary runs with
//! `BASH_AGENT_TEST_CRASH_AT=N`, which makes it SIGKILL itself at its N-th step point
//! (src/util/crash.rs), the way `kill -9` would, until a run gets through. After each kill:
//! the next open (every other time `bash-agent rewind`'s list, else a one-shot agent run;
//! every third time that open is itself killed first) must find the session exactly before
//! (conversation byte for byte, a.txt `three`, b.txt `bee`, three turns) or after (the
//! conversation cut before turn 2, a.txt `one`, no b.txt, one turn; the dropped lines and
//! the newer files kept in `rewinds/1/`), with no journal, staging folder or temp file
//! left, the rewind event there exactly when the rewind is; and the operations must go on
//! from there: undo a rewind, redo it, undo again.
use crate::support::*;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

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
        {"text": "More.", "repeat": true}
    ])
    .to_string()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Before,
    After,
}

struct Fx {
    env: Env,
    mock: Mock,
    conv: String,
    cut: usize,
}

fn copy_tree(from: &Path, to: &Path) {
    let _ = fs::remove_dir_all(to);
    let st = std::process::Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success());
}

impl Fx {
    fn new() -> Fx {
        let env = Env::new();
        fs::write(env.cwd.join("a.txt"), "zero\n").unwrap();
        let mock = Mock::start(&script());
        for p in ["first prompt", "second prompt", "third prompt"] {
            let o = env.agent(&mock.base("claude"), "claude", &["--session", "r", p]);
            expect_code(&o, 0);
        }
        let conv = env.read("r", "conversation.jsonl");
        let cut = conv
            .find(r#"{"role":"user","content":"second prompt"}"#)
            .unwrap();
        Fx {
            env,
            mock,
            conv,
            cut,
        }
    }
    fn snap_dir(&self, name: &str) -> std::path::PathBuf {
        self.env.dir.path().join(format!("snap-{name}"))
    }
    /// Save the session folder and the files as they are now.
    fn save(&self, name: &str) {
        let d = self.snap_dir(name);
        fs::create_dir_all(&d).unwrap();
        copy_tree(&self.env.session_dir("r"), &d.join("r"));
        copy_tree(&self.env.cwd, &d.join("proj"));
    }
    /// Put back what [`Fx::save`] saved.
    fn restore(&self, name: &str) {
        let d = self.snap_dir(name);
        copy_tree(&d.join("r"), &self.env.session_dir("r"));
        copy_tree(&d.join("proj"), &self.env.cwd);
    }
    fn file(&self, name: &str) -> Option<String> {
        fs::read_to_string(self.env.cwd.join(name)).ok()
    }
    fn run(&self, args: &[&str]) -> std::process::Output {
        self.env.run(args)
    }
    /// `args` with the crash point `n` armed.
    fn crash(&self, args: &[&str], n: usize) -> std::process::Output {
        let mut c = self.env.cmd();
        c.args(args)
            .env("BASH_AGENT_TEST_CRASH_AT", n.to_string())
            .output()
            .unwrap()
    }
    /// Open the session: `bash-agent rewind`'s list, or a one-shot run of the agent (a
    /// slash command, so no turn is added).
    fn open(&self, how: usize, crash: Option<usize>) -> std::process::Output {
        let base = self.mock.base("claude");
        let agent = [
            "--provider",
            "claude",
            "--base-url",
            &base,
            "--api-key",
            "sk-test-PLANTED",
            "--session",
            "r",
            "/status",
        ];
        let list = ["rewind", "--session", "r", "--json"];
        let args: &[&str] = if how.is_multiple_of(2) { &list } else { &agent };
        match crash {
            Some(n) => self.crash(args, n),
            None => self.run(args),
        }
    }
    fn turns(&self) -> usize {
        let o = self.run(&["rewind", "--session", "r", "--json"]);
        expect_code(&o, 0);
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        v["turns"].as_array().unwrap().len()
    }
    /// The session's state; panics on anything between before and after.
    fn state(&self, ctx: &str) -> State {
        let conv = self.env.read("r", "conversation.jsonl");
        let (a, b) = (self.file("a.txt"), self.file("b.txt"));
        let st = if conv == self.conv {
            assert_eq!(a.as_deref(), Some("three\n"), "{ctx}: a.txt before");
            assert_eq!(b.as_deref(), Some("bee\n"), "{ctx}: b.txt before");
            assert_eq!(self.turns(), 3, "{ctx}: turns before");
            State::Before
        } else {
            assert_eq!(conv, self.conv[..self.cut], "{ctx}: conversation neither");
            assert_eq!(a.as_deref(), Some("one\n"), "{ctx}: a.txt after");
            assert_eq!(b, None, "{ctx}: b.txt after");
            assert_eq!(self.turns(), 1, "{ctx}: turns after");
            State::After
        };
        self.no_leftovers(ctx);
        st
    }
    /// No journal, staging folder or temp file; every rewind folder whole.
    fn no_leftovers(&self, ctx: &str) {
        let root = self.env.session_dir("r").join("rewinds");
        for e in fs::read_dir(&root).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(name.parse::<u64>().is_ok(), "{ctx}: {name} in rewinds/");
            for j in ["journal.json", "undo-journal.json"] {
                assert!(!e.path().join(j).exists(), "{ctx}: {name}/{j} left");
            }
            assert!(e.path().join("manifest.json").is_file(), "{ctx}: {name}");
            // An undo's copies stay only with the undo they belong to.
            if e.path().join("undo-files").exists() {
                assert!(e.path().join("undone").exists(), "{ctx}: {name}/undo-files");
            }
        }
        for e in fs::read_dir(&self.env.cwd).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(!name.contains(".tmp."), "{ctx}: temp file {name} left");
        }
    }
    /// Rewind events per action in events.jsonl.
    fn rewind_events(&self, action: &str) -> usize {
        self.env
            .read("r", "events.jsonl")
            .lines()
            .filter(|l| l.contains(&format!(r#""type":"rewind","action":"{action}""#)))
            .count()
    }
    fn ok(&self, args: &[&str], want: State, ctx: &str) {
        let o = self.run(args);
        assert_eq!(o.status.code(), Some(0), "{ctx}: {args:?}: {}", stderr(&o));
        assert_eq!(self.state(ctx), want, "{ctx}: after {args:?}");
    }
    /// After recovery: the operations work from whichever end the session is at.
    fn go_on(&self, st: State, ctx: &str) {
        let to = ["rewind", "--session", "r", "--to", "2"];
        let undo = ["rewind", "--session", "r", "--undo"];
        if st == State::Before {
            self.ok(&to, State::After, ctx);
        }
        self.ok(&undo, State::Before, ctx);
        self.ok(&to, State::After, ctx);
        self.ok(&undo, State::Before, ctx);
    }
    /// Kill `args` at every step point in turn (from the state saved as `snap`), recover,
    /// check, go on. Returns the states found after each kill.
    fn kill_everywhere(&self, snap: &str, args: &[&str]) -> (Vec<State>, usize) {
        let mut seen = Vec::new();
        let mut finished = 0;
        for n in 1.. {
            assert!(n < 60, "{args:?} never got through");
            self.restore(snap);
            let o = self.crash(args, n);
            if o.status.success() {
                break;
            }
            assert_eq!(
                o.status.signal(),
                Some(9),
                "{args:?} at {n}: {:?} {}",
                o.status,
                stderr(&o)
            );
            let ctx = format!("{args:?} killed at step {n}");
            if n.is_multiple_of(3) {
                // The open that recovers is killed too (at its second step point).
                let _ = self.open(n, Some(2));
            }
            let o = self.open(n, None);
            assert_eq!(o.status.code(), Some(0), "{ctx}: open: {}", stderr(&o));
            if stderr(&o).contains("was interrupted (the process was killed); it was completed") {
                finished += 1;
                let events = self.env.read("r", "events.jsonl");
                assert!(
                    events.contains(r#""type":"error""#) && events.contains("it was completed"),
                    "{ctx}: the recovery is logged: {events}"
                );
            }
            let st = self.state(&ctx);
            if st == State::After {
                let archived = self.env.read("r", "rewinds/1/conversation.jsonl");
                assert_eq!(archived, self.conv[self.cut..], "{ctx}: archive");
                let kept = self.env.session_dir("r").join("rewinds/1/files");
                let kept: Vec<String> = fs::read_dir(kept)
                    .unwrap()
                    .flatten()
                    .map(|e| fs::read_to_string(e.path()).unwrap())
                    .collect();
                assert!(
                    kept.contains(&"three\n".to_string()) && kept.contains(&"bee\n".to_string()),
                    "{ctx}: {kept:?}"
                );
            }
            // The rewind's event is there exactly when its result is.
            let net = self.rewind_events("rewind") - self.rewind_events("undo");
            assert_eq!(net, usize::from(st == State::After), "{ctx}: events");
            seen.push(st);
            self.go_on(st, &ctx);
        }
        (seen, finished)
    }
}

#[test]
fn rewind_and_its_undo_killed_at_every_step_end_before_or_after() {
    let fx = Fx::new();
    fx.save("before");
    let (seen, finished) = fx.kill_everywhere("before", &["rewind", "--session", "r", "--to", "2"]);
    // Most kills after the journal was in place were finished by the next open, which said so.
    assert!(finished >= 3, "{finished}");
    // Killed both before the journal (nothing done) and after it (finished).
    assert!(seen.len() >= 8, "{seen:?}");
    assert!(
        seen.contains(&State::Before) && seen.contains(&State::After),
        "{seen:?}"
    );

    fx.restore("before");
    fx.ok(
        &["rewind", "--session", "r", "--to", "2"],
        State::After,
        "setup",
    );
    fx.save("after");
    let (seen, finished) = fx.kill_everywhere("after", &["rewind", "--session", "r", "--undo"]);
    assert!(finished >= 3, "{finished}");
    assert!(seen.len() >= 6, "{seen:?}");
    assert!(
        seen.contains(&State::Before) && seen.contains(&State::After),
        "{seen:?}"
    );
}

/// The issue's own reproduction, with real timing: `kill -9` of `rewind --to 2` a moment
/// after `rewinds/1/manifest.json` appears (20 times, a little later each time). Before the
/// journal, this left a.txt at its old version with the conversation still holding turns
/// 2-3, an undo that refused and a re-run that called the agent's change an outside one.
#[test]
fn rewind_killed_after_its_manifest_appears_is_finished_at_the_next_open() {
    let fx = Fx::new();
    fx.save("before");
    let manifest = fx.env.session_dir("r").join("rewinds/1/manifest.json");
    let mut killed_mid = 0;
    for i in 0..20 {
        fx.restore("before");
        let mut c = fx.env.cmd();
        c.args(["rewind", "--session", "r", "--to", "2"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut child = c.spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let mut extra = 0;
        loop {
            if manifest.exists() {
                extra += 1;
                if extra > i * 20 {
                    break;
                }
            }
            if child.try_wait().unwrap().is_some() || std::time::Instant::now() > deadline {
                break;
            }
            std::thread::yield_now();
        }
        let _ = child.kill();
        let status = child.wait().unwrap();
        if status.signal() == Some(9) {
            killed_mid += 1;
        }
        let ctx = format!("kill {i} ({status:?})");
        let o = fx.open(i, None);
        assert_eq!(o.status.code(), Some(0), "{ctx}: {}", stderr(&o));
        let st = fx.state(&ctx);
        if st == State::After {
            fx.ok(&["rewind", "--session", "r", "--undo"], State::Before, &ctx);
        } else {
            fx.ok(
                &["rewind", "--session", "r", "--to", "2"],
                State::After,
                &ctx,
            );
        }
    }
    // Whether a kill lands mid-run depends on the machine's speed (an idle machine may finish
    // all 20 rewinds first): the count is reported, not asserted. Every step point is killed
    // deterministically by `rewind_and_its_undo_killed_at_every_step_end_before_or_after`.
    eprintln!("rewind_kill: {killed_mid} of 20 runs killed before they ended");
}
