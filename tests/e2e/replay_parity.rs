//! Replay parity: for every fixture session and for sessions written with this binary's
//! event writers, `awk -f awk/event_replay.awk` (system awk, mawk, gawk, busybox awk when
//! installed) on the reference's selection == the fixture's expected replay ==
//! `bash-agent --replay-frames`; and `--replay` == the awk output piped through `--render`.

use crate::support::{fixtures_root, Env};
use bash_agent::session::events::ev;
use bash_agent::session::stats::Usage;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const AWK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/awk/event_replay.awk");

const AWK_CANDIDATES: [&[&str]; 4] = [&["awk"], &["mawk"], &["gawk"], &["busybox", "awk"]];

/// The awk implementations present on this machine (program + leading args), probed once.
fn awks() -> Vec<Vec<&'static str>> {
    static FOUND: std::sync::OnceLock<Vec<Vec<&'static str>>> = std::sync::OnceLock::new();
    FOUND
        .get_or_init(|| {
            AWK_CANDIDATES
                .iter()
                .filter(|c| {
                    Command::new(c[0])
                        .args(&c[1..])
                        .arg("BEGIN{}")
                        .stdin(Stdio::null())
                        .output()
                        .map(|o| o.status.success())
                        .unwrap_or(false)
                })
                .map(|c| c.to_vec())
                .collect()
        })
        .clone()
}

/// Report each awk this machine lacks as a skipped part of the running test.
fn report_missing_awks() {
    let found = awks();
    for c in AWK_CANDIDATES {
        if !found.iter().any(|f| f.as_slice() == c) {
            crate::support::skip::skip(&format!(
                "{} not installed: replay parity with it is not checked",
                c.join(" ")
            ));
        }
    }
}

fn run_with_stdin(mut c: Command, input: &[u8]) -> Output {
    c.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    let w = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    w.join().expect("writer");
    out
}

/// The reference selection (§5.1), with the reference's own tools.
fn select(events: &Path, turns: usize) -> Vec<u8> {
    let script = r#"f=$1; n=$2; [ -s "$f" ] || exit 0
L=$(grep -n '"type":"user_input"' "$f" | tail -n "$n" | head -n 1 | cut -d: -f1)
tail -n +"${L:-1}" "$f""#;
    let o = Command::new("sh")
        .args(["-c", script, "sh"])
        .arg(events)
        .arg(turns.to_string())
        .output()
        .expect("sh");
    assert!(o.status.success());
    o.stdout
}

