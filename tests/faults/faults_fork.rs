//! Fork snapshot: six SubAgent calls with `fork=true` in one assistant message. The
//! parent writes that message (with the calls) and their results right after spawning,
//! then its next reply; each child must hold the parent's conversation as it was at the
//! moment of the call — the parent's prompt, none of the lines written afterwards —
//! however its start-up races with the parent.

use crate::support::checks::*;
use crate::support::*;
use std::process::Stdio;

#[test]
fn fork_copies_the_conversation_at_the_call() {
    let env = Env::new();
    let calls: Vec<serde_json::Value> = (1..=6)
        .map(|i| {
            serde_json::json!({"name": "SubAgent", "id": format!("fork_call_{i}"),
                "input": {"prompt": format!("CHILD-TASK-{i}"), "description": "fork", "fork": true}})
        })
        .collect();
    let script = serde_json::json!([
        {"when": "FORK-PARENT", "tool_calls": calls},
        {"when": "Sub-agent started", "text": "PARENT-AFTER noted", "repeat": true},
        {"repeat": true, "text": "child done"}
    ]);
    let mock = Mock::start(&script.to_string());
    let errlog = env.dir.path().join("stderr.log");
    let mut agent = Guard(
        env.cmd()
            .args(["--provider", "claude", "--base-url", &mock.base("claude")])
            .args([
                "--api-key",
                "sk-fork",
                "--session",
                "F",
                "FORK-PARENT: split",
            ])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&errlog).unwrap())
            .spawn()
            .unwrap(),
    );
    let st = wait_timeout(&mut agent, 60);
    let err = std::fs::read_to_string(&errlog).unwrap();
    assert_eq!(st.code(), Some(0), "{err}");
    assert_no_panic(&err);

    let parent = env.read("F", "conversation.jsonl");
    assert!(parent.contains("Sub-agent started"), "{parent}");
    let subs: Vec<_> = std::fs::read_dir(env.project_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("sub_"))
        .map(|e| e.path())
        .collect();
    assert_eq!(subs.len(), 6, "{subs:?}");
    for dir in &subs {
        let conv = std::fs::read_to_string(dir.join("conversation.jsonl")).unwrap();
        let first = conv.lines().next().unwrap_or("");
        assert!(
            first.contains("FORK-PARENT"),
            "{}: not a fork of the parent: {conv}",
            dir.display()
        );
        for later in ["fork_call_", "Sub-agent started", "PARENT-AFTER"] {
            assert!(
                !conv.contains(later),
                "{}: the child inherited the parent's later line ({later}):\n{conv}",
                dir.display()
            );
        }
        check_conversation(&dir.join("conversation.jsonl"));
    }
    // What each child sent: the parent's prompt and its own task, no assistant message.
    let child_reqs: Vec<_> = mock
        .requests()
        .into_iter()
        .filter(|r| {
            let msgs = r["body"]["messages"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            msgs.iter().all(|m| m["role"] == "user")
                && r["body"]["messages"].to_string().contains("CHILD-TASK-")
        })
        .collect();
    assert_eq!(
        child_reqs.len(),
        6,
        "child requests with the parent's later lines"
    );
    for r in &child_reqs {
        assert!(r["body"]["messages"].to_string().contains("FORK-PARENT"));
        check_request_pairing(&r["body"]);
    }
    check_tree(&env.home);
}
