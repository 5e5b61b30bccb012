//! An MCP server's prompt and elicitation in a real terminal (tmux), against
//! tests/fixtures/mcp/http_server.py: `/mcp__web__greet Marie` becomes the turn's message,
//! and a tool whose server asks for input (on its standalone GET stream) shows the question
//! with its fields; the answers, checked against the schema, reach the server;
//! `@web:mem://notes/a` attaches that resource.
use crate::support::tmux::{have_tmux, Run, Tmux};
use crate::support::*;
use serde_json::json;
use std::path::PathBuf;

#[test]
fn an_mcp_prompt_is_a_slash_command_and_an_elicitation_is_asked() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("port");
    let server = std::process::Command::new("python3")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/http_server.py"))
        .arg(&port_file)
        .arg(dir.path().join("log.jsonl"))
        .spawn()
        .unwrap();
    let _server = crate::support::checks::Guard(server);
    wait_until("the HTTP MCP server to listen", 30, || port_file.is_file());
    let port = std::fs::read_to_string(&port_file).unwrap();
    env.trust_project();
    std::fs::write(
        env.cwd.join(".mcp.json"),
        json!({"mcpServers": {"web": {"type": "http",
            "url": format!("http://127.0.0.1:{}/mcp", port.trim())}}})
        .to_string(),
    )
    .unwrap();
    let mock = Mock::start(
        &json!([
            {"when": "Say hello to Marie in French", "text": "Bonjour Marie !"},
            {"when": "got: ", "text": "Colour noted."},
            {"when": "pick a colour", "tool_calls": [{"name": "mcp__web__ask", "id": "k", "input": {}}]},
            {"when": "summarise", "text": "Summary done."},
            {"text": "Done.", "repeat": true}
        ])
        .to_string(),
    );
    let t = Tmux::for_env(&env);
    let run = Run::start_with(
        &t,
        &env,
        "mcpask",
        &mock.base("claude"),
        "NO_COLOR=1 TERM=xterm-256color",
        "--allow mcp__web",
    );
    let w = run.name.as_str();
    let diag = || t.diag(w, &mock);
    wait_until_or("the prompt", 30, || t.last_line(w) == ">", diag);
    let send = |line: &str| {
        t.type_text(w, line);
        t.keys(w, &["Enter"]);
    };
    let shown = |what: &str, text: &str| {
        wait_until_or(what, 30, || t.screen(w).contains(text), diag);
    };
    send("/mcp__web__greet Marie");
    shown("the prompt's answer", "Bonjour Marie !");
    wait_until_or("the prompt", 30, || t.idle_prompt(w), diag);
    // /help lists the running servers' prompts.
    send("/help");
    shown("the prompts in /help", "/mcp__web__greet <who>");
    wait_until_or("the prompt", 30, || t.idle_prompt(w), diag);
    send("pick a colour");
    shown("the question", "MCP server web asks for input:");
    assert!(t.screen(w).contains("Pick a colour"), "{}", diag());
    send("y");
    shown(
        "the first field",
        "colour (string: red | blue; Enter for \"blue\")",
    );
    // Not one of the choices: asked again.
    send("green");
    shown("the retry", "expected one of: red, blue");
    send("red");
    shown("the second field", "count (integer; Enter for 3)");
    // Enter takes the default.
    t.keys(w, &["Enter"]);
    shown(
        "the review",
        "Send {\"colour\":\"red\",\"count\":3} to web?",
    );
    send("y");
    shown("the model's answer", "Colour noted.");
    let reqs = mock.requests();
    let body = reqs.last().unwrap()["body"].to_string();
    assert!(
        body.contains(
            r#"got: {\"action\": \"accept\", \"content\": {\"colour\": \"red\", \"count\": 3}}"#
        ),
        "{body}"
    );
    // The prompt's text was the first turn's message.
    assert!(reqs[0]["body"]
        .to_string()
        .contains("Say hello to Marie in French"));
    t.keys(w, &["C-d"]);
}