fn awk_replay(awk: &[&str], selected: &[u8], rich: bool) -> Vec<u8> {
    let mut c = Command::new(awk[0]);
    c.args(&awk[1..]).env("LC_ALL", "C");
    if rich {
        c.args(["-v", "er_rich=1"]);
    }
    c.args(["-f", AWK]);
    let o = run_with_stdin(c, selected);
    assert!(
        o.status.success(),
        "{awk:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

fn bin(env: &Env, args: &[&str]) -> Output {
    env.cmd().args(args).output().expect("run bash-agent")
}

fn render(env: &Env, frames: &[u8]) -> Output {
    let mut c = env.cmd();
    c.arg("--render");
    run_with_stdin(c, frames)
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b)
        .replace('\r', "\\r")
        .replace('\x1b', "\\e")
}

/// Every check for one session already installed under `env`.
fn check_session(env: &Env, id: &str, turns: usize, expected: Option<&[u8]>) {
    let events = env.session_dir(id).join("events.jsonl");
    let selected = select(&events, turns);
    let n = turns.to_string();
    let frames = bin(env, &["--session", id, "--replay-frames", &n]);
    assert!(
        frames.status.success(),
        "{id}: {}",
        String::from_utf8_lossy(&frames.stderr)
    );
    if let Some(want) = expected {
        assert!(
            frames.stdout == want,
            "{id}: --replay-frames differs from the fixture"
        );
    }
    let human = bin(env, &["--session", id, "--replay", &n]);
    assert!(human.status.success());
    for awk in awks() {
        let plain = awk_replay(&awk, &selected, false);
        assert!(
            plain == frames.stdout,
            "{id} (turns {turns}): {awk:?} differs from --replay-frames\nawk: {}\nbin: {}",
            show(&plain),
            show(&frames.stdout)
        );
        let rich = awk_replay(&awk, &selected, true);
        let rendered = render(env, &rich);
        assert!(rendered.status.success());
        assert_eq!(
            show(&rendered.stdout),
            show(&human.stdout),
            "{id}: --replay vs {awk:?} | --render"
        );
        assert_eq!(show(&rendered.stderr), show(&human.stderr), "{id}: stderr");
    }
}

#[test]
fn fixtures_match_awk_expected_and_binary() {
    report_missing_awks();
    assert!(!awks().is_empty(), "no awk installed");
    let env = Env::new();
    let mut checked = 0;
    for proj in std::fs::read_dir(fixtures_root())
        .expect("fixtures")
        .flatten()
    {
        for e in std::fs::read_dir(proj.path()).expect("project").flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".expected-replay.resp") else {
                continue;
            };
            let dst = env.session_dir(id);
            std::fs::create_dir_all(&dst).expect("mkdir");
            std::fs::copy(
                proj.path().join(id).join("events.jsonl"),
                dst.join("events.jsonl"),
            )
            .expect("copy");
            let want = std::fs::read(e.path()).expect("expected");
            check_session(&env, id, 10, Some(&want));
            for turns in [1, 3] {
                check_session(&env, id, turns, None);
            }
            checked += 1;
        }
    }
    assert!(checked >= 7, "only {checked} fixtures");
    // The plans fixture has 11 turns: the replay starts at the 2nd, and its human
    // replay shows the two compactions the reference hides.
    let out = bin(&env, &["--session", "plans", "--replay"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("> CONFIRM_IT yes go\n"), "{text}");
    assert_eq!(text.matches("Context compacted (auto).").count(), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("Error: 500\tHTTP 500"));
}

