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

/// Whether a process whose command line holds `marker` is still running.
fn running_with(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|d| {
        std::fs::read(d.path().join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
    })
}

/// KillShell on a task that ignores SIGTERM (and whose child does too): its whole process
/// group gets SIGKILL after the grace, its result (exit 137) arrives, and the one-shot run
/// ends long before the task would have (issue 42).
#[test]
fn killshell_escalates_to_sigkill_of_the_whole_group() {
    let env = Env::new();
    let marker = format!("{}.{}", 40 + std::process::id() % 50, std::process::id());
    let bash =
        |id: &str, input: serde_json::Value| json!({"name": "Bash", "id": id, "input": input});
    let mock = Mock::start(
        &json!([
            {"when": "qqstubborn", "tool_calls": [bash("b1", json!({
                "command": format!("trap '' TERM; touch bg-ready; sleep {marker}; echo never"),
                "async": true}))]},
            {"tool_calls": [bash("b2", json!({
                "command": "for i in $(seq 1 1000); do [ -e bg-ready ] && break; sleep 0.02; done"}))]},
            {"tool_calls": [{"name": "KillShell", "id": "k1", "input": {}}]},
            {"text": "done", "repeat": true}
        ])
        .to_string(),
    );
    let t = std::time::Instant::now();
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &[
            "--session",
            "stub",
            "--permission-mode",
            "bypass",
            "qqstubborn",
        ],
    );
    expect_code(&out, 0);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(30),
        "the run waited for the task: {:?}",
        t.elapsed()
    );
    assert!(
        !running_with(&format!("sleep {marker}")),
        "the task outlived KillShell"
    );
    let conv = env.read("stub", "conversation.jsonl");
    assert!(conv.contains("Stopped async_"), "{conv}");
    assert!(conv.contains("exit_code=137"), "{conv}");
    assert!(!conv.contains("Output: never"), "{conv}");
}
