//! Issue 40 through the real binary and the scripted model: a Claude Code user's files
//! work unchanged. WebSearch, named by a command's `allowed-tools`, is the provider's own
//! search tool on the strict Anthropic server and on the Responses API (its blocks and
//! items stored on the assistant line and sent back as they came), and clearly absent on
//! chat completions; a skill runs as `/name`; `.claude/rules` reach the prompt.
use crate::support::checks;
use crate::support::*;
use serde_json::{json, Value};
use std::fs;

fn write(path: &std::path::Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// `/research` may search the web and read files.
fn research(env: &Env) {
    write(
        &env.cwd.join(".claude/commands/research.md"),
        "---\ndescription: Research a topic\nallowed-tools: WebSearch, Read\n---\nResearch $0 on the web.\n",
    );
    write(&env.cwd.join("notes.txt"), "hello\n");
}

/// The search, then a Read (so the loop sends the searched message back), then the end.
fn steps() -> Value {
    json!([
        {"when": "Research yaml", "web_search": "yaml crates", "text": "Searching.",
         "tool_calls": [{"name": "Read", "id": "toolu_r1", "input": {"path": "notes.txt"}}]},
        {"text": "serde_norway it is.", "repeat": true}
    ])
}

fn conversation(env: &Env) -> String {
    env.read("w", "conversation.jsonl")
}

#[test]
fn web_search_on_the_strict_anthropic_server_round_trips() {
    let env = Env::new();
    research(&env);
    let mock = Mock::start(&json!({"strict": "anthropic", "steps": steps()}).to_string());
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "w", "/research yaml"],
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("HTTP 4"), "{err}");
    let reqs = mock.records();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    let tools = reqs[0]["body"]["tools"].to_string();
    assert!(
        tools.contains(r#"{"max_uses":5,"name":"web_search","type":"web_search_20250305"}"#)
            || tools.contains(r#""type":"web_search_20250305""#),
        "{tools}"
    );
    // The searched message goes back with its blocks, in place, the results unchanged
    // (the strict server checks the encrypted content).
    let back = reqs[1]["body"]["messages"][1]["content"].clone();
    let types: Vec<&str> = back
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "server_tool_use",
            "web_search_tool_result",
            "text",
            "tool_use"
        ],
        "{back}"
    );
    assert_eq!(back[0]["input"]["query"], "yaml crates");
    // Stored as an extra key on the thinking block: the line keeps its shape.
    let conv = conversation(&env);
    let line: Value = serde_json::from_str(
        conv.lines()
            .find(|l| l.contains("server_tools"))
            .expect("a line with the search"),
    )
    .unwrap();
    let c = line["content"].as_array().unwrap();
    assert_eq!(c[0]["type"], "thinking");
    assert_eq!(c[0]["server_tools"][0]["type"], "server_tool_use");
    assert_eq!(c[1]["type"], "text");
    assert_eq!(c[2]["type"], "tool_use");
    // Shown to the user.
    assert!(
        stdout(&o).contains("[web_search: \"yaml crates\"]")
            || err.contains("[web_search: \"yaml crates\"]"),
        "{}{err}",
        stdout(&o)
    );
    // A plain turn later (no WebSearch named) still sends the stored blocks back whole.
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "w", "--continue", "thanks"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let last = mock.records().pop().unwrap();
    assert!(last["body"]["messages"]
        .to_string()
        .contains("web_search_tool_result"));
    assert!(!last["body"]["tools"]
        .to_string()
        .contains("web_search_20250305"));
}

#[test]
fn web_search_on_the_responses_api_round_trips() {
    let env = Env::new();
    research(&env);
    let mock = Mock::start(&steps().to_string());
    let o = env.agent(
        &mock.base("responses"),
        "responses",
        &["--model", "gpt-5.5", "--session", "w", "/research yaml"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let reqs = mock.records();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    let tools = reqs[0]["body"]["tools"].as_array().unwrap().clone();
    assert!(tools.contains(&json!({"type": "web_search"})), "{tools:?}");
    let input = reqs[1]["body"]["input"].as_array().unwrap().clone();
    let call = input
        .iter()
        .find(|i| i["type"] == "web_search_call")
        .expect("the search item goes back");
    assert_eq!(call["action"]["query"], "yaml crates");
    assert_eq!(call["status"], "completed");
    assert!(conversation(&env).contains("\"web_search_call\""));
}

#[test]
fn web_search_is_clearly_absent_on_chat_completions() {
    let env = Env::new();
    research(&env);
    let mock = Mock::start(&steps().to_string());
    let o = env.agent(
        &mock.base("openai"),
        "openai",
        &["--model", "gpt-5.5", "/research yaml"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(
        err.matches("WebSearch is not available here: the chat-completions API has no server-side search tool")
            .count(),
        1,
        "{err}"
    );
    for r in mock.records() {
        assert!(!r["body"]["tools"].to_string().contains("WebSearch"), "{r}");
    }
}

#[test]
fn a_skill_runs_as_a_command_and_rules_reach_the_prompt() {
    let env = Env::new();
    write(
        &env.cwd.join(".claude/skills/deploy/SKILL.md"),
        "---\nname: deploy\ndescription: >\n  Deploys the\n  service\n---\nDeploy $0 now ($ARGUMENTS).\n",
    );
    write(&env.cwd.join(".claude/rules/style.md"), "RULE-ALWAYS-7\n");
    write(
        &env.cwd.join(".claude/rules/go/go.md"),
        "---\npaths:\n  - \"**/*.go\"\n---\nRULE-GO-8\n",
    );
    write(&env.cwd.join("notes.txt"), "notes\n");
    write(&env.cwd.join("cmd/main.go"), "package main\n");
    write(&env.cwd.join("cmd/other.go"), "package main\n");
    let script = json!([
        {"when": "Deploy prod", "tool_calls": [
            {"name": "Read", "id": "r1", "input": {"path": "notes.txt"}},
            {"name": "Read", "id": "r2", "input": {"path": "cmd/main.go"}},
            {"name": "Read", "id": "r3", "input": {"path": "cmd/other.go"}}]},
        {"text": "ok.", "repeat": true}
    ]);
    let mock = Mock::start(&script.to_string());
    let o = env.agent(&mock.base("claude"), "claude", &["/deploy prod fast"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let reqs = mock.records();
    let msgs = reqs[0]["body"]["messages"].to_string();
    assert!(msgs.contains("Deploy prod now (prod fast)."), "{msgs}");
    assert!(!msgs.contains("description:"), "{msgs}");
    // The always-on rule is in the prompt; the path-scoped one is not...
    let sys = checks::system_text(&reqs[0]["body"]);
    assert!(sys.contains("RULE-ALWAYS-7"), "{sys}");
    assert!(!sys.contains("RULE-GO-8"), "{sys}");
    // ...it comes with the first matching file the model reads, once.
    let results = reqs[1]["body"]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .clone();
    let text = |i: usize| results[i]["content"].as_str().unwrap().to_string();
    assert!(!text(0).contains("RULE-GO-8"), "{results}");
    assert!(
        text(1).contains("applies to cmd/main.go:\nRULE-GO-8"),
        "{results}"
    );
    assert!(!text(2).contains("RULE-GO-8"), "{results}");
}
