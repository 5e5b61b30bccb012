//! Every shell-written fixture session goes through one turn of this binary (a foreground
//! Bash call, an async one and its result), and afterwards every file in the folder still
//! has the shapes the shell agent reads: the old bytes are kept as they were, new lines have
//! the catalogue's key order, stats.json and the counter their formats, and nothing else
//! is left behind but the additions the differences document names. The shell replay stage
//! (the awk) reads the result the same as `--replay-frames` does.

use crate::support::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};

/// Event types and their members in the order the shell agent writes them.
fn event_keys(ty: &str, v: &Value) -> Option<Vec<&'static str>> {
    Some(match ty {
        "session_start" => vec!["type", "session_id"],
        "user_input" | "user_notify" | "text" | "thinking" => vec!["type", "content"],
        "tool_call" => vec!["type", "name", "id", "input"],
        "tool_result" => vec!["type", "tool_use_id", "name", "content"],
        "usage" => {
            let mut k = vec![
                "type",
                "input_tokens",
                "output_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
                "kind",
            ];
            if v["kind"] == "sub_agent" {
                k.push("sub_session_id");
            }
            k
        }
        "stop" => vec!["type", "reason"],
        "context_update" => vec!["type", "kind", "trigger"],
        "error" => vec!["type", "message"],
        "retry" => vec!["type"],
        "sub_agent_start" => vec![
            "type",
            "session_id",
            "timestamp",
            "prompt",
            "description",
            "fork",
        ],
        "sub_agent_result" => vec![
            "type",
            "session_id",
            "status",
            "input_tokens",
            "output_tokens",
            "thinking",
            "text",
        ],
        "sub_agent_end" => vec!["type", "session_id", "timestamp", "status"],
        "async_task_start" => vec!["type", "task_id", "command", "timestamp"],
        "async_task_result" => vec!["type", "task_id", "exit_code", "output"],
        "async_task_end" => vec!["type", "task_id", "exit_code", "timestamp"],
        _ => return None,
    })
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

/// One JSON object per `\n`-terminated line; returns the parsed lines.
fn jsonl(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "{}",
        path.display()
    );
    text.lines()
        .map(|l| {
            // Tool inputs are kept verbatim, spaces included; the rest is compact.
            assert!(l.starts_with("{\"") && l.ends_with('}'), "{l}");
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display()))
        })
        .collect()
}

fn check_events(path: &Path) {
    for v in jsonl(path) {
        let ty = v["type"].as_str().unwrap_or_else(|| panic!("no type: {v}"));
        let want = event_keys(ty, &v).unwrap_or_else(|| panic!("unknown event type: {v}"));
        assert_eq!(keys(&v), want, "{v}");
        if let Some(ts) = v.get("timestamp") {
            let ts = ts.as_str().unwrap();
            assert!(
                ts.len() == 20 && ts.ends_with('Z') && &ts[10..11] == "T",
                "{v}"
            );
        }
        for n in ["exit_code", "input_tokens", "output_tokens"] {
            if let Some(x) = v.get(n) {
                assert!(x.is_i64(), "{v}");
            }
        }
    }
}

fn check_conversation(path: &Path) {
    for v in jsonl(path) {
        assert_eq!(keys(&v), ["role", "content"], "{v}");
        let role = v["role"].as_str().unwrap();
        assert!(role == "user" || role == "assistant", "{v}");
        if v["content"].is_string() {
            assert_eq!(role, "user", "{v}");
            continue;
        }
        for b in v["content"].as_array().unwrap_or_else(|| panic!("{v}")) {
            let want: &[&str] = match (role, b["type"].as_str().unwrap_or("")) {
                ("user", "tool_result") => &["type", "tool_use_id", "content"],
                ("assistant", "thinking") => &["type", "thinking"],
                ("assistant", "text") => &["type", "text"],
                ("assistant", "tool_use") => &["type", "id", "name", "input"],
                _ => panic!("unexpected block {b} in {v}"),
            };
            // Our thinking blocks may carry the provider's signature after the text.
            let k = keys(b);
            assert_eq!(&k[..want.len()], want, "{b}");
            assert!(
                k.len() == want.len() || k[want.len()..] == ["signature"],
                "{b}"
            );
        }
    }
}

fn check_stats(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let line = text.strip_suffix('\n').unwrap_or(&text);
    assert!(!line.contains('\n'), "stats.json is one line: {text:?}");
    let v: Value = serde_json::from_str(line).unwrap();
    let mut want = vec![
        "current_turn_count",
        "agent_request_count",
        "compact_request_count",
        "total_input_tokens",
        "total_output_tokens",
        "total_cache_read_tokens",
        "total_cache_creation_tokens",
        "current_context_tokens",
        "sub_agent_request_count",
        "last_updated",
    ];
    if v.get("last_call_speed_tok_per_sec").is_some() {
        want.insert(9, "last_call_speed_tok_per_sec");
    }
    assert_eq!(keys(&v), want, "{line}");
    for k in &want[..want.len() - 1] {
        assert!(v[*k].is_u64(), "{k} in {line}");
    }
    assert!(v["last_updated"].as_str().is_some_and(|t| t.ends_with('Z')));
}

