//! The line editor in a real terminal (tmux): prompts, a turn interrupted with Ctrl+C,
//! lines queued while a turn runs, a multi-line bracketed paste kept as one input,
//! Ctrl+O injection, history, and the double Ctrl+C exit.
//!
//! The terminal runs this same test binary in "probe" mode (the ignored `probe_main`
//! test): a stand-in runtime that reads input.fifo / notify.fifo, logs every frame and
//! streams fake answers through `Interactive::printer`.
use crate::support::wait_until_or;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

fn log_line(dir: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("probe.log"))
        .expect("log");
    writeln!(f, "{line}").expect("log write");
}

fn read_frames(
    dir: PathBuf,
    path: PathBuf,
    tx: std::sync::mpsc::Sender<(String, Vec<String>)>,
    tag: &'static str,
) {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .expect("open fifo");
    std::thread::spawn(move || {
        let mut r = bash_agent::ipc::resp::Reader::new(std::io::BufReader::new(f));
        while let Ok(Some(fr)) = r.next_frame(|_| {}) {
            let fields: Vec<String> = (0..fr.len()).map(|i| fr.field(i)).collect();
            // Logged on arrival; the stand-in runtime runs them one at a time.
            log_line(
                &dir,
                &format!("got {tag} {}", fields.join("|").replace('\n', "\\n")),
            );
            if tx.send((tag.to_string(), fields)).is_err() {
                return;
            }
        }
    });
}

/// The stand-in runtime (runs inside tmux).
#[test]
#[ignore]
fn probe_main() {
    let Some(dir) = std::env::var_os("PROBE_DIR").map(PathBuf::from) else {
        return;
    };
    use bash_agent::ui::interactive::{start, InteractiveHooks};
    let session = bash_agent::session::Session::new(&dir, "s");
    std::fs::create_dir_all(&session.dir).expect("mkdir");
    for p in [session.input_fifo(), session.notify_fifo()] {
        nix::unistd::mkfifo(&p, nix::sys::stat::Mode::from_bits_truncate(0o600)).expect("mkfifo");
    }
    let (tx, rx) = std::sync::mpsc::channel();
    read_frames(dir.clone(), session.input_fifo(), tx.clone(), "input");
    read_frames(dir.clone(), session.notify_fifo(), tx, "notify");
    let running = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cancel = bash_agent::util::cancel::Cancel::new();
    // Like the runtime: a Ctrl+C that lands between two line reads (terminal not in raw
    // mode) arrives as SIGINT and cancels the turn.
    signal_hook::flag::register(signal_hook::consts::SIGINT, cancel.flag()).expect("sigint");
    let ed = start(
        &session,
        InteractiveHooks {
            running: running.clone(),
            cancel: cancel.clone(),
            ask: bash_agent::permission::AskSlot::new(),
            input_fifo: session.input_fifo(),
            notify_fifo: session.notify_fifo(),
            commands: bash_agent::agent::slash::table::COMMANDS,
            cwd: std::env::current_dir().unwrap_or_default(),
            typeahead: Vec::new(),
        },
    )
    .expect("start");
    let mut out = ed.printer();
    log_line(&dir, "READY");
    while let Ok((tag, f)) = rx.recv() {
        match (tag.as_str(), f[0].as_str()) {
            ("input", "SESSION_END") => break,
            ("input", "USER_INPUT") => {
                let q = f[2].clone();
                // Like the runtime: the line was taken (no restart here).
                ed.input_taken();
                running.store(true, Ordering::SeqCst);
                cancel.reset();
                let _ = write!(out, "answer to {}:", q.replace('\n', "/"));
                let words = if q.starts_with("slow") { 1000 } else { 8 };
                let mut cancelled = false;
                for i in 0..words {
                    if cancel.is_cancelled() {
                        cancelled = true;
                        break;
                    }
                    let _ = write!(out, " w{i}");
                    let _ = out.flush();
                    std::thread::sleep(Duration::from_millis(10));
                }
                let end = if cancelled { "Interrupted." } else { "DONE" };
                let _ = writeln!(out, "\n{end} {q}");
                log_line(&dir, &format!("{end} {q}"));
                running.store(false, Ordering::SeqCst);
                ed.turn_finished();
            }
            _ => {
                let _ = writeln!(out, "[user inject] {}", f[1]);
            }
        }
    }
    ed.join();
    println!("Goodbye!");
    log_line(&dir, "EXITED");
}

