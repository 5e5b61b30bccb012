//! MCP servers no one here wrote (installed by scripts/mcp-servers.sh) and hook scripts,
//! through a scripted model turn: results in the events and in the next request, a PreToolUse
//! hook that blocks `rm`, no server left running after the run.
use crate::support::*;
use std::path::PathBuf;

fn cache() -> PathBuf {
    PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/bash-agent-mcp")
}

#[test]
fn mcp_tools_and_a_blocking_hook_in_one_turn() {
    let everything =
        cache().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let time = cache().join("venv/bin/mcp-server-time");
    if !everything.is_file() || !time.is_file() {
        eprintln!("SKIPPED: MCP servers not installed (run scripts/mcp-servers.sh)");
        return;
    }
    let env = Env::new();
    std::fs::write(
        env.cwd.join(".mcp.json"),
        format!(
            r#"{{"mcpServers": {{"time": {{"command": "{}"}}, "everything": {{"command": "node", "args": ["{}"]}}}}}}"#,
            time.display(),
            everything.display()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(env.cwd.join(".bash-agent")).unwrap();
    std::fs::write(
        env.cwd.join(".bash-agent/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q '\"rm ' && { echo 'no rm' >&2; exit 2; }; exit 0"}]}]}}"#,
    )
    .unwrap();
    let mock = Mock::start(
        r#"[{"tool_calls": [
              {"name": "mcp__everything__echo", "id": "m1", "input": {"message": "hi-mcp"}},
              {"name": "mcp__time__get_current_time", "id": "m2", "input": {"timezone": "UTC"}},
              {"name": "Bash", "id": "b1", "input": {"command": "rm -f x"}}]},
            {"text": "done", "repeat": true}]"#,
    );
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "s", "go"]);
    expect_code(&out, 0);
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    let result = |id: &str| {
        evs.iter()
            .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == id)
            .unwrap_or_else(|| panic!("no result for {id}"))["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(result("m1"), "Echo: hi-mcp");
    assert!(
        result("m2").contains("\"timezone\": \"UTC\""),
        "{}",
        result("m2")
    );
    assert_eq!(result("b1"), "Error: PreToolUse hook blocked Bash: no rm");
    let reqs = mock.requests();
    assert!(reqs[0]["body"]
        .to_string()
        .contains("mcp__time__get_current_time"));
    assert!(reqs[1]["body"].to_string().contains("Echo: hi-mcp"));
}
