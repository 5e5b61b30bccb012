//! MCP servers no one here wrote (installed by scripts/mcp-servers.sh from npm and PyPI),
//! through a scripted model turn: a tool of each of the three servers, results checked in
//! events.jsonl and in the next request, a PreToolUse hook that blocks `rm`, the servers'
//! environment without the API key, no server left running after the run. Skipped with a
//! loud note only when the cache is absent (CI installs it).
use crate::support::*;
use serde_json::Value;
use std::path::PathBuf;

pub fn cache() -> PathBuf {
    match std::env::var("BASH_AGENT_MCP_CACHE") {
        Ok(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/bash-agent-mcp"),
    }
}

/// The three real servers' entry points, or None (with the note) when not installed.
pub fn real_servers() -> Option<(PathBuf, PathBuf, PathBuf)> {
    let m = cache().join("node_modules/@modelcontextprotocol");
    let everything = m.join("server-everything/dist/index.js");
    let fs = m.join("server-filesystem/dist/index.js");
    let time = cache().join("venv/bin/mcp-server-time");
    if everything.is_file() && fs.is_file() && time.is_file() {
        return Some((everything, fs, time));
    }
    crate::support::skip::skip(&format!(
        "the real MCP servers are not installed in {} (run scripts/mcp-servers.sh)",
        cache().display()
    ));
    None
}

pub const KEY: &str = "sk-ant-PLANTED-mcp-secret-123";

/// The agent (claude, against `mock`) with the key in its environment (as users have it),
/// not on the command line.
pub fn key_cmd(env: &Env, mock: &Mock, args: &[&str]) -> std::process::Command {
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args(args)
        .env("ANTHROPIC_API_KEY", KEY);
    c
}

/// [`key_cmd`], run.
pub fn run_with_key(env: &Env, mock: &Mock, args: &[&str]) -> std::process::Output {
    key_cmd(env, mock, args)
        // npx/uv start-ups are slow on a loaded machine; the default 10 s is for people.
        .env("MCP_TIMEOUT", "60000")
        .output()
        .unwrap()
}

/// The scripted model: one turn calling `calls` at once, then `done` to everything.
pub fn calls_then_done(calls: &[Value]) -> Mock {
    Mock::start(
        &serde_json::json!([{"tool_calls": calls}, {"text": "done", "repeat": true}]).to_string(),
    )
}

pub fn result_of(evs: &[Value], id: &str) -> Value {
    evs.iter()
        .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id}"))
        .clone()
}