/// Lines as this binary writes them, plus corrupt and legacy lines.
fn corpus() -> String {
    let u = Usage::default();
    let mut l: Vec<String> = vec![
        ev::session_start("mine"),
        ev::user_input("first \"quoted\" \\ back\tslash ✓ 世界 \u{1b}[31mred"),
        ev::thinking("think\nmore"),
        ev::text(""),
        ev::text("text with \u{7} bell and \u{1} soh"),
        ev::tool_call(
            "Bash",
            "t1",
            r#"{"command":"ls -l\n| wc","timeout":30,"background":false}"#,
        ),
        ev::tool_result("t1", "Bash", &"é".repeat(150)),
        ev::tool_call(
            "TodoWrite",
            "t2",
            r#"{"todos":[{"content":"a","status":"pending"}],"summary":"1 todo"}"#,
        ),
        ev::tool_result("t2", "TodoWrite", "- [ ] a"),
        ev::tool_call(
            "Read",
            "t3",
            r#"{ "path" : "src/a.rs" , "offset" : 1.5e1 }"#,
        ),
        ev::tool_result(
            "t3",
            "Read",
            "Read(src/a.rs) [2 lines]\n1\tfn main() {}\n2\t",
        ),
        ev::usage(&u, "agent"),
        ev::stop("tool_use"),
        ev::user_notify("also check tests"),
        ev::async_task_result("task_1", 0, "ok\n"),
        ev::async_task_result("task_2", 7, &"x".repeat(300)),
        ev::context_update("auto"),
        ev::rewind("rewind", 1, 2, 3, 9, &["/p/a.txt".to_string()]),
        ev::rewind("undo", 1, 2, 3, 9, &[]),
        ev::error("Max turns (3) reached"),
        ev::user_input("second turn"),
        ev::text("answer"),
        ev::stop("end_turn"),
        ev::stop("end_turn"),
    ];
    let raw = [
        r#"{"type":"user_input","content":"caf\u00e9 \ud83d\ude00 lone \ud800x nul\u0000end \/"}"#,
        r#"{"type":"text","content":"torn"#,
        r#"{"type":"text" "content":"bad"}"#,
        "not json",
        r#"  {"type":"text","content":"spaced"}  "#,
        r#"{"type":"tool_call","name":"X","id":"i1","input":{"a" : 1.5e3 , "b":[1,{"c":"d"}],"c":null,"a":"dup"}}"#,
        r#"{"type":"tool_call","name":"Y","id":"i2"}"#,
        r#"{"type":"tool_call","name":"Z","id":"i3","input":"str"}"#,
        r#"{"type":"sub_agent_result","session_id":"s","status":"failed","input_tokens":1e2,"output_tokens":"7","thinking":"th","text":"tx"}"#,
        r#"{"type":"assistant_message","text":"legacy","tool_calls":[{"name":"Read","id":"r1","input":{"path":"a"}},7,{"id":"r2","name":"Bash"}]}"#,
        r#"{"type":"user_message","content":""}"#,
        r#"{"type":"error"}"#,
        r#"{"type":"text","content":01}"#,
        r#"{"type":"text","content":"x\q"}"#,
        r#"{"type":"text","content":"a\\\\\\nb\u005c\u005cn"}"#,
        r#"{"type":"user_input","content":"\"type\":\"user_input\" inside"}"#,
        "{\"type\":\"text\",\"content\":\"crlf\"}\r",
    ];
    l.extend(raw.iter().map(|s| s.to_string()));
    let mut s = l.join("\n");
    s.push('\n');
    s.push_str(r#"{"type":"text","content":"no final newline"}"#);
    s
}

#[test]
fn binary_written_sessions_and_corrupt_lines() {
    report_missing_awks();
    let env = Env::new();
    let dir = env.session_dir("mine");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut bytes = corpus().into_bytes();
    // A line that is not valid UTF-8 (the reference cuts by bytes).
    bytes.extend_from_slice(b"\n{\"type\":\"text\",\"content\":\"bad \xe4\xb8 utf8\"}\n");
    std::fs::write(dir.join("events.jsonl"), &bytes).expect("write");
    for turns in [1, 2, 3, 10] {
        check_session(&env, "mine", turns, None);
    }
    let frames = bin(&env, &["--session", "mine", "--replay-frames", "100"]);
    let s = String::from_utf8_lossy(&frames.stdout);
    assert!(s.contains("USER_MESSAGE\r\n$") && s.contains("\r\nfirst \"quoted\" \\ back"));
    assert!(!s.contains("torn") && !s.contains("ASYNC_TASK_RESULT"));
}

#[test]
fn errors_and_empty_sessions() {
    report_missing_awks();
    let env = Env::new();
    let o = bin(&env, &["--session", "nope", "--replay"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Session not found: nope"));
    let o = bin(&env, &["--session", "x", "--replay-frames", "abc"]);
    assert_eq!(o.status.code(), Some(2));
    let o = bin(&env, &["--replay"]);
    assert_eq!(o.status.code(), Some(2));
    // An existing session without events replays nothing, successfully.
    std::fs::create_dir_all(env.session_dir("empty")).expect("mkdir");
    for flag in ["--replay", "--replay-frames"] {
        let o = bin(&env, &["--session", "empty", flag]);
        assert!(o.status.success());
        assert!(o.stdout.is_empty() && o.stderr.is_empty());
    }
    // --continue picks the latest session.
    let o = bin(&env, &["--continue", "--replay-frames"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn print_replay_awk_is_the_file() {
    let env = Env::new();
    let o = bin(&env, &["--print-replay-awk"]);
    assert_eq!(o.stdout, std::fs::read(AWK).expect("awk"));
    let _ = PathBuf::new();
}
