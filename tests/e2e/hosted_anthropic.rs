//! The hosted Anthropic API's rules, end to end: each current model family through a
//! text turn, a tool loop with thinking, a 10-turn session and a resumed one against the
//! scripted server in strict Anthropic mode (src/mock/strict_anthropic.rs), which refuses
//! what the API refuses (400/404 with its words) and simulates its prompt cache. The
//! server is reached at a custom base URL (a gateway's position); the official-host path
//! differs only in the defaults (docs/providers.md#the-model-table); hosted_anthropic_official.rs
//! runs the official-host path itself.
use crate::support::*;
use serde_json::{json, Value};

pub(crate) const FAMILIES: [&str; 5] = [
    "claude-sonnet-4-6",
    "claude-opus-4-7",
    "claude-opus-5-5",
    "claude-haiku-4-5",
    "claude-sonnet-5-5",
];

/// A strict script: per turn, a call with thinking (and a redacted block on even turns)
/// that reads a file, then the answer.
pub(crate) fn strict_script(turns: usize) -> String {
    let mut steps = Vec::new();
    for t in 0..turns {
        steps.push(json!({
            "thinking": format!("Turn {t}: I should read the notes first."),
            "redacted_thinking": t % 2 == 0,
            "text": "Reading.",
            "tool_calls": [{"name": "Read", "id": format!("toolu_{t}_r"), "input": {"path": "notes.txt"}}],
        }));
        steps.push(json!({
            "thinking": format!("Turn {t}: the notes say hello."),
            "text": format!("The notes say hello ({t})."),
        }));
    }
    json!({"strict": "anthropic", "steps": steps}).to_string()
}

fn run(env: &Env, mock: &Mock, model: &str, extra: &[&str], prompt: &str) -> std::process::Output {
    let mut args = vec!["--model", model, "--thinking", "adaptive"];
    args.extend_from_slice(extra);
    args.push(prompt);
    env.agent(&mock.base("claude"), "claude", &args)
}

