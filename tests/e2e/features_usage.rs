//! The usage ledger: lines written by `record`, totals and costs from `bash-agent usage`,
//! corrupt lines, --since, price overrides and the events.jsonl fallback.

use crate::support::*;
use bash_agent::usage::ledger::{record, LedgerEntry};
use serde_json::Value;

fn entry(model: &str, kind: &str, input: u64, output: u64, age_secs: i64) -> LedgerEntry {
    let now = bash_agent::util::time::now_secs();
    LedgerEntry {
        time: bash_agent::util::time::utc_iso(now - age_secs),
        provider: "claude".into(),
        model: model.into(),
        kind: kind.into(),
        input,
        output,
        cache_read: 1000,
        cache_creation: 2000,
        elapsed_ms: 1500,
        first_token_ms: 200,
        tok_per_sec: 40,
        retries: 0,
        estimated: false,
    }
}

fn json_out(env: &Env, args: &[&str]) -> Value {
    let o = env.run(args);
    expect_code(&o, 0);
    serde_json::from_str(stdout(&o).trim()).unwrap()
}

#[test]
fn ledger_lines_and_totals() {
    let env = Env::new();
    let s1 = env.session("s1");
    let s2 = env.session("s2");
    record(
        &s1,
        &entry("claude-sonnet-4-5", "agent", 1_000_000, 100_000, 60),
    );
    record(&s1, &entry("claude-sonnet-4-5", "compact", 500_000, 0, 30));
    record(&s2, &entry("mock-model", "agent", 10, 5, 3 * 86400));
    // A torn line and garbage: skipped and counted.
    bash_agent::util::fsx::append_bytes(&s2.usage_ledger(), b"{\"time\":\"2026\nnot json\n")
        .unwrap();

    let text = std::fs::read_to_string(s1.usage_ledger()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("{\"time\":\"") && lines[0].contains("\"provider\":\"claude\",\"model\":\"claude-sonnet-4-5\",\"kind\":\"agent\",\"input_tokens\":1000000,\"output_tokens\":100000,\"cache_read_input_tokens\":1000,\"cache_creation_input_tokens\":2000,\"elapsed_ms\":1500,\"first_token_ms\":200,\"tok_per_sec\":40,\"retries\":0}"), "{}", lines[0]);

    // One session (its folder was touched last → also the default).
    let v = json_out(&env, &["usage", "--session", "s1", "--json"]);
    assert_eq!(v["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(v["total"]["calls"], 2);
    assert_eq!(v["total"]["input_tokens"], 1_500_000);
    assert_eq!(v["total"]["elapsed_ms"], 3000);
    // sonnet: 1.5M in × $3 + 0.1M out × $15 + 2k cache read × $0.3 + 4k cache write × $3.75
    let expect = 1.5 * 3.0 + 0.1 * 15.0 + 0.002 * 0.3 + 0.004 * 3.75;
    assert!(
        (v["total"]["cost_usd"].as_f64().unwrap() - expect).abs() < 1e-6,
        "{v}"
    );

    // Every project, per model; the corrupt lines are reported on stderr.
    let o = env.run(&["usage", "--all", "--json"]);
    expect_code(&o, 0);
    assert!(
        stderr(&o).contains("skipped 2 corrupt line"),
        "{}",
        stderr(&o)
    );
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["total"]["calls"], 3);
    assert_eq!(v["skipped_lines"], 2);
    let models = v["models"].as_array().unwrap();
    let mock = models.iter().find(|m| m["model"] == "mock-model").unwrap();
    assert_eq!(mock["cost_usd"], Value::Null, "unknown model: no cost");
    assert_eq!(mock["unpriced_calls"], 1);

    // --since drops the 3-day-old call.
    let v = json_out(&env, &["usage", "--all", "--since", "1d", "--json"]);
    assert_eq!(v["total"]["calls"], 2);
    let o = env.run(&["usage", "--all", "--since", "soon"]);
    expect_code(&o, 2);

    // A price override in <agent_home>/config.json.
    std::fs::write(
        env.home.join(".bash-agent/config.json"),
        r#"{"prices":{"mock-model":{"input":1000000,"output":0}}}"#,
    )
    .unwrap();
    let v = json_out(&env, &["usage", "--session", "s2", "--json"]);
    assert_eq!(v["total"]["cost_usd"].as_f64(), Some(10.0));

    // The text table.
    let o = env.run(&["usage", "--all"]);
    expect_code(&o, 0);
    let t = stdout(&o);
    assert!(
        t.contains("SESSION") && t.contains("claude-sonnet-4-5") && t.contains("TOTAL"),
        "{t}"
    );
    assert!(t.contains("1,500,000"), "{t}");
}

#[test]
fn shell_sessions_fall_back_to_usage_events() {
    let env = Env::new();
    let s = env.session("rich");
    copy_fixture("-tmp-rich-proj/rich", &s.dir);
    let v = json_out(&env, &["usage", "--json"]);
    assert_eq!(v["sessions"][0]["source"], "events");
    assert_eq!(v["total"]["calls"], 7);
    assert_eq!(v["total"]["input_tokens"], 1800);
    assert_eq!(v["total"]["cache_read_input_tokens"], 800);
    assert_eq!(v["models"][0]["model"], "unknown");
}
