//! Streamable HTTP in full, against tests/fixtures/mcp/http_server.py on 127.0.0.1: a
//! server request on the session's standalone GET stream (elicitation, answered headless by
//! a cancel, or by the schema defaults on request), a call stream closed early and resumed
//! with Last-Event-ID after `retry` (the request never sent twice), one closed with nothing
//! to resume from (an error, no restart), a stream that never ends (bounded by the tool
//! timeout), answers over the 16 MiB cap failing at once (HTTP and stdio), roots, and the
//! resource tools.
use crate::ext_mcp_hooks::{calls_then_done, ext_fixture as fixture, key_cmd, result_of};
use crate::support::*;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

struct Server {
    url: String,
    log: PathBuf,
    _guard: crate::support::checks::Guard,
    _dir: tempfile::TempDir,
}

fn http_server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let (port_file, log) = (dir.path().join("port"), dir.path().join("log.jsonl"));
    let child = std::process::Command::new("python3")
        .arg(fixture("mcp/http_server.py"))
        .args([&port_file, &log])
        .spawn()
        .unwrap();
    let guard = crate::support::checks::Guard(child);
    wait_until("the HTTP MCP server to listen", 30, || port_file.is_file());
    let port = std::fs::read_to_string(&port_file).unwrap();
    Server {
        url: format!("http://127.0.0.1:{}/mcp", port.trim()),
        log,
        _guard: guard,
        _dir: dir,
    }
}

