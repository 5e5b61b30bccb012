//! The features against real agent runs (the scripted model server): the usage ledger
//! matches the scripted usage, undo removes a file the agent created and the model hears
//! about it on the next turn, search finds the tool call.
use crate::support::*;

const SCRIPT: &str = r#"[
  {"text":"Writing.","tool_calls":[{"name":"Write","id":"call_1","input":{"path":"out.txt","content":"hello ocelot\n"}}],"usage":{"input":100,"output":20,"cache_read":5,"cache_creation":1}},
  {"text":"Done.","usage":{"input":150,"output":10}},
  {"text":"Noted.","usage":{"input":7,"output":3}}
]"#;

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{:?}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap()
}

#[test]
fn ledger_undo_and_search_after_a_real_run() {
    let env = Env::new();
    let mock = Mock::start(SCRIPT);
    let model = ["--model", "claude-sonnet-4-5"];
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[&model[..], &["--session", "s1", "write a file"]].concat(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(env.cwd.join("out.txt")).unwrap(),
        "hello ocelot\n"
    );

    // The ledger: one line per call, with the scripted usage.
    let ledger = env.read("s1", "usage.jsonl");
    let lines: Vec<serde_json::Value> = ledger
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{ledger}");
    assert_eq!(lines[0]["provider"], "claude");
    assert_eq!(lines[0]["model"], "claude-sonnet-4-5");
    assert_eq!(lines[0]["kind"], "agent");
    assert_eq!(lines[0]["input_tokens"], 100);
    assert_eq!(lines[0]["cache_read_input_tokens"], 5);
    assert_eq!(lines[1]["output_tokens"], 10);
    let v = json(
        &env.cmd()
            .args(["usage", "--session", "s1", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(v["total"]["calls"], 2);
    assert_eq!(v["total"]["input_tokens"], 250);
    assert_eq!(v["total"]["output_tokens"], 30);
    assert!(v["total"]["cost_usd"].as_f64().unwrap() > 0.0);

    // Search finds the Write call's content.
    let h = json(
        &env.cmd()
            .args(["search", "ocelot", "--json"])
            .output()
            .unwrap(),
    );
    assert!(
        h.as_array()
            .unwrap()
            .iter()
            .any(|h| h["session"] == "s1" && h["type"] == "tool_call"),
        "{h}"
    );

    // Undo removes the created file; the next turn tells the model.
    let v = json(
        &env.cmd()
            .args(["undo", "--session", "s1", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(v["turns"], serde_json::json!([1]));
    assert!(!env.cwd.join("out.txt").exists());
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[&model[..], &["--session", "s1", "next"]].concat(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reqs = mock.requests();
    let last = reqs.last().unwrap()["body"].to_string();
    assert!(
        last.contains("[undo]") && last.contains("out.txt"),
        "{last}"
    );
    assert!(!env.session_dir("s1").join("undo.pending").exists());
}
