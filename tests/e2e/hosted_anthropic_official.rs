//! The hosted Anthropic API through the official-host path: no base URL, ANTHROPIC_API_KEY
//! only, api.anthropic.com reached through the TLS + CONNECT-proxy harness
//! (`support/official.rs`) whose mock applies the strict Anthropic rules there
//! (`BASH_AGENT_MOCK_STRICT=1`). Each family on default flags, the named-field retry with
//! a model the table does not know, and a session that moves from `-p responses` to claude.
use super::hosted_anthropic::{assert_all_accepted, count_markers, strict_script, FAMILIES};
use crate::support::official::Official;
use crate::support::*;
use serde_json::{json, Value};

const ANTHROPIC_KEY: &str = "sk-ant-fake-official-ANTK";

/// The binary at the official host (no base URL, ANTHROPIC_API_KEY only) through the
/// TLS + CONNECT-proxy harness, whose mock applies the strict Anthropic rules to
/// api.anthropic.com (`BASH_AGENT_MOCK_STRICT=1`).
fn run_official(env: &Env, off: &Official, args: &[&str]) -> std::process::Output {
    let mut c = env.cmd();
    off.apply(&mut c);
    c.env("ANTHROPIC_API_KEY", ANTHROPIC_KEY).args(args);
    c.output().unwrap()
}

/// Issue 32's done-criterion for Anthropic: each family, default flags (no --thinking, no
/// --effort), the official host: a 10-turn session with a tool loop in every turn, then
/// resumed in a new process, with 0 rule violations (a refused request fails the turn, and
/// every recorded request is checked to have reached api.anthropic.com with its key).
#[test]
fn every_family_runs_ten_tool_loop_turns_a_resume_and_a_text_turn_at_the_official_host() {
    for model in FAMILIES {
        let env = Env::new();
        std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
        let mut script: Value = serde_json::from_str(&strict_script(11)).unwrap();
        let steps = script["steps"].as_array_mut().unwrap();
        steps.push(json!({"thinking": "Easy.", "text": "Plain hello."}));
        let off = Official::start(&script["steps"].to_string());
        let mut args = vec!["--session", "ten"];
        if model != "claude-sonnet-5-5" {
            args.extend(["--model", model]); // sonnet 5.5 is the default
        }
        for t in 0..10 {
            let p = format!("question {t}");
            let o = run_official(&env, &off, &[&args[..], &[&p]].concat());
            assert_all_accepted(&o, &format!("{model} turn {t}"));
            assert!(stdout(&o).contains(&format!("({t})")), "{model} {t}");
        }
        let mut resumed = vec!["--continue"];
        if model != "claude-sonnet-5-5" {
            resumed.extend(["--model", model]);
        }
        resumed.push("question 10");
        let o = run_official(&env, &off, &resumed);
        assert_all_accepted(&o, &format!("{model} resumed"));
        // The 10-turn session (and its resume) read at least 90 % of their input from
        // the (simulated) prompt cache: issue 32's bar.
        let (mut read, mut all) = (0u64, 0u64);
        for l in env.read("ten", "events.jsonl").lines() {
            let v: Value = serde_json::from_str(l).unwrap();
            if v["type"] == "usage" && v["kind"] == "agent" {
                let n = |k: &str| v[k].as_u64().unwrap();
                read += n("cache_read_input_tokens");
                all += n("cache_read_input_tokens")
                    + n("cache_creation_input_tokens")
                    + n("input_tokens");
            }
        }
        // Haiku 4.5 caches nothing shorter than 4096 tokens, about this test's whole
        // prompt (about 4,400 tokens a call): its early calls cannot be cached at all.
        let bar = if model == "claude-haiku-4-5" {
            0.6
        } else {
            0.9
        };
        let share = read as f64 / all as f64;
        assert!(
            share >= bar,
            "{model}: cache share {share:.3} ({read}/{all})"
        );
        // And a plain text turn.
        let mut text = args.clone();
        text.push("hello");
        let o = run_official(&env, &off, &text);
        assert_all_accepted(&o, &format!("{model} text turn"));
        assert!(stdout(&o).contains("Plain hello."), "{model}");
        let reqs = off.mock.requests();
        assert_eq!(reqs.len(), 23, "{model}");
        for r in &reqs {
            assert_eq!(r["headers"]["host"], "api.anthropic.com", "{model}");
            assert_eq!(r["path"], "/v1/messages", "{model}");
            assert_eq!(r["auth_tail"], "ANTK", "{model}");
            assert_eq!(r["body"]["model"], model);
            // Default flags: the model's own first thinking type, never --thinking's.
            let want = if model == "claude-haiku-4-5" {
                "enabled"
            } else {
                "adaptive"
            };
            assert_eq!(r["body"]["thinking"]["type"], want, "{model}");
            let n = count_markers(&r["body"]);
            assert!((1..=4).contains(&n), "{model}: {n} breakpoints");
        }
        assert_eq!(
            off.connects()
                .iter()
                .filter(|c| *c != "api.anthropic.com:443")
                .count(),
            0
        );
        // Every tool loop sent its signed reasoning back first (the strict server checks
        // it; here the recorded body of the resumed turn's second request shows it).
        let last = &reqs[21]["body"]["messages"];
        let a = &last[last.as_array().unwrap().len() - 2];
        assert_eq!(a["content"][0]["type"], "thinking", "{model}");
        assert!(a["content"][0]["signature"].is_string(), "{model}");
        let conv = env.read("ten", "conversation.jsonl");
        assert_eq!(conv.lines().count(), 46, "{model}");
    }
}

