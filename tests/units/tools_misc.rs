//! TodoWrite, PlanConfirm/PlanClear, Skill, SubAgent, dispatch and tools.json.
use crate::support::tools::{ctx, env, run, NoHost, Rec};
use bash_agent::tools::{call_summary, TOOLS_JSON, TOOL_NAMES};
use serde_json::{json, Value};

#[test]
fn tools_json_has_the_tools_of_the_table() {
    let v: Value = serde_json::from_str(TOOLS_JSON).expect("tools.json parses");
    let arr = v.as_array().expect("array");
    let names: Vec<&str> = arr.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, TOOL_NAMES.to_vec());
    for t in arr {
        assert!(
            t["description"].as_str().is_some_and(|d| d.len() > 40),
            "{}",
            t["name"]
        );
        assert_eq!(t["input_schema"]["type"], "object");
        assert!(t["input_schema"]["properties"].is_object());
        assert!(t["input_schema"]["required"].is_array());
    }
    assert!(TOOLS_JSON.contains("cat -n"));
    assert!(TOOLS_JSON.contains("\"async\": {\"type\": \"boolean\""));
    assert!(TOOLS_JSON
        .contains("`[async-task <id>] exit_code=<code>` followed by a line `Output: <output>`"));
    assert!(!TOOLS_JSON.contains("\"name\": \"WebSearch\""));
    assert!(TOOLS_JSON.contains("\"name\": \"WebFetch\""));
}

#[test]
fn todo_checklist_and_validation() {
    let e = env();
    let c = ctx(&e, &NoHost);
    let input = json!({"todos": [
        {"content": "read notes", "status": "completed"},
        {"content": "edit notes", "status": "completed"},
        {"content": "report", "status": "in_progress"}]});
    let out = run(&c, "TodoWrite", &input);
    assert!(out.ok);
    assert_eq!(out.conv, "- [x] read notes\n- [x] edit notes\n- [ ] report");
    assert_eq!(out.checklist, Some((out.conv.clone(), "2/3".to_string())));
    let bad = |todos: Value| run(&c, "TodoWrite", &json!({ "todos": todos })).conv;
    assert_eq!(
        bad(json!([{"content": "", "status": "pending"}])),
        "Error: todo item content is required"
    );
    assert_eq!(
        bad(json!([{"content": "a", "status": "done"}])),
        "Error: invalid todo status: done"
    );
    assert_eq!(
        bad(
            json!([{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}])
        ),
        "Error: todo_write allows at most one in_progress item"
    );
    assert!(run(&c, "TodoWrite", &json!({}))
        .conv
        .starts_with("Error: todos must be an array"));
    assert_eq!(
        run(&c, "TodoWrite", &json!({"todos": []})).checklist,
        Some((String::new(), "0/0".into()))
    );
}

#[test]
fn plan_confirm_and_clear() {
    let e = env();
    let rec = Rec::default();
    let c = ctx(&e, &rec);
    let out = run(&c, "PlanConfirm", &json!({}));
    assert_eq!(out.conv, "Error: no plan draft found to confirm.");
    std::fs::write(e.session.plan_draft(), "1. count files\n2. report\n").unwrap();
    let out = run(&c, "PlanConfirm", &json!({}));
    assert_eq!(out.conv, "Plan confirmed and locked in.");
    assert_eq!(
        std::fs::read_to_string(e.session.plan()).unwrap(),
        "1. count files\n2. report\n"
    );
    assert_eq!(std::fs::read(e.session.plan_draft()).unwrap().len(), 0);
    let out = run(&c, "PlanClear", &json!({}));
    assert_eq!(out.conv, "Plan cleared.");
    assert_eq!(std::fs::read(e.session.plan()).unwrap().len(), 0);
    assert_eq!(
        rec.calls(),
        vec!["compact:plan_confirm", "compact:plan_clear"]
    );
}

#[test]
fn skills_are_found_and_substituted() {
    let e = env();
    let dir = e.cwd.join(".claude/skills/pdf");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), "Use ${BASH_AGENT_SKILL_DIR}/run.sh\n").unwrap();
    let c = ctx(&e, &NoHost);
    let out = run(&c, "Skill", &json!({"name": " pdf "}));
    assert!(out.ok);
    let d = dir.display();
    assert_eq!(
        out.conv,
        format!("Skill: pdf\nBase directory: {d}\n\nUse {d}/run.sh")
    );
    assert_eq!(
        run(&c, "Skill", &json!({"name": ""})).conv,
        "Error: no skill name provided"
    );
    assert_eq!(
        run(&c, "Skill", &json!({"name": "nope"})).conv,
        "Error: skill not found: nope"
    );
    assert_eq!(
        run(&c, "Skill", &json!({"name": "../skills/pdf"})).conv,
        "Error: skill not found: ../skills/pdf"
    );
}

#[test]
fn subagent_validation_and_launch() {
    let e = env();
    let rec = Rec::default();
    let mut c = ctx(&e, &rec);
    assert_eq!(
        run(&c, "SubAgent", &json!({"prompt": " "})).conv,
        "Error: no prompt provided for sub-agent"
    );
    let out = run(
        &c,
        "SubAgent",
        &json!({"prompt": "count", "description": "counter", "fork": true}),
    );
    assert_eq!(out.conv, "Sub-agent started: session_id=sub_x, pid=1");
    assert_eq!(rec.calls(), vec!["sub:count|counter|true"]);
    c.depth = 1;
    assert_eq!(
        run(&c, "SubAgent", &json!({"prompt": "count"})).conv,
        "Error: sub-agent recursion limit reached; child agents cannot launch SubAgent"
    );
}

#[test]
fn unknown_tools_and_summaries() {
    let e = env();
    let c = ctx(&e, &NoHost);
    let out = run(&c, "WebSearch", &json!({}));
    assert!(!out.ok);
    assert_eq!(out.conv, "Error: unknown tool: WebSearch");
    assert_eq!(
        call_summary("WebFetch", &json!({"url": "https://x.org/a"})),
        "WebFetch(https://x.org/a)"
    );
    assert_eq!(
        call_summary("Read", &json!({"path": "a.txt"})),
        "Read(a.txt)"
    );
    assert_eq!(call_summary("PlanConfirm", &json!({})), "PlanConfirm()");
}

#[test]
fn truncation_applies_to_every_tool() {
    let e = env();
    let mut c = ctx(&e, &NoHost);
    c.max_result_bytes = 500;
    let todos: Vec<Value> = (0..200)
        .map(|i| json!({"content": format!("item {i}"), "status": "pending"}))
        .collect();
    let out = run(&c, "TodoWrite", &json!({ "todos": todos }));
    assert!(out.conv.len() <= 500 && out.conv.contains("[... truncated"));
    let out = run(&c, "Bash", &json!({"command": "seq 1 10000"}));
    assert!(out.conv.len() <= 500 && out.conv.ends_with("9999\n10000\n"));
}
