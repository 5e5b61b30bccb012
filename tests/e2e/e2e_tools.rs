//! The scripted model uses every tool in one session, through the real binary: file tools,
//! Bash (foreground and background), search, TodoWrite, the plan lifecycle, Skill and a
//! sub-agent; the one-shot run waits for the background result and the sub-agent.
use crate::support::*;

#[test]
fn scripted_model_uses_every_tool() {
    let env = Env::new();
    let skill = env.cwd.join(".claude/skills/demo");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "description: a demo skill\nRun ${BASH_AGENT_SKILL_DIR}/go.sh\n",
    )
    .unwrap();
    let draft = env.session_dir("t").join("plan.draft");
    let draft = draft.to_str().unwrap();
    let script = format!(
        r#"[
      {{"when": "\"content\":\"SUBCHILD", "text": "child says 42", "usage": {{"input": 7, "output": 3}}}},
      {{"when": "The messages above are being removed", "text": "Task focus: tools\nLatest request: all\nProgress: done\nTool evidence: none\nReflections: none", "usage": {{"input": 1, "output": 1}}}},
      {{"tool_calls": [
        {{"name": "Write", "id": "c1", "input": {{"path": "a.txt", "content": "alpha\nbeta\n"}}}},
        {{"name": "Read", "id": "c2", "input": {{"path": "a.txt"}}}},
        {{"name": "Edit", "id": "c3", "input": {{"path": "a.txt", "old_string": "beta", "new_string": "BETA"}}}},
        {{"name": "Bash", "id": "c4", "input": {{"command": "cat a.txt"}}}},
        {{"name": "Glob", "id": "c5", "input": {{"pattern": "*.txt"}}}},
        {{"name": "Grep", "id": "c6", "input": {{"pattern": "BETA", "path": "."}}}},
        {{"name": "TodoWrite", "id": "c7", "input": {{"todos": [{{"content": "edit", "status": "completed"}}, {{"content": "report", "status": "in_progress"}}]}}}},
        {{"name": "Skill", "id": "c8", "input": {{"name": "demo"}}}},
        {{"name": "Write", "id": "c9", "input": {{"path": "{draft}", "content": "1. edit a.txt\n"}}}}
      ], "usage": {{"input": 100, "output": 50}}}},
      {{"tool_calls": [
        {{"name": "PlanConfirm", "id": "d1", "input": {{}}}},
        {{"name": "PlanClear", "id": "d2", "input": {{}}}},
        {{"name": "Bash", "id": "d3", "input": {{"command": "echo bg-done", "background": true}}}},
        {{"name": "SubAgent", "id": "d4", "input": {{"prompt": "SUBCHILD please", "description": "child"}}}},
        {{"name": "Nope", "id": "d5", "input": {{}}}}
      ], "usage": {{"input": 200, "output": 50}}}},
      {{"text": "All tools used.", "usage": {{"input": 300, "output": 10}}}},
      {{"text": "Results noted.", "repeat": true, "usage": {{"input": 10, "output": 2}}}}
    ]"#
    );
    let mock = Mock::start(&script);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "t", "use every tool"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(env.cwd.join("a.txt")).unwrap(),
        "alpha\nBETA\n"
    );
    let evs = events(&env.session_dir("t").join("events.jsonl"));
    let result = |id: &str| -> String {
        evs.iter()
            .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == id)
            .unwrap_or_else(|| panic!("no result for {id}"))["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(result("c1").starts_with("Write(a.txt) [2 lines, 11 bytes]"));
    assert!(
        result("c2").contains("     1\talpha\n     2\tbeta"),
        "{}",
        result("c2")
    );
    assert!(result("c3").starts_with("Success: Edit(a.txt) [+1 -1 lines]"));
    assert_eq!(result("c4"), "alpha\nBETA");
    assert_eq!(result("c5"), "./a.txt");
    assert!(result("c6").contains("2:BETA"));
    assert_eq!(result("c7"), "- [x] edit\n- [ ] report");
    assert!(
        result("c8").contains(&format!("Run {}/go.sh", skill.display())),
        "{}",
        result("c8")
    );
    assert_eq!(result("d1"), "Plan confirmed and locked in.");
    assert_eq!(result("d2"), "Plan cleared.");
    assert!(result("d3").starts_with("Async task started: task_id=async_"));
    assert!(result("d4").starts_with("Sub-agent started: session_id=sub_"));
    assert!(result("d5").contains("unknown tool: Nope"));
    // The tool results reached the model in one user message per call.
    let conv = env.read("t", "conversation.jsonl");
    assert!(conv.contains(r#""tool_use_id":"c7","content":"- [x] edit\n- [ ] report""#));
    assert!(conv.contains(r#""tool_use_id":"d5","content":"Error: unknown tool: Nope""#));
    // Background task and sub-agent results arrived before the one-shot run ended.
    let bg = evs
        .iter()
        .find(|e| e["type"] == "async_task_result")
        .expect("async result");
    assert_eq!(bg["exit_code"], 0);
    assert_eq!(bg["output"], "bg-done\n");
    let sub = evs
        .iter()
        .find(|e| e["type"] == "sub_agent_result")
        .expect("sub result");
    assert_eq!(sub["status"], "ok");
    assert_eq!(sub["text"], "child says 42");
    assert!(conv.contains("[async-task async_"));
    assert!(conv.contains("[sub-agent sub_"));
    // Plan lifecycle: confirmed then cleared; the draft was consumed.
    assert_eq!(env.read("t", "plan.md"), "");
    assert_eq!(env.read("t", "plan.draft"), "");
    assert_eq!(env.read("t", "active_sub.count").trim(), "0");
    let stats = bash_agent::session::stats::Stats::load(&env.session_dir("t").join("stats.json"));
    assert_eq!(stats.sub_agent_request_count, 1);
}
