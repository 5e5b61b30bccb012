//! Compaction through the real binary against the scripted model server: a long session
//! with a small `--max-context` keeps answering with a bounded context, and every message
//! survives in archive + conversation.
use crate::support::{Env, Mock};
use bash_agent::session::conversation::is_user_turn_line;
use std::fs;
use std::path::{Path, PathBuf};

const SUMMARY: &str = "Task focus: the long demo\nLatest request: the last prompt\nProgress: all answered\nTool evidence: none\nReflections: none";

fn script() -> String {
    let pad = "z".repeat(200);
    serde_json::json!([
        {"when": "being removed from your context", "repeat": true, "text": SUMMARY,
         "usage": {"input": 40, "output": 30}},
        {"repeat": true, "text": format!("Answer with padding {pad}"),
         "usage": {"input": 100, "output": 20}}
    ])
    .to_string()
}

struct Fx {
    env: Env,
    mock: Mock,
    url: String,
}

fn setup() -> Fx {
    let mock = Mock::start(&script());
    Fx {
        url: mock.url.clone(),
        env: Env::new(),
        mock,
    }
}

fn agent(e: &Fx, args: &[&str]) -> std::process::Output {
    e.env
        .cmd()
        .args(args)
        .env("BASH_AGENT_RETRY_BASE_MS", "1")
        .output()
        .unwrap()
}

/// The agent on session `name` against `url`: `before` (a subcommand), the connection
/// flags, then `after`.
fn on_session(
    e: &Fx,
    before: &[&str],
    url: &str,
    name: &str,
    after: &[&str],
) -> std::process::Output {
    let connect = ["--base-url", url, "--api-key", "x", "--session", name];
    agent(e, &[before, &connect[..], after].concat())
}

/// Asserts that the run succeeded (its stderr shown when not).
fn ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn session_dir(e: &Fx, name: &str) -> PathBuf {
    e.env.session_dir(name)
}