/// What may be in a session folder after our run: the shell's files and our documented
/// additions. A stray file (a `.log` not taken, a temp file) fails.
fn check_folder(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let p = e.path();
        match name.as_str() {
            "events.jsonl" => check_events(&p),
            "conversation.jsonl" | "conversation-archive.jsonl" => check_conversation(&p),
            "stats.json" => check_stats(&p),
            "active_sub.count" => {
                let c = std::fs::read_to_string(&p).unwrap();
                assert_eq!(c, "0\n", "{}", p.display());
            }
            "summary.txt" | "plan.md" | "plan.draft" => {
                assert!(std::fs::read_to_string(&p).is_ok())
            }
            "usage.jsonl" => {
                jsonl(&p);
            }
            "input.fifo" | "notify.fifo" => {
                assert!(bash_agent::ipc::fifo::is_fifo(&p), "{}", p.display())
            }
            "images" | "file-history" => assert!(p.is_dir()),
            "shell-snapshot.sh" => {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&p).unwrap().permissions().mode();
                assert_eq!(mode & 0o777, 0o600, "{}", p.display());
            }
            ".lock"
            | ".notify.buf.lock"
            | ".input.fifo.lock"
            | ".notify.fifo.lock"
            | ".active_sub.count.lock" => {}
            "notify.buf" => assert_eq!(std::fs::metadata(&p).unwrap().len(), 0),
            _ => panic!("unexpected file in a session folder: {}", p.display()),
        }
    }
}

/// The shell's replay stage on the shell's selection (last 10 `user_input`s).
fn shell_replay(events: &Path) -> Vec<u8> {
    let awk = concat!(env!("CARGO_MANIFEST_DIR"), "/awk/event_replay.awk");
    let script = r#"f=$1; [ -s "$f" ] || exit 0
L=$(grep -n '"type":"user_input"' "$f" | tail -n 10 | head -n 1 | cut -d: -f1)
tail -n +"${L:-1}" "$f" | LC_ALL=C awk -f "$2""#;
    let o = Command::new("sh")
        .args(["-c", script, "sh"])
        .arg(events)
        .arg(awk)
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(o.status.success());
    o.stdout
}

#[test]
fn a_rust_turn_keeps_every_shell_fixture_in_shell_formats() {
    let env = Env::new();
    let names = install_fixtures(&env);
    assert!(names.len() >= 6, "{names:?}");
    for name in &names {
        let dir = env.session_dir(name);
        let before_ev = env.read(name, "events.jsonl");
        let before_conv = env.read(name, "conversation.jsonl");
        let mock = Mock::start(
            &serde_json::json!([
                {"when": "FIXTURE_TURN", "tool_calls": [
                    {"name": "Bash", "id": "f1", "input": {"command": "echo fg"}},
                    {"name": "Bash", "id": "f2", "input": {"command": "echo bg", "async": true}}]},
                {"when": "[async-task async_", "text": "task seen"},
                {"repeat": true, "text": "done"}
            ])
            .to_string(),
        );
        let o = env.agent(
            &mock.base("claude"),
            "claude",
            &["--session", name, "FIXTURE_TURN"],
        );
        expect_code(&o, 0);
        let ev = env.read(name, "events.jsonl");
        assert!(ev.starts_with(&before_ev), "{name}: old events changed");
        assert!(
            env.read(name, "conversation.jsonl")
                .starts_with(&before_conv),
            "{name}: old conversation changed"
        );
        let added = types(&events(&dir.join("events.jsonl")));
        for t in ["user_input", "async_task_start", "async_task_end"] {
            assert!(added.iter().any(|x| x == t), "{name}: no {t}");
        }
        assert!(ev.contains("task seen"), "{name}");
        check_folder(&dir);

        // Replay: the shell's stage and ours agree, and the new turn is in it.
        let frames = shell_replay(&dir.join("events.jsonl"));
        let ours = env.run(&["--session", name, "--replay-frames"]);
        expect_code(&ours, 0);
        assert_eq!(ours.stdout, frames, "{name}");
        assert!(
            String::from_utf8_lossy(&frames).contains("FIXTURE_TURN"),
            "{name}"
        );
    }
    // Listing: every session is still listed.
    let o = env.run(&["--list-sessions"]);
    expect_code(&o, 0);
    let out = stdout(&o);
    for name in names.iter().filter(|n| !n.starts_with("sub_")) {
        assert!(out.contains(name.as_str()), "{name} not listed:\n{out}");
    }
}