fn usage_lines(env: &Env, id: &str) -> Vec<Value> {
    env.read(id, "events.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "usage" && v["kind"] == "agent")
        .collect()
}

/// Every request the strict server answered with 200 (a refused one would fail the run).
pub(crate) fn assert_all_accepted(out: &std::process::Output, what: &str) {
    assert!(out.status.success(), "{what}: {}", stderr(out));
    assert!(!stderr(out).contains("HTTP 4"), "{what}: {}", stderr(out));
}

#[test]
fn every_family_answers_a_text_turn_and_a_tool_loop_with_thinking() {
    for model in FAMILIES {
        let env = Env::new();
        std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
        let mut script: Value = serde_json::from_str(&strict_script(1)).unwrap();
        script["steps"]
            .as_array_mut()
            .unwrap()
            .push(json!({"thinking": "Easy.", "text": "Hello to you too."}));
        let mock = Mock::start(&script.to_string());
        let out = run(
            &env,
            &mock,
            model,
            &["--session", "s"],
            "what do the notes say?",
        );
        assert_all_accepted(&out, model);
        let reqs = mock.records();
        assert_eq!(reqs.len(), 2, "{model}");
        // A plain text turn after it.
        let out = run(&env, &mock, model, &["--session", "s"], "hello");
        assert_all_accepted(&out, model);
        assert!(stdout(&out).contains("Hello to you too."), "{model}");
        // The second request sends the signed (and redacted) blocks back, first and whole.
        let a = &reqs[1]["body"]["messages"][1];
        assert_eq!(a["role"], "assistant", "{model}");
        assert_eq!(a["content"][0]["type"], "thinking", "{model}");
        assert!(a["content"][0]["signature"].as_str().unwrap().len() > 16);
        assert_eq!(a["content"][1]["type"], "redacted_thinking", "{model}");
        // Stored with them.
        let conv = env.read("s", "conversation.jsonl");
        assert!(conv.contains("\"signature\":\"EqQB"), "{model}: {conv}");
        assert!(conv.contains("{\"type\":\"redacted_thinking\",\"data\":\"RVNE"));
        // Only fields the model accepts: haiku 4.5 thinks with a budget and takes no effort.
        let body = &reqs[0]["body"];
        match model {
            "claude-haiku-4-5" => {
                assert_eq!(body["thinking"]["type"], "enabled");
                assert!(body.get("output_config").is_none());
            }
            _ => assert_eq!(body["thinking"]["type"], "adaptive", "{model}"),
        }
        assert_eq!(body["max_tokens"], 32000, "{model}");
    }
}

#[test]
fn ten_turn_session_and_its_resumption_stay_valid_and_read_the_cache() {
    for model in FAMILIES {
        let env = Env::new();
        std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
        let mock = Mock::start(&strict_script(12));
        for t in 0..10 {
            let out = run(
                &env,
                &mock,
                model,
                &["--session", "ten"],
                &format!("question {t}"),
            );
            assert_all_accepted(&out, &format!("{model} turn {t}"));
        }
        // Resumed with --continue, and once with another model of the family's vendor:
        // signed blocks of another model are sent as they are.
        let out = run(&env, &mock, model, &["--continue"], "question 10");
        assert_all_accepted(&out, &format!("{model} resumed"));
        let out = run(
            &env,
            &mock,
            "claude-sonnet-5-5",
            &["--session", "ten"],
            "question 11",
        );
        assert_all_accepted(&out, &format!("{model} then sonnet 5.5"));
        let u = usage_lines(&env, "ten");
        assert_eq!(u.len(), 24, "{model}");
        let sum = |k: &str| u.iter().map(|v| v[k].as_u64().unwrap()).sum::<u64>();
        let (read, created, input) = (
            sum("cache_read_input_tokens"),
            sum("cache_creation_input_tokens"),
            sum("input_tokens"),
        );
        let share = read as f64 / (read + created + input) as f64;
        assert!(
            share > 0.6,
            "{model}: cache share {share:.2} ({read}/{created}/{input})"
        );
        for r in mock.records() {
            let n = count_markers(&r["body"]);
            assert!((1..=4).contains(&n), "{model}: {n} breakpoints");
        }
    }
}

pub(crate) fn count_markers(v: &Value) -> usize {
    match v {
        Value::Object(o) => {
            usize::from(o.contains_key("cache_control"))
                + o.values().map(count_markers).sum::<usize>()
        }
        Value::Array(a) => a.iter().map(count_markers).sum(),
        _ => 0,
    }
}

#[test]
fn a_shell_written_session_resumes_against_the_strict_server() {
    // The fixtures' thinking blocks are unsigned and some text blocks empty: neither
    // may reach an Anthropic-grade server.
    let env = Env::new();
    install_fixtures(&env);
    let mock = Mock::start(r#"{"strict":"anthropic","steps":[{"text":"Resumed."}]}"#);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[
            "--model",
            "claude-sonnet-4-6",
            "--session",
            "rich",
            "continue",
        ],
    );
    assert_all_accepted(&out, "rich");
    let body = mock.records()[0]["body"].to_string();
    assert!(!body.contains(r#""text":"""#), "{body}");
}

#[test]
fn a_retired_model_is_named_with_its_date_and_the_current_models() {
    let env = Env::new();
    let mock = Mock::start(r#"{"strict":"anthropic","steps":[{"text":"never"}]}"#);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--model", "claude-sonnet-4-20250514", "hi"],
    );
    expect_code(&out, 1);
    let err = stderr(&out);
    assert!(err.contains("HTTP 404"), "{err}");
    assert!(
        err.contains("claude-sonnet-4-20250514 was retired on 2026-06-15"),
        "{err}"
    );
    assert!(err.contains("claude-sonnet-5-5"), "{err}");
}

#[test]
fn max_tokens_is_clamped_to_the_models_max_output() {
    let env = Env::new();
    let mock = Mock::start(r#"{"strict":"anthropic","steps":[{"text":"ok"}]}"#);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[
            "--model",
            "claude-haiku-4-5",
            "--max-tokens",
            "200000",
            "hi",
        ],
    );
    assert_all_accepted(&out, "clamp");
    assert_eq!(mock.records()[0]["body"]["max_tokens"], 64000);
}

#[test]
fn an_effort_400_is_retried_once_without_the_field() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"status":400,"message":"This model does not support the effort parameter."},{"text":"fine"}]"#,
    );
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--model", "some-gateway-alias", "--effort", "low", "hi"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let reqs = mock.records();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0]["body"]["output_config"]["effort"], "low");
    assert!(reqs[1]["body"].get("output_config").is_none());
}