/// The probe's pane on the shared harness (`support::tmux`).
struct Pane {
    t: crate::support::tmux::Tmux,
    name: String,
}

impl Pane {
    fn run(&self, args: &[&str]) -> String {
        self.t.run(args)
    }
    fn keys(&self, keys: &[&str]) {
        self.t.keys(&self.name, keys)
    }
    /// Type `text` as a person does: one key per write, each sent after the previous
    /// one moved the cursor (so keys never arrive together; see `typeahead_burst`).
    fn type_text(&self, text: &str) {
        self.t.type_text(&self.name, text)
    }
    fn screen(&self) -> String {
        self.t.visible(&self.name)
    }
}

use crate::support::tmux::have_tmux;

/// Start the probe in a fresh tmux server; returns the tmux handle and the probe dir.
fn launch(tmp: &Path) -> (Pane, PathBuf, PathBuf) {
    let home = tmp.join("home");
    std::fs::create_dir_all(home.join(".bash-agent")).expect("mkdir");
    std::fs::write(home.join(".bash-agent/history"), "old entry\n").expect("history");
    let dir = tmp.join("proj");
    let exe = std::env::current_exe().expect("exe");
    let cmd = format!(
        "env -i PATH=/usr/bin:/bin TERM=xterm-256color NO_COLOR=1 BASH_AGENT_HOME={} PROBE_DIR={} {} interactive_pty::probe_main --exact --ignored --nocapture --test-threads=1; sleep 30",
        home.display(),
        dir.display(),
        exe.display()
    );
    let t = Pane {
        t: crate::support::tmux::Tmux::new(),
        name: "probe".into(),
    };
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "probe",
        "-x",
        "100",
        "-y",
        "40",
        &cmd,
    ]);
    (t, dir, home)
}

