//! Answers at the edges (issue 42): a `pause_turn` with nothing in it, and usage counts no
//! model can have (2^64 − 1, 1e30, negative), stored the same way everywhere.
use crate::support::*;
use serde_json::{json, Value};

/// An empty `pause_turn` is an empty answer: exit 1 at once, not re-sent up to
/// --max-turns times.
#[test]
fn an_empty_pause_turn_is_an_empty_answer() {
    // (Responses has no pause_turn: its stop reasons are its own.)
    for provider in ["claude", "openai"] {
        let mock =
            Mock::start(r#"[{"stop":"pause_turn","usage":{"input":5,"output":0},"repeat":true}]"#);
        let env = Env::new();
        let o = env.agent(&mock.base(provider), provider, &["hello"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{provider}: {err}");
        assert!(
            err.contains("the server returned an empty answer (stop_reason=pause_turn)"),
            "{provider}: {err}"
        );
        assert_eq!(
            mock.requests().len(),
            1,
            "{provider}: the empty pause was re-sent"
        );
    }
}

/// SSE of one Anthropic answer whose usage holds absurd counts.
fn absurd_answer() -> String {
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let start = r#"{"type":"message_start","message":{"id":"msg_absurd","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":1e30,"output_tokens":1,"cache_read_input_tokens":18446744073709551615,"cache_creation_input_tokens":-5}}}"#;
    let delta = r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":18446744073709551615}}"#;
    [
        format!("event: message_start\ndata: {start}\n\n"),
        ev(
            "content_block_start",
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
        ),
        ev(
            "content_block_delta",
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"counted"}}),
        ),
        ev("content_block_stop", json!({"type":"content_block_stop","index":0})),
        format!("event: message_delta\ndata: {delta}\n\n"),
        ev("message_stop", json!({"type":"message_stop"})),
    ]
    .concat()
}

/// 2^53 − 1: the clamp of every per-call count (docs/robustness.md).
const MAX: u64 = (1 << 53) - 1;

#[test]
fn absurd_usage_counts_are_clamped_one_way_everywhere() {
    let script = json!([{ "raw": [absurd_answer()], "repeat": true }]).to_string();
    let mock = Mock::start(&script);
    let env = Env::new();
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "abs", "hello"],
    );
    expect_code(&o, 0);
    let ledger = env.read("abs", "usage.jsonl");
    let line: Value = serde_json::from_str(ledger.lines().next().unwrap()).unwrap();
    assert_eq!(line["input_tokens"], MAX, "{ledger}");
    assert_eq!(line["output_tokens"], MAX, "{ledger}");
    assert_eq!(line["cache_read_input_tokens"], MAX, "{ledger}");
    assert_eq!(line["cache_creation_input_tokens"], 0, "{ledger}");
    let stats: Value = serde_json::from_str(&env.read("abs", "stats.json")).unwrap();
    assert_eq!(stats["total_input_tokens"], MAX, "{stats}");
    assert_eq!(stats["total_output_tokens"], MAX, "{stats}");
    assert_eq!(stats["total_cache_read_tokens"], MAX, "{stats}");
    let evs = env.read("abs", "events.jsonl");
    let usage: Value = evs
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "usage")
        .unwrap_or_else(|| panic!("{evs}"));
    assert_eq!(usage["input_tokens"], MAX, "{usage}");
    assert_eq!(usage["output_tokens"], MAX, "{usage}");
    let o = env.run(&["usage", "--session", "abs", "--json"]);
    expect_code(&o, 0);
    let rep = stdout(&o);
    assert!(rep.contains(&format!("\"input_tokens\":{MAX}")), "{rep}");
    assert!(rep.contains(&format!("\"output_tokens\":{MAX}")), "{rep}");
    // More such calls (the absurd context also makes the next run compact first) add up
    // without wrapping or a panic, to the same total in stats.json and `usage`.
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "abs", "again"],
    );
    expect_code(&o, 0);
    let stats: Value = serde_json::from_str(&env.read("abs", "stats.json")).unwrap();
    let total = stats["total_input_tokens"].as_u64().unwrap();
    assert!(total >= 2 * MAX && total.is_multiple_of(MAX), "{stats}");
    let o = env.run(&["usage", "--session", "abs", "--json"]);
    expect_code(&o, 0);
    assert!(
        stdout(&o).contains(&format!("\"input_tokens\":{total}")),
        "{}",
        stdout(&o)
    );
}

/// A ledger line cut by kill -9 (simulated: half a line, no newline, at the end of
/// usage.jsonl): `usage` reads the whole lines and says nothing of corruption; the next run
/// sets the torn tail aside and appends its own line on a clean line.
#[test]
fn a_torn_ledger_tail_keeps_usage_working() {
    let mock = Mock::start(r#"[{"text":"ok","usage":{"input":100,"output":7},"repeat":true}]"#);
    let env = Env::new();
    let o = env.agent(&mock.base("claude"), "claude", &["--session", "t", "one"]);
    expect_code(&o, 0);
    let ledger = env.session_dir("t").join("usage.jsonl");
    let whole = std::fs::read_to_string(&ledger).unwrap();
    let torn = &whole[..whole.len() / 2];
    std::fs::write(&ledger, format!("{whole}{torn}")).unwrap();
    let o = env.run(&["usage", "--session", "t", "--json"]);
    expect_code(&o, 0);
    assert!(!stderr(&o).contains("corrupt"), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"input_tokens\":100"),
        "{}",
        stdout(&o)
    );
    let o = env.agent(&mock.base("claude"), "claude", &["--session", "t", "two"]);
    expect_code(&o, 0);
    assert_eq!(crate::support::checks::check_jsonl(&ledger), 2);
    let o = env.run(&["usage", "--session", "t", "--json"]);
    expect_code(&o, 0);
    assert!(!stderr(&o).contains("corrupt"), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"input_tokens\":200"),
        "{}",
        stdout(&o)
    );
    let side = std::fs::read_dir(env.session_dir("t"))
        .unwrap()
        .flatten()
        .any(|d| {
            d.file_name()
                .to_string_lossy()
                .starts_with("usage.jsonl.torn-")
        });
    assert!(side, "the torn tail was not set aside");
}