impl Server {
    fn log(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

/// One scripted turn calling `calls` (name, id) of server `web` at `url`.
fn run(
    url: &str,
    calls: &[(&str, &str)],
    envs: &[(&str, &str)],
) -> (Env, std::process::Output, Vec<Value>) {
    let env = Env::new();
    env.trust_project();
    std::fs::write(
        env.cwd.join(".mcp.json"),
        json!({"mcpServers": {"web": {"type": "http", "url": url}}}).to_string(),
    )
    .unwrap();
    let calls: Vec<Value> = calls
        .iter()
        .map(|(n, id)| json!({"name": n, "id": id, "input": {}}))
        .collect();
    let mock = calls_then_done(&calls);
    let out = key_cmd(&env, &mock, &["--session", "s", "go"])
        .env("MCP_TIMEOUT", "30000")
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    (env, out, evs)
}

fn text(evs: &[Value], id: &str) -> String {
    result_of(evs, id)["content"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn an_elicitation_on_the_get_stream_is_answered_headless() {
    let srv = http_server();
    let (_env, out, evs) = run(
        &srv.url,
        &[("mcp__web__ask", "a")],
        &[("MCP_TOOL_TIMEOUT", "20000")],
    );
    expect_code(&out, 0);
    // Before: the request sat on a GET stream nobody opened and the call hung to its timeout.
    assert_eq!(text(&evs, "a"), "got: {\"action\": \"cancel\"}");
    assert!(
        stderr(&out).contains(
            "MCP server web asked for input (\"Pick a colour\"); this run cannot ask (headless)"
        ),
        "{}",
        stderr(&out)
    );
    let log = srv.log();
    let init = log.iter().find(|e| e["method"] == "initialize").unwrap();
    assert_eq!(
        init["body"]["params"]["capabilities"]["elicitation"],
        json!({"form": {}})
    );
    assert!(log.iter().any(|e| e["verb"] == "GET"));
    // Defaults on request (automation): accepted with the schema's defaults.
    let srv = http_server();
    let (_env, out, evs) = run(
        &srv.url,
        &[("mcp__web__ask", "a")],
        &[
            ("MCP_TOOL_TIMEOUT", "20000"),
            ("BASH_AGENT_MCP_ELICIT", "defaults"),
        ],
    );
    expect_code(&out, 0);
    let got: Value = serde_json::from_str(text(&evs, "a").trim_start_matches("got: ")).unwrap();
    assert_eq!(
        got,
        json!({"action": "accept", "content": {"colour": "blue", "count": 3}})
    );
}

#[test]
fn a_closed_call_stream_is_resumed_with_last_event_id_after_retry() {
    let srv = http_server();
    let (_env, out, evs) = run(
        &srv.url,
        &[("mcp__web__drop", "d"), ("mcp__web__drop_noid", "n")],
        &[("MCP_TOOL_TIMEOUT", "20000")],
    );
    expect_code(&out, 0);
    assert_eq!(text(&evs, "d"), "resumed after p1");
    let log = srv.log();
    let calls: Vec<&Value> = log
        .iter()
        .filter(|e| e["method"] == "tools/call" && e["body"]["params"]["name"] == "drop")
        .collect();
    assert_eq!(calls.len(), 1, "the request is never sent again: {log:?}");
    assert!(
        log.iter()
            .any(|e| e["verb"] == "GET" && e["last_event_id"] == "p1"),
        "{log:?}"
    );
    // Nothing to resume from: an error that says so, and the server is not restarted.
    let n = text(&evs, "n");
    assert!(
        n.contains("closed the call's stream before its answer") && !n.contains("died"),
        "{n}"
    );
    assert_eq!(
        log.iter().filter(|e| e["method"] == "initialize").count(),
        1
    );
}

#[test]
fn a_stream_that_never_ends_and_answers_over_the_cap_fail_in_bounded_time() {
    let srv = http_server();
    let t0 = Instant::now();
    let (_env, out, evs) = run(
        &srv.url,
        &[
            ("mcp__web__huge_json", "j"),
            ("mcp__web__huge_sse", "s"),
            ("mcp__web__forever", "f"),
        ],
        &[("MCP_TOOL_TIMEOUT", "3000")],
    );
    expect_code(&out, 0);
    for id in ["j", "s"] {
        let t = text(&evs, id);
        assert!(t.contains("larger than 16 MiB"), "{id}: {t}");
    }
    assert!(
        text(&evs, "f").contains("timed out after 3 s"),
        "{}",
        text(&evs, "f")
    );
    // The over-cap answers failed at once, not at the 3 s timeout each (the SSE one is
    // followed by 30 s of silence on its stream).
    assert!(t0.elapsed() < Duration::from_secs(25), "{:?}", t0.elapsed());
}

#[test]
fn roots_and_resources() {
    let srv = http_server();
    let env_calls = [("mcp__web__roots", "r")];
    let (_env, out, evs) = run(&srv.url, &env_calls, &[]);
    expect_code(&out, 0);
    // No root is offered (a server using roots would take the project folder instead of
    // the folders its arguments limit it to), and roots are not declared.
    assert_eq!(text(&evs, "r"), "roots: {\"roots\": []}");
    let init = srv
        .log()
        .into_iter()
        .find(|e| e["method"] == "initialize")
        .unwrap();
    assert!(init["body"]["params"]["capabilities"]
        .get("roots")
        .is_none());
    // The resource tools, offered because the server declares resources.
    let env = Env::new();
    env.trust_project();
    std::fs::write(
        env.cwd.join(".mcp.json"),
        json!({"mcpServers": {"web": {"type": "http", "url": srv.url}}}).to_string(),
    )
    .unwrap();
    let mock = Mock::start(
        &json!([{"tool_calls": [
            {"name": "ListMcpResourcesTool", "id": "l", "input": {}},
            {"name": "ReadMcpResourceTool", "id": "rd", "input": {"server": "web", "uri": "mem://notes/a"}}]},
            {"text": "done", "repeat": true}])
        .to_string(),
    );
    let args = ["--permission-mode", "default", "--session", "s", "go"];
    let out = key_cmd(&env, &mock, &args).output().unwrap();
    expect_code(&out, 0);
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    assert!(
        text(&evs, "l").contains("\"uri\": \"mem://notes/a\""),
        "{}",
        text(&evs, "l")
    );
    assert!(text(&evs, "l").contains("\"server\": \"web\""));
    assert_eq!(text(&evs, "rd"), "content of mem://notes/a");
}

#[test]
fn stdio_elicitation_and_an_answer_over_the_cap() {
    let env = Env::new();
    env.trust_project();
    let fake = fixture("mcp/fake_server.py").display().to_string();
    std::fs::write(
        env.cwd.join(".mcp.json"),
        json!({"mcpServers": {"fake": {"command": "python3", "args": [fake]}}}).to_string(),
    )
    .unwrap();
    let mock = Mock::start(
        &json!([{"tool_calls": [
            {"name": "mcp__fake__ask", "id": "a", "input": {}},
            {"name": "mcp__fake__huge", "id": "h", "input": {}},
            {"name": "mcp__fake__alpha", "id": "x", "input": {"x": "still here"}}]},
            {"text": "done", "repeat": true}])
        .to_string(),
    );
    let t0 = Instant::now();
    let out = key_cmd(&env, &mock, &["--session", "s", "go"])
        .env("MCP_TIMEOUT", "30000")
        .env("MCP_TOOL_TIMEOUT", "60000")
        .output()
        .unwrap();
    expect_code(&out, 0);
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    assert_eq!(text(&evs, "a"), "got: {\"action\": \"cancel\"}");
    // Before: the line was dropped and the call waited for its 60 s timeout.
    let h = text(&evs, "h");
    assert!(
        h.contains("larger than 16 MiB") && !h.contains("timed out"),
        "{h}"
    );
    assert!(t0.elapsed() < Duration::from_secs(40), "{:?}", t0.elapsed());
    assert_eq!(text(&evs, "x"), "alpha says still here");
}