#[test]
fn editor_in_a_terminal() {
    if !have_tmux() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let (t, dir, home) = launch(tmp.path());
    let log = || std::fs::read_to_string(dir.join("probe.log")).unwrap_or_default();
    let diag = || format!("screen:\n{}\nlog:\n{}", t.screen(), log());
    // (capture-pane drops trailing spaces: the bare prompt reads ">")
    wait_until_or(
        "the prompt",
        20,
        || log().contains("READY") && t.screen().lines().any(|l| l.trim_end() == ">"),
        diag,
    );

    // 1. A prompt, answered.
    t.type_text("first question");
    t.keys(&["Enter"]);
    wait_until_or(
        "the first answer",
        10,
        || log().contains("DONE first question"),
        diag,
    );
    // 2. A slow turn, a line queued while it runs, then Ctrl+C.
    t.type_text("slow task");
    t.keys(&["Enter"]);
    wait_until_or(
        "the slow turn",
        10,
        || t.screen().contains("answer to slow task: w0 w1"),
        diag,
    );
    t.type_text("queued line");
    t.keys(&["Enter"]);
    wait_until_or(
        "the queued input",
        10,
        || log().contains("got input USER_INPUT|0|queued line"),
        diag,
    );
    t.keys(&["C-c"]);
    wait_until_or(
        "the interrupt",
        10,
        || log().contains("Interrupted. slow task"),
        diag,
    );
    wait_until_or(
        "the queued turn",
        10,
        || log().contains("DONE queued line"),
        diag,
    );
    // 3. A multi-line bracketed paste is one input.
    t.run(&["set-buffer", "-b", "p", "line one\nline two"]);
    t.run(&["paste-buffer", "-p", "-b", "p", "-t", "probe"]);
    wait_until_or(
        "the paste shown",
        10,
        || t.screen().contains("> line one\nline two"),
        diag,
    );
    t.keys(&["Enter"]);
    wait_until_or(
        "the pasted input",
        10,
        || log().contains("DONE line one\nline two"),
        diag,
    );
    // 4. Ctrl+O injects the current line and clears it.
    t.type_text("please inject");
    t.keys(&["C-o"]);
    wait_until_or(
        "the injection",
        10,
        || log().contains("got notify USER_NOTIFY|please inject"),
        diag,
    );
    wait_until_or(
        "the injection shown",
        10,
        || t.screen().contains("[user inject] please inject"),
        diag,
    );
    // 5. History: Up recalls the last input (the paste), Ctrl+R finds older ones.
    t.keys(&["C-r"]);
    t.type_text("first q");
    wait_until_or(
        "reverse search",
        10,
        || t.screen().contains("first question"),
        diag,
    );
    t.keys(&["Enter"]);
    wait_until_or(
        "the recalled input",
        10,
        || log().matches("DONE first question").count() == 2,
        diag,
    );
    // 6. Ctrl+C at the idle prompt twice exits.
    t.keys(&["C-c"]);
    wait_until_or(
        "the exit hint",
        10,
        || t.screen().contains("Press Ctrl+C again to exit"),
        diag,
    );
    t.keys(&["C-c"]);
    wait_until_or("the exit", 10, || log().contains("EXITED"), diag);

    let l = log();
    let inputs: Vec<&str> = l.lines().filter(|x| x.starts_with("got input ")).collect();
    assert_eq!(
        inputs,
        vec![
            "got input USER_INPUT|0|first question",
            "got input USER_INPUT|0|slow task",
            "got input USER_INPUT|0|queued line",
            "got input USER_INPUT|0|line one\\nline two",
            "got input USER_INPUT|0|first question",
            "got input SESSION_END|0",
        ]
    );
    let hist = std::fs::read_to_string(home.join(".bash-agent/history")).expect("history");
    assert_eq!(
        hist,
        "old entry\nfirst question\nslow task\nqueued line\nline one line two\nfirst question\n"
    );
    // The screen: answers are whole lines, never glued to a prompt line. (The probe logs
    // EXITED after printing Goodbye!, but tmux may not have drawn it yet.)
    wait_until_or(
        "Goodbye! drawn",
        10,
        || t.screen().contains("Goodbye!"),
        diag,
    );
    let screen = t.screen();
    for line in screen.lines() {
        if line.starts_with("> ") {
            assert!(
                !line.contains("answer to"),
                "garbled prompt line: {line:?}\n{screen}"
            );
        }
    }
    assert!(
        screen.contains("answer to first question: w0 w1 w2 w3 w4 w5 w6 w7"),
        "{screen}"
    );
}

/// Keys that arrive in one read (fast typeahead, an IME commit, input typed while output
/// streams) must all be handled. rustyline 14 stalls on them once an external printer
/// exists; the vendored patch (vendor/README.md) fixes it. Runs once the patch is active.
#[test]
fn typeahead_burst() {
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock"))
        .unwrap_or_default();
    let patched = lock
        .split("[[package]]")
        .any(|p| p.contains("name = \"rustyline\"") && !p.contains("source = "))
        && lock.contains("name = \"buffer-redux\"");
    if !patched {
        crate::support::skip::skip("rustyline patch not active (see vendor/README.md)");
        return;
    }
    if !have_tmux() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let (t, dir, _home) = launch(tmp.path());
    let log = || std::fs::read_to_string(dir.join("probe.log")).unwrap_or_default();
    let diag = || format!("screen:\n{}\nlog:\n{}", t.screen(), log());
    wait_until_or(
        "the prompt",
        20,
        || log().contains("READY") && t.screen().lines().any(|l| l.trim_end() == ">"),
        diag,
    );
    // One write: two lines and the start of a third.
    t.keys(&["one", "Enter", "two", "Enter", "thr"]);
    wait_until_or(
        "both lines",
        10,
        || log().contains("got input USER_INPUT|0|two"),
        diag,
    );
    wait_until_or("the rest typed", 10, || t.screen().contains("> thr"), diag);
    t.keys(&["C-d"]);
    t.keys(&["C-u", "C-d"]);
    wait_until_or("the exit", 10, || log().contains("EXITED"), diag);
}
