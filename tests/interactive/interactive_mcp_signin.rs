//! Signing in to an OAuth-protected MCP server end to end, against a local authorization
//! server (tests/support/oauth_server.rs): a headless run fails at once naming the command;
//! `bash-agent mcp login srv` in a terminal with no browser prints the URL (as over SSH),
//! the person opens it (here: the test follows it), the loopback listener takes the code,
//! and the token is stored 0600 under the user's home; `mcp list` says signed in; an
//! expired token is refreshed; an interactive session uses the server's tool and `/mcp`
//! shows the state; the token never reaches the model, the events or the project; `mcp
//! logout` forgets it.
use crate::support::oauth_server::OAuthServer;
use crate::support::tmux::{have_tmux, Run, Tmux};
use crate::support::*;
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

#[test]
fn sign_in_use_and_sign_out_of_an_oauth_mcp_server() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let srv = OAuthServer::start();
    let add = env.run(&[
        "mcp",
        "add",
        "srv",
        "--scope",
        "user",
        "--transport",
        "http",
        &srv.mcp_url(),
    ]);
    expect_code(&add, 0);

    // Headless, not signed in: fails at once, naming the command; no browser, no wait.
    let mock = Mock::start(
        r#"[{"tool_calls": [{"name": "mcp__srv__whoami", "id": "w", "input": {}}]}, {"text": "done", "repeat": true}]"#,
    );
    let t0 = Instant::now();
    let out = env.run(&["--base-url", &mock.base("claude"), "--api-key", "k", "go"]);
    assert!(t0.elapsed() < Duration::from_secs(15));
    assert!(
        stderr(&out).contains("bash-agent mcp login srv"),
        "{}",
        stderr(&out)
    );
    assert!(srv.seen.lock().unwrap().authorize.is_empty());

    // `mcp login` in a terminal without a browser: the URL is printed.
    let t = Tmux::for_env(&env);
    let script = env.dir.path().join("login.sh");
    std::fs::write(
        &script,
        format!(
            "cd '{}' && env -i PATH='{}' HOME='{h}' BASH_AGENT_HOME='{h}' '{}' mcp login srv; echo \"rc=$?\"; sleep 60",
            env.cwd.display(),
            std::env::var("PATH").unwrap_or_default(),
            BIN,
            h = env.home.display()
        ),
    )
    .unwrap();
    t.run(&[
        "new-session",
        "-d",
        "-s",
        "login",
        "-x",
        "120",
        "-y",
        "40",
        &format!("sh '{}'", script.display()),
    ]);
    let diag = || t.screen("login");
    wait_until_or(
        "the sign-in URL",
        30,
        || t.screen("login").contains("/authorize?"),
        diag,
    );
    let screen = t.screen("login");
    assert!(
        screen.contains("by opening this URL in a browser"),
        "{screen}"
    );
    let link = screen
        .split_whitespace()
        .find(|w| w.starts_with(&format!("{}/authorize?", srv.url)))
        .expect("the URL")
        .to_string();
    // The person opens it: the authorization server redirects to the loopback listener.
    let page = ureq::get(&link).call().unwrap().into_string().unwrap();
    assert!(page.contains("Signed in"), "{page}");
    wait_until_or("signed in", 30, || t.screen("login").contains("rc=0"), diag);
    assert!(
        t.screen("login")
            .contains("Signed in to MCP server srv: connected, 1 tool(s)"),
        "{}",
        diag()
    );
    {
        let s = srv.seen.lock().unwrap();
        let q = &s.authorize[0];
        assert_eq!(q["code_challenge_method"], "S256");
        assert_eq!(q["resource"], srv.mcp_url());
        assert_eq!(q["scope"], "mcp:tools");
        assert!(q["redirect_uri"].starts_with("http://127.0.0.1:"));
        assert_eq!(s.token[0]["resource"], srv.mcp_url());
    }
    // The listener is closed after its one answer.
    assert!(ureq::get(&link).call().is_err());

    // Stored under the user's home, 0600; nothing in the project.
    let dir = env.home.join(".bash-agent/mcp-auth");
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    assert_eq!(
        files[0].metadata().unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
        0o700
    );
    let list = env.run(&["mcp", "list"]);
    assert!(stdout(&list).contains("(signed in)"), "{}", stdout(&list));

    // The access token expires: the next run refreshes it with the refresh token.
    let file = files[0].path();
    let mut saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    saved["expires_at"] = 1.into();
    std::fs::write(&file, saved.to_string()).unwrap();

    // An interactive session uses the tool with the stored token.
    let mock = Mock::start(
        r#"[{"when": "who am i", "tool_calls": [{"name": "mcp__srv__whoami", "id": "w", "input": {}}]}, {"text": "You are the tester.", "repeat": true}]"#,
    );
    let run = Run::start_with(
        &t,
        &env,
        "chat",
        &mock.base("claude"),
        "NO_COLOR=1 TERM=xterm-256color",
        "--allow mcp__srv",
    );
    let w = run.name.as_str();
    let diag = || t.diag(w, &mock);
    wait_until_or("the prompt", 30, || t.last_line(w) == ">", diag);
    t.type_text(w, "who am i");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the answer",
        30,
        || t.screen(w).contains("You are the tester."),
        diag,
    );
    {
        let s = srv.seen.lock().unwrap();
        assert!(
            s.token.iter().any(|f| f["grant_type"] == "refresh_token"),
            "no refresh"
        );
        assert_eq!(s.issued.len(), 2);
    }
    let now: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(now["access_token"], "at-SECRET-2");
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // `/mcp` shows the server and its sign-in state.
    t.type_text(w, "/mcp");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "/mcp",
        30,
        || t.screen(w).contains("srv  connected, 1 tool(s); signed in"),
        diag,
    );
    let reqs = mock.requests();
    let last = reqs.last().unwrap()["body"].to_string();
    assert!(last.contains("hello tester, you are signed in"), "{last}");
    // The token and the client secret reach neither the model nor the session's files.
    let mut seen_text = serde_json::to_string(&reqs).unwrap();
    for f in ["events.jsonl", "conversation.jsonl"] {
        seen_text.push_str(&env.read("s", f));
    }
    assert!(!seen_text.contains("at-SECRET") && !seen_text.contains("local-secret-SHHH"));
    assert!(!seen_text.contains("the-code"));

    // Sign out: the tokens are gone, the next headless run names the command again.
    let out = env.run(&["mcp", "logout", "srv"]);
    assert!(
        stdout(&out).contains("Signed out of MCP server srv"),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    assert!(!stdout(&env.run(&["mcp", "list"])).contains("signed in"));
}