#[test]
fn a_tool_of_each_real_server_in_one_scripted_turn() {
    let Some((everything, fs, time)) = real_servers() else {
        return;
    };
    let env = Env::new();
    env.trust_project();
    std::fs::create_dir_all(env.cwd.join("data")).unwrap();
    std::fs::write(
        env.cwd.join("data/note.txt"),
        "a note in an allowed folder\n",
    )
    .unwrap();
    std::fs::write(env.cwd.join("secret.txt"), "outside the allowed folder\n").unwrap();
    // The .mcp.json docs/mcp.md shows, with the installed paths.
    std::fs::write(
        env.cwd.join(".mcp.json"),
        serde_json::json!({"mcpServers": {
            "everything": {"command": "node", "args": [everything]},
            "fs": {"command": "node", "args": [fs, env.cwd.join("data")]},
            "time": {"command": time, "args": ["--local-timezone", "UTC"]}
        }})
        .to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(env.cwd.join(".bash-agent")).unwrap();
    std::fs::write(
        env.cwd.join(".bash-agent/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "grep -q '\"rm ' && { echo 'no rm' >&2; exit 2; }; exit 0"}]}]}}"#,
    )
    .unwrap();
    let note = env.cwd.join("data/note.txt");
    let secret = env.cwd.join("secret.txt");
    let mock = Mock::start(
        &serde_json::json!([
            {"tool_calls": [
              {"name": "mcp__everything__echo", "id": "e1", "input": {"message": "hi-mcp"}},
              {"name": "mcp__everything__get-sum", "id": "e2", "input": {"a": 2, "b": 40}},
              {"name": "mcp__everything__get-tiny-image", "id": "e3", "input": {}},
              {"name": "mcp__everything__get-env", "id": "e4", "input": {}},
              {"name": "mcp__everything__get-structured-content", "id": "e5", "input": {"location": "Chicago"}},
              {"name": "mcp__fs__read_text_file", "id": "f1", "input": {"path": note}},
              {"name": "mcp__fs__read_text_file", "id": "f2", "input": {"path": secret}},
              {"name": "mcp__time__get_current_time", "id": "t1", "input": {"timezone": "UTC"}},
              {"name": "Bash", "id": "b1", "input": {"command": "rm -f data/note.txt"}}]},
            {"text": "done", "repeat": true}
        ])
        .to_string(),
    );
    let out = run_with_key(&env, &mock, &["--session", "s", "go"]);
    expect_code(&out, 0);
    assert!(!stderr(&out).contains("not available"), "{}", stderr(&out));
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    let text = |id: &str| result_of(&evs, id)["content"].as_str().unwrap().to_string();
    // The calls are recorded in the built-in shapes, with the prefixed name.
    let call = evs
        .iter()
        .find(|e| e["type"] == "tool_call" && e["id"] == "e1");
    assert!(
        call.is_some_and(|c| c["name"] == "mcp__everything__echo"),
        "{evs:?}"
    );
    assert_eq!(text("e1"), "Echo: hi-mcp");
    assert_eq!(text("e2"), "The sum of 2 and 40 is 42.");
    assert!(text("e3").contains("[image: image/png, "), "{}", text("e3"));
    assert!(!text("e4").contains(KEY) && !text("e4").contains("ANTHROPIC_API_KEY"));
    assert!(text("e4").contains("PATH"), "{}", text("e4"));
    assert_eq!(
        result_of(&evs, "e5")["structured"]["conditions"],
        "Light rain / drizzle"
    );
    assert_eq!(text("f1"), "a note in an allowed folder");
    assert!(text("f2").starts_with("Error: "), "{}", text("f2"));
    assert!(text("f2").contains("ccess denied"), "{}", text("f2"));
    assert!(
        text("t1").contains("\"timezone\": \"UTC\""),
        "{}",
        text("t1")
    );
    assert_eq!(text("b1"), "Error: PreToolUse hook blocked Bash: no rm");
    assert!(note.exists());
    // The model saw the tools (with their schemas) and, in the next request, the results.
    let reqs = mock.requests();
    let first = reqs[0]["body"].to_string();
    for t in [
        "mcp__everything__echo",
        "mcp__fs__read_text_file",
        "mcp__time__get_current_time",
    ] {
        assert!(first.contains(t), "{t} not offered");
    }
    let next = reqs[1]["body"].to_string();
    for s in [
        "Echo: hi-mcp",
        "is 42.",
        "a note in an allowed folder",
        "\\\"timezone\\\": \\\"UTC\\\"",
        "no rm",
    ] {
        assert!(next.contains(s), "{s} not in the next request");
    }
    let leaked = crate::support::checks::files_containing(&env.home, KEY.as_bytes());
    assert!(leaked.is_empty(), "the key reached {leaked:?}");
    // The servers ended with the run: nothing started from this project's paths is left.
    let left = processes_mentioning(&env.cwd.to_string_lossy());
    assert!(left.is_empty(), "left running: {left:?}");
}

/// Processes whose command line contains `needle` (orphan checks).
pub fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if !e
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(needle) {
            out.push(cmd);
        }
    }
    out
}

/// A file under tests/fixtures/ (fake MCP servers, hook scripts).
pub fn ext_fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

#[test]
fn streamable_http_transport_against_server_everything() {
    let Some((everything, _, _)) = real_servers() else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = std::process::Command::new("node")
        .arg(&everything)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _server = crate::support::checks::Guard(server);
    wait_until("server-everything to listen", 60, || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    let env = Env::new();
    env.trust_project();
    std::fs::write(
        env.cwd.join(".mcp.json"),
        serde_json::json!({"mcpServers": {"web": {"type": "http",
            "url": format!("http://127.0.0.1:{port}/mcp"),
            "headers": {"X-Test": "${BASH_AGENT_NO_SUCH_VAR:-yes}"}}}})
        .to_string(),
    )
    .unwrap();
    let mock = Mock::start(
        r#"[{"tool_calls": [
              {"name": "mcp__web__echo", "id": "h1", "input": {"message": "over http"}},
              {"name": "mcp__web__get-sum", "id": "h2", "input": {"a": 1, "b": 2}}]},
            {"text": "done", "repeat": true}]"#,
    );
    let out = run_with_key(&env, &mock, &["--session", "s", "go"]);
    expect_code(&out, 0);
    assert!(!stderr(&out).contains("not available"), "{}", stderr(&out));
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    assert_eq!(result_of(&evs, "h1")["content"], "Echo: over http");
    assert_eq!(result_of(&evs, "h2")["content"], "The sum of 1 and 2 is 3.");
    assert!(mock.requests()[1]["body"]
        .to_string()
        .contains("Echo: over http"));
    // `mcp get` starts it too: ping and the tool list.
    let got = env.run(&["mcp", "get", "web"]);
    expect_code(&got, 0);
    assert!(stdout(&got).contains("echo"), "{}", stdout(&got));
}