#[test]
fn pause_turn_continues_the_turn() {
    let env = Env::new();
    let mock = Mock::start(
        r#"{"strict":"anthropic","steps":[{"text":"Part one.","stop":"pause_turn"},{"text":"Part two."}]}"#,
    );
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--model", "claude-sonnet-5-5", "--session", "p", "long job"],
    );
    assert_all_accepted(&out, "pause_turn");
    let reqs = mock.records();
    assert_eq!(reqs.len(), 2);
    let msgs = reqs[1]["body"]["messages"].as_array().unwrap();
    assert_eq!(msgs.last().unwrap()["role"], "assistant");
    assert!(stdout(&out).contains("Part two."));
}

#[test]
fn refusal_ends_the_turn_with_exit_1() {
    let env = Env::new();
    let mock = Mock::start(
        r#"{"strict":"anthropic","steps":[{"text":"I can't help with that.","stop":"refusal"}]}"#,
    );
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[
            "--model",
            "claude-sonnet-5-5",
            "--session",
            "r",
            "something",
        ],
    );
    expect_code(&out, 1);
    assert!(
        stderr(&out).contains("stop_reason=refusal"),
        "{}",
        stderr(&out)
    );
    // What arrived is kept.
    assert!(env
        .read("r", "conversation.jsonl")
        .contains("I can't help with that."));
}

#[test]
fn context_window_stop_ends_the_turn_with_exit_1_when_nothing_can_be_compacted() {
    let env = Env::new();
    let mock = Mock::start(
        r#"{"strict":"anthropic","steps":[{"text":"Partial","stop":"model_context_window_exceeded"},{"repeat":true,"text":"summary"}]}"#,
    );
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--model", "claude-sonnet-5-5", "--session", "c", "big"],
    );
    expect_code(&out, 1);
    assert!(
        stderr(&out).contains("stop_reason=model_context_window_exceeded"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn context_window_stop_compacts_and_retries_once() {
    let env = Env::new();
    let mock = Mock::start(
        r#"{"strict":"anthropic","steps":[
          {"text":"First answer, long enough to be worth summarising."},
          {"text":"Second answer, also long enough to be worth summarising."},
          {"text":"Third answer."},
          {"text":"Partial","stop":"model_context_window_exceeded"},
          {"when":"The messages above are being removed","text":"Task focus: questions\nLatest request: big\nProgress: answered three\nTool evidence: none\nReflections: none"},
          {"text":"Answer after compaction."}
        ]}"#,
    );
    let args = ["--model", "claude-sonnet-5-5", "--session", "cc"];
    for q in ["one", "two", "three"] {
        let out = env.agent(&mock.base("claude"), "claude", &[&args[..], &[q]].concat());
        assert_all_accepted(&out, q);
    }
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[&args[..], &["big"]].concat(),
    );
    assert_all_accepted(&out, "big");
    assert!(
        stdout(&out).contains("Answer after compaction."),
        "{}",
        stdout(&out)
    );
    assert!(!env.read("cc", "summary.txt").is_empty());
    let ev = env.read("cc", "events.jsonl");
    assert!(ev.contains("\"context_update\""), "{ev}");
}
