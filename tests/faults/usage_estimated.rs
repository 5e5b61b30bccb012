//! A server that streams no usage (llama-cpp-python): the agent estimates the tokens from
//! the bytes sent and received, and says so: `"estimated":true` in the usage ledger line
//! (only then: other lines keep their bytes), `~` figures and a footnote in `bash-agent
//! usage`, `estimated_calls` in `usage --json`, and "(estimated …)" in `/status`, also in a
//! later run. A session with a conversation but no usage recorded never shows context 0.
use crate::support::*;
use serde_json::Value;

fn status(env: &Env, url: &str, session: &str) -> String {
    let o = env.agent(url, "openai", &["--session", session, "/status"]);
    expect_code(&o, 0);
    stdout(&o)
}

fn context_line(s: &str) -> String {
    s.lines()
        .find(|l| l.starts_with("context"))
        .unwrap_or_else(|| panic!("no context line in:\n{s}"))
        .to_string()
}

#[test]
fn estimated_usage_is_marked_in_the_ledger_usage_and_status() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"when":"real usage","text":"Counted.","usage":{"input":1200,"output":3},"repeat":true},
            {"text":"Hello there, how can I help you today?","usage":{"input":0,"output":0},"repeat":true}]"#,
    );
    let url = mock.base("openai");
    let o = env.agent(&url, "openai", &["--session", "est", "hello"]);
    expect_code(&o, 0);
    let ledger = env.read("est", "usage.jsonl");
    let line: Value = serde_json::from_str(ledger.lines().next().unwrap()).unwrap();
    assert_eq!(line["estimated"], true, "{ledger}");
    assert!(line["input_tokens"].as_u64().unwrap() > 0, "{ledger}");
    assert!(line["output_tokens"].as_u64().unwrap() > 0, "{ledger}");
    assert!(ledger
        .trim_end()
        .ends_with(r#""retries":0,"estimated":true}"#));

    // A call with real usage: no key at all.
    let o = env.agent(&url, "openai", &["--session", "real", "real usage please"]);
    expect_code(&o, 0);
    let real = env.read("real", "usage.jsonl");
    assert!(!real.contains("estimated"), "{real}");
    assert!(real.trim_end().ends_with(r#""retries":0}"#), "{real}");

    // bash-agent usage: the estimated session's figures carry `~`, with a footnote.
    let o = env.run(&["usage", "--session", "est"]);
    expect_code(&o, 0);
    let t = stdout(&o);
    let row = t
        .lines()
        .find(|l| l.contains("/est"))
        .unwrap_or_else(|| panic!("{t}"));
    assert!(row.contains('~'), "{t}");
    assert!(t.contains("~ includes estimated figures"), "{t}");
    let o = env.run(&["usage", "--session", "real"]);
    let t = stdout(&o);
    assert!(!t.contains('~'), "{t}");
    let j: Value = serde_json::from_str(&stdout(&env.run(&["usage", "--all", "--json"]))).unwrap();
    assert_eq!(j["total"]["estimated_calls"], 1, "{j}");
    let sessions = j["sessions"].as_array().unwrap();
    let of = |name: &str| {
        sessions
            .iter()
            .find(|s| s["session"] == name)
            .unwrap_or_else(|| panic!("{j}"))
    };
    assert_eq!(of("est")["estimated_calls"], 1);
    assert!(of("real").get("estimated_calls").is_none(), "{j}");

    // /status in a later run: the estimate is marked, the context is not 0.
    let s = status(&env, &url, "est");
    let c = context_line(&s);
    assert!(c.contains("(estimated"), "{s}");
    assert!(!c.starts_with("context   0 "), "{s}");
    let s = status(&env, &url, "real");
    assert!(!context_line(&s).contains("estimated"), "{s}");

    // A session with a conversation and no usage recorded (e.g. written elsewhere).
    let old = env.session("old");
    std::fs::write(
        old.conversation(),
        "{\"role\":\"user\",\"content\":\"an old question, long enough to count\"}\n",
    )
    .unwrap();
    let s = status(&env, &url, "old");
    let c = context_line(&s);
    assert!(!c.starts_with("context   0 "), "{s}");
    assert!(
        c.contains("(estimated from the conversation's size)"),
        "{s}"
    );
    assert_eq!(mock.records().len(), 2, "/status calls no model");
}