/// The harness's mock does apply the Anthropic rules at api.anthropic.com (so the test
/// above could fail): a retired model is refused with the API's 404.
#[test]
fn the_official_host_harness_enforces_the_anthropic_rules() {
    let env = Env::new();
    let off = Official::start(r#"[{"text":"never"}]"#);
    let o = run_official(&env, &off, &["--model", "claude-sonnet-4-20250514", "hi"]);
    expect_code(&o, 1);
    assert!(stderr(&o).contains("HTTP 404"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("model: claude-sonnet-4-20250514"),
        "{}",
        stderr(&o)
    );
}

/// A model the agent's table does not know (a new release), at the official host: asked
/// for effort, it is refused by name ("does not support the effort parameter") and the
/// retry leaves out only `output_config`, keeping the thinking the model takes; the rest
/// of the run leaves it out at once.
#[test]
fn a_400_naming_a_field_is_retried_once_without_that_field_only() {
    let env = Env::new();
    std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
    let script = json!({
        "models": [{"id": "claude-nova-6", "vendor": "anthropic", "thinking": ["adaptive", "disabled"],
                    "effort": [], "max_output": 64000, "context_window": 200000, "cache_min_tokens": 1024}],
        "steps": [
            {"thinking": "Read first.", "tool_calls": [{"name": "Read", "id": "toolu_n1", "input": {"path": "notes.txt"}}]},
            {"thinking": "Done.", "text": "Nova says hello."}
        ]
    });
    let off = Official::start(&script.to_string());
    let o = run_official(
        &env,
        &off,
        &[
            "--model",
            "claude-nova-6",
            "--effort",
            "high",
            "read the notes",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Nova says hello."));
    let reqs = off.mock.requests();
    assert_eq!(reqs.len(), 3, "{reqs:?}");
    assert_eq!(reqs[0]["body"]["output_config"]["effort"], "high");
    for r in &reqs[1..] {
        assert!(r["body"].get("output_config").is_none(), "{r}");
        assert_eq!(r["body"]["thinking"]["type"], "adaptive", "{r}");
    }
}

/// A session run with `-p responses` at api.openai.com (its thinking blocks carry the
/// Responses items as an extra member), then resumed with claude at api.anthropic.com:
/// no request is refused (the strict Anthropic server refuses extra members on a thinking
/// block, and unsigned thinking), and the items never reach Anthropic.
#[test]
fn a_session_moving_from_responses_to_claude_stays_valid() {
    let env = Env::new();
    std::fs::write(env.cwd.join("notes.txt"), "hello\n").unwrap();
    let off = Official::start(
        r#"[
      {"when":"read it","thinking":"Read the notes.","tool_calls":[{"name":"Read","id":"call_x1","input":{"path":"notes.txt"}}]},
      {"when":"read it","thinking":"Done.","text":"They say hello."},
      {"when":"again","thinking":"Read once more.","tool_calls":[{"name":"Read","id":"toolu_x2","input":{"path":"notes.txt"}}]},
      {"when":"again","thinking":"Same.","text":"Still hello."}
    ]"#,
    );
    let mut c = env.cmd();
    off.apply(&mut c);
    let o = c
        .env("OPENAI_API_KEY", "sk-fake-openai-OAIK")
        .args(["-p", "responses", "--session", "mv", "read it"])
        .output()
        .unwrap();
    assert_all_accepted(&o, "responses turn");
    assert!(env
        .read("mv", "conversation.jsonl")
        .contains("\"responses_reasoning\""));
    // First at a local Claude-compatible server, which gets the stored bytes (unsigned
    // thinking included): the other provider's member is cut out there too.
    let local = Mock::start(r#"[{"text":"local ok"}]"#);
    let o = env.agent(
        &local.base("claude"),
        "claude",
        &["--model", "local-model", "--session", "mv", "and locally?"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let b = local.records()[0]["body"].to_string();
    assert!(b.contains("Read the notes."), "{b}");
    assert!(!b.contains("responses_reasoning"), "{b}");
    let o = run_official(&env, &off, &["--session", "mv", "again"]);
    assert_all_accepted(&o, "claude turn");
    assert!(stdout(&o).contains("Still hello."), "{}", stdout(&o));
    let reqs = off.mock.requests();
    assert_eq!(reqs.len(), 4);
    for r in &reqs[2..] {
        assert_eq!(r["headers"]["host"], "api.anthropic.com");
        let b = r["body"].to_string();
        assert!(!b.contains("responses_reasoning"), "{b}");
        assert!(!b.contains("gAAAA"), "{b}");
    }
}