fn lines(p: &Path) -> Vec<String> {
    fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

fn tokens(ls: &[String]) -> u64 {
    ls.iter()
        .map(|l| bash_agent::agent::compact::dp::line_tokens(l))
        .sum()
}

#[test]
fn two_hundred_turns_stay_bounded_and_lose_nothing() {
    let e = setup();
    let turns = 200;
    let mut max_conv_tokens = 0;
    let mut shown = 0;
    for i in 0..turns {
        let prompt = format!("prompt number {i:03}");
        let out = agent(
            &e,
            &[
                "--base-url",
                &e.url,
                "--api-key",
                "x",
                "--max-context",
                "2k",
                "--session",
                "long",
                &prompt,
            ],
        );
        assert!(
            out.status.success(),
            "turn {i}: {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        shown += String::from_utf8_lossy(&out.stdout)
            .matches("Context compacted (auto).")
            .count();
        let dir = session_dir(&e, "long");
        max_conv_tokens = max_conv_tokens.max(tokens(&lines(&dir.join("conversation.jsonl"))));
    }
    let dir = session_dir(&e, "long");
    let archive = lines(&dir.join("conversation-archive.jsonl"));
    let conv = lines(&dir.join("conversation.jsonl"));
    // Bounded: compaction kicks in above 90% of 2000 estimated tokens, and one turn adds
    // well under 200 tokens.
    assert!(
        max_conv_tokens < 2200,
        "conversation grew to {max_conv_tokens} tokens"
    );
    assert!(is_user_turn_line(&conv[0]));
    // Nothing lost: archive + conversation = every prompt and answer, in order, once.
    let all = [archive, conv].concat();
    assert_eq!(all.len(), 2 * turns);
    for (i, pair) in all.chunks(2).enumerate() {
        assert!(
            pair[0].contains(&format!("\"prompt number {i:03}\"")),
            "line {}: {}",
            2 * i,
            pair[0]
        );
        assert!(pair[1].contains("\"role\":\"assistant\""));
    }
    assert_eq!(
        fs::read_to_string(dir.join("summary.txt")).unwrap(),
        format!("{SUMMARY}\n")
    );
    let events = fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let updates = events
        .matches("{\"type\":\"context_update\",\"kind\":\"compact\",\"trigger\":\"auto\"}")
        .count();
    let compact_usage = events.matches("\"kind\":\"compact\"}").count();
    eprintln!("{updates} compactions, conversation peaked at {max_conv_tokens} tokens");
    assert!(updates >= 5, "only {updates} compactions");
    assert_eq!(updates, compact_usage);
    assert_eq!(shown, updates, "each compaction is shown once");
    let stats = bash_agent::session::stats::Stats::load(&dir.join("stats.json"));
    assert_eq!(stats.compact_request_count as usize, updates);
    assert_eq!(stats.agent_request_count as usize, turns);
    // Every request the model saw stayed small too.
    let reqs = lines(&e.mock.record);
    assert_eq!(reqs.len(), turns + updates);
}

/// Every regular file of a folder with its bytes.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut m = std::collections::BTreeMap::new();
    for ent in fs::read_dir(dir).unwrap() {
        let ent = ent.unwrap();
        let name = ent.file_name().to_string_lossy().into_owned();
        // Dot files are the run lock's bookkeeping (holder pid), not session content.
        if ent.file_type().unwrap().is_file() && !name.starts_with('.') {
            m.insert(
                ent.file_name().to_string_lossy().into_owned(),
                fs::read(ent.path()).unwrap(),
            );
        }
    }
    m
}

fn grow(e: &Fx, url: &str, name: &str, turns: usize) {
    for i in 0..turns {
        let p = format!("prompt number {i:03}");
        ok(&on_session(e, &[], url, name, &[&p]));
    }
}

#[test]
fn manual_compact_command() {
    let e = setup();
    grow(&e, &e.url, "m", 6);
    let dir = session_dir(&e, "m");
    let before = [
        lines(&dir.join("conversation-archive.jsonl")),
        lines(&dir.join("conversation.jsonl")),
    ]
    .concat();
    let out = on_session(&e, &["compact"], &e.url, "m", &[]);
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Context compacted (manual)"));
    let archive = lines(&dir.join("conversation-archive.jsonl"));
    let conv = lines(&dir.join("conversation.jsonl"));
    // 6 user turns, keep round(1.5) = 2 → 4 lines kept.
    assert_eq!((archive.len(), conv.len()), (8, 4));
    assert_eq!([archive, conv].concat(), before);
    assert_eq!(
        fs::read_to_string(dir.join("summary.txt")).unwrap(),
        format!("{SUMMARY}\n")
    );
    // The session keeps answering after the compaction.
    grow(&e, &e.url, "m", 1);
    assert_eq!(lines(&dir.join("conversation.jsonl")).len(), 6);
}

#[test]
fn manual_compact_failure_changes_nothing() {
    let e = setup();
    grow(&e, &e.url, "f", 6);
    let dir = session_dir(&e, "f");
    let failing = Mock::start(r#"[{"status":500,"repeat":true}]"#);
    let before = snapshot(&dir);
    let out = on_session(&e, &["compact"], &failing.url, "f", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Failed to generate context summary"));
    assert_eq!(snapshot(&dir), before);
}

#[test]
fn compact_text_is_the_summarys_instructions() {
    let e = setup();
    grow(&e, &e.url, "t", 6);
    ok(&on_session(
        &e,
        &[],
        &e.url,
        "t",
        &["/compact keep every parser decision"],
    ));
    let reqs = e.mock.requests();
    let summary_call = reqs
        .iter()
        .map(|r| r["body"].to_string())
        .find(|b| b.contains("being removed from your context"))
        .expect("a summary call");
    assert!(
        summary_call.contains("keep every parser decision"),
        "{summary_call}"
    );
    // No turn followed: the compaction was the whole command.
    assert_eq!(reqs.len(), 7, "six turns and the summary call");
}
