//! BashOutput and KillShell through the real binary (issue 35, item 4): the model reads a
//! running background task's output so far, then stops it; the stopped task's result still
//! arrives, and the run ends without waiting for the task's own end.
use crate::support::*;
use serde_json::json;

#[test]
fn the_model_reads_a_running_task_and_stops_it() {
    let env = Env::new();
    let bash =
        |id: &str, input: serde_json::Value| json!({"name": "Bash", "id": id, "input": input});
    let mock = Mock::start(
        &json!([
            {"when": "qqwatch", "tool_calls": [bash("b1", json!({
                "command": "echo first-line; touch bg-ready; sleep 60; echo never", "async": true}))]},
            // Wait, with a deadline, until the task has printed.
            {"tool_calls": [bash("b2", json!({
                "command": "for i in $(seq 1 1000); do [ -e bg-ready ] && break; sleep 0.02; done"}))]},
            {"tool_calls": [{"name": "BashOutput", "id": "o1", "input": {}}]},
            {"tool_calls": [{"name": "KillShell", "id": "k1", "input": {}}]},
            {"text": "done", "repeat": true}
        ])
        .to_string(),
    );
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "bg", "--permission-mode", "bypass", "qqwatch"],
    );
    expect_code(&out, 0);
    let conv = env.read("bg", "conversation.jsonl");
    let of = |id: &str| {
        conv.lines()
            .find(|l| l.contains(&format!("\"tool_use_id\":\"{id}\"")))
            .unwrap_or_default()
            .to_string()
    };
    let o1 = of("o1");
    assert!(
        o1.contains("is running") && o1.contains("first-line"),
        "{o1}"
    );
    let so_far = o1.split("output so far").nth(1).unwrap_or_default();
    assert!(
        so_far.contains("first-line") && !so_far.contains("never"),
        "{o1}"
    );
    let k1 = of("k1");
    assert!(k1.contains("Stopped async_"), "{k1}");
    // The stopped task's result came back (exit 143), not its `never`.
    assert!(conv.contains("exit_code=143"), "{conv}");
    assert!(
        conv.contains("exit_code=143\\nOutput: first-line\\n\""),
        "{conv}"
    );
}
