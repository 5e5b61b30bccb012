//! MCP protocol corners with a small Python server (tests/fixtures/mcp/fake_server.py):
//! a paginated tools/list, list_changed, image and isError results, a server killed mid-call
//! (an error result, one restart, no orphan), a server that never answers `initialize`, a
//! broken server plus a hanging hook, and permission modes and rules on MCP tools.
use crate::ext_mcp_hooks::{
    calls_then_done, ext_fixture as fixture, key_cmd, processes_mentioning, result_of,
    run_with_key, KEY,
};
use crate::support::*;
use serde_json::{json, Value};
use std::path::Path;

fn fake() -> String {
    fixture("mcp/fake_server.py").display().to_string()
}

fn mcp_json(env: &Env, servers: Value) {
    std::fs::write(
        env.cwd.join(".mcp.json"),
        json!({ "mcpServers": servers }).to_string(),
    )
    .unwrap();
    env.trust_project();
}

fn texts(evs: &[Value], id: &str) -> String {
    result_of(evs, id)["content"].as_str().unwrap().to_string()
}

fn pids(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn alive(pid: i32) -> bool {
    // A zombie has been ended; only a running process counts.
    // Callers wait (bounded) for the end: a process SIGKILLed just before the agent exited
    // still needs the CPU once to die, which a loaded machine may not have given it yet.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
}

#[test]
fn pagination_list_changed_images_and_error_results() {
    let env = Env::new();
    mcp_json(
        &env,
        json!({"fake": {"command": "python3", "args": [fake()]}}),
    );
    let mock = Mock::start(
        &json!([
            {"tool_calls": [
              {"name": "mcp__fake__alpha", "id": "a", "input": {"x": "1"}},
              {"name": "mcp__fake__beta", "id": "b", "input": {}},
              {"name": "mcp__fake__image", "id": "i", "input": {}},
              {"name": "mcp__fake__fail", "id": "f", "input": {}},
              {"name": "mcp__fake__env", "id": "e", "input": {}},
              {"name": "mcp__fake__grow", "id": "g", "input": {}}]},
            {"tool_calls": [{"name": "mcp__fake__gamma", "id": "c", "input": {}}]},
            {"text": "done", "repeat": true}
        ])
        .to_string(),
    );
    let out = run_with_key(&env, &mock, &["--session", "s", "go"]);
    expect_code(&out, 0);
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    assert_eq!(texts(&evs, "a"), "alpha says 1");
    // beta is on the second page of tools/list.
    assert_eq!(texts(&evs, "b"), "beta says hi");
    assert_eq!(texts(&evs, "i"), "a picture:\n[image: image/png, 8 bytes]");
    assert_eq!(texts(&evs, "f"), "Error: it failed on purpose");
    let names = texts(&evs, "e");
    assert!(
        names.contains("PATH") && !names.contains("ANTHROPIC_API_KEY"),
        "{names}"
    );
    assert_eq!(texts(&evs, "c"), "gamma is here");
    let reqs = mock.requests();
    let tools = |i: usize| reqs[i]["body"]["tools"].to_string();
    assert!(tools(0).contains("mcp__fake__beta") && !tools(0).contains("mcp__fake__gamma"));
    // After notifications/tools/list_changed the next request offers the new tool.
    assert!(tools(1).contains("mcp__fake__gamma"), "{}", tools(1));
    assert!(reqs[1]["body"]
        .to_string()
        .contains("[image: image/png, 8 bytes]"));
    assert!(!stdout(&out).contains(KEY) && !stderr(&out).contains(KEY));
}

/// Under `--vision on` an MCP tool's image goes to the model as an image (stored in the
/// session's images/ like a pasted one): inside the tool_result for Anthropic, as an image
/// part after the tool message for OpenAI chat. Without vision only the placeholder.
#[test]
fn an_mcp_image_is_sent_as_an_image_under_vision() {
    for (provider, want) in [("claude", "\"type\":\"image\""), ("openai", "image_url")] {
        let env = Env::new();
        mcp_json(
            &env,
            json!({"fake": {"command": "python3", "args": [fake()]}}),
        );
        let mock = Mock::start(
            &json!([
                {"tool_calls": [{"name": "mcp__fake__image", "id": "i", "input": {}}]},
                {"text": "a tiny picture", "repeat": true}
            ])
            .to_string(),
        );
        let mut c = env.cmd();
        c.args(["--provider", provider, "--base-url", &mock.base(provider)])
            .args(["--vision", "on", "--session", "v", "look"])
            .env("ANTHROPIC_API_KEY", KEY)
            .env("OPENAI_API_KEY", KEY)
            .env("MCP_TIMEOUT", "60000");
        let out = c.output().unwrap();
        expect_code(&out, 0);
        let dir = env.session_dir("v");
        assert!(
            dir.join("images/1.png").is_file(),
            "{provider}: no stored image"
        );
        let reqs = mock.requests();
        let body = reqs[1]["body"].to_string();
        assert!(body.contains(want), "{provider}: {body}");
        assert!(body.contains("iVBORw0KGgo="), "{provider}: {body}");
        // The stored result keeps its text shape (the placeholder and the image's path).
        let conv = std::fs::read_to_string(dir.join("conversation.jsonl")).unwrap();
        assert!(conv.contains("[image: image/png, 8 bytes]") && conv.contains("[Image #1] => "));
    }
}

#[test]
fn a_server_killed_mid_call_gives_an_error_and_is_restarted_once() {
    let env = Env::new();
    let slow = env.cwd.join("slow.pids");
    let starts = env.cwd.join("starts.pids");
    mcp_json(
        &env,
        json!({"fake": {"command": "python3", "args": [fake(), "--pid-file", starts],
                        "env": {"FAKE_SLOW_FILE": slow}}}),
    );
    let mock = Mock::start(
        &json!([
            {"tool_calls": [{"name": "mcp__fake__slow", "id": "s1", "input": {}}]},
            {"tool_calls": [{"name": "mcp__fake__alpha", "id": "a1", "input": {"x": "again"}}]},
            {"text": "done", "repeat": true}
        ])
        .to_string(),
    );
    let mut c = env.cmd();
    c.args(["--base-url", &mock.base("claude"), "--api-key", "k"])
        .args(["--session", "s", "go"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    wait_until("the slow call to start", 60, || !pids(&slow).is_empty());
    let victim = pids(&slow)[0];
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(victim),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let st = crate::support::checks::wait_timeout(&mut child, 60);
    assert!(st.success(), "{st:?}");
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    let died = texts(&evs, "s1");
    assert!(
        died.starts_with("Error: MCP server fake died during the call"),
        "{died}"
    );
    assert!(
        died.contains("killed by signal 9") && died.contains("restarted"),
        "{died}"
    );
    assert_eq!(texts(&evs, "a1"), "alpha says again");
    // Started twice (the restart), and neither is left after the run.
    let started = pids(&starts);
    assert_eq!(started.len(), 2, "{started:?}");
    for p in started {
        wait_until(&format!("server {p} to end with the run"), 5, || !alive(p));
    }
}

#[test]
fn a_server_that_never_answers_initialize_is_a_warning() {
    let env = Env::new();
    let starts = env.cwd.join("starts.pids");
    mcp_json(
        &env,
        json!({"stuck": {"command": "python3", "args": [fake(), "--no-init", "--pid-file", starts]},
               "missing": {"command": "/no/such/server"}}),
    );
    let mock = Mock::start(r#"[{"text": "fine", "repeat": true}]"#);
    let out = env
        .cmd()
        .args(["--base-url", &mock.base("claude"), "--api-key", "k", "hi"])
        .env("MCP_TIMEOUT", "1000")
        .output()
        .unwrap();
    expect_code(&out, 0);
    let err = stderr(&out);
    assert!(
        err.contains("MCP server stuck is not available: no answer to initialize within 1000 ms"),
        "{err}"
    );
    assert!(
        err.contains("MCP server missing is not available: cannot start `/no/such/server`"),
        "{err}"
    );
    assert!(!mock.requests()[0]["body"].to_string().contains("mcp__"));
    assert_eq!(stdout(&out).trim(), "fine");
    for p in pids(&starts) {
        wait_until(&format!("stuck server {p} to end with the run"), 5, || {
            !alive(p)
        });
    }
}

#[test]
fn a_broken_server_and_a_hanging_hook_still_give_the_right_exit_code() {
    let env = Env::new();
    let starts = env.cwd.join("starts.pids");
    mcp_json(
        &env,
        json!({"stuck": {"command": "python3", "args": [fake(), "--no-init", "--pid-file", starts]}}),
    );
    let hang = fixture("hooks/hang.sh").display().to_string();
    std::fs::create_dir_all(env.cwd.join(".bash-agent")).unwrap();
    std::fs::write(
        env.cwd.join(".bash-agent/settings.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": format!("bash {hang}"), "timeout": 1}]}]}})
        .to_string(),
    )
    .unwrap();
    let script = r#"[{"tool_calls": [{"name": "Bash", "id": "b", "input": {"command": "echo ran"}}]},
                     {"text": "finished", "repeat": true}]"#;
    let run = |extra: &[&str]| {
        let mock = Mock::start(script);
        env.cmd()
            .args(["--base-url", &mock.base("claude"), "--api-key", "k"])
            .args(extra)
            .env("MCP_TIMEOUT", "1000")
            .output()
            .unwrap()
    };
    let out = run(&["--session", "s", "go"]);
    expect_code(&out, 0);
    let err = stderr(&out);
    assert!(err.contains("MCP server stuck is not available"), "{err}");
    assert!(err.contains("PreToolUse hook `bash "), "{err}");
    assert!(err.contains("timed out after 1 s and was killed"), "{err}");
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    assert_eq!(texts(&evs, "b"), "ran");
    assert!(
        stdout(&out).trim().ends_with("finished"),
        "{}",
        stdout(&out)
    );
    // The hook's whole process group went (its background sleep too).
    let hook_pids = pids(&env.cwd.join("hang.pids"));
    assert_eq!(hook_pids.len(), 2, "{hook_pids:?}");
    for p in hook_pids.into_iter().chain(pids(&starts)) {
        wait_until(&format!("{p} to end with the run"), 5, || !alive(p));
    }
    // A failed run keeps its own exit code with the same broken extensions around it.
    let out = run(&["--max-turns", "1", "--session", "t", "go"]);
    expect_code(&out, 1);
    assert!(
        stderr(&out).contains("Max turns (1) reached"),
        "{}",
        stderr(&out)
    );
    assert!(processes_mentioning(&env.cwd.to_string_lossy()).is_empty());
}

#[test]
fn permission_modes_and_rules_apply_to_mcp_tools() {
    let env = Env::new();
    mcp_json(
        &env,
        json!({"fake": {"command": "python3", "args": [fake()]}}),
    );
    let script = r#"[{"tool_calls": [{"name": "mcp__fake__alpha", "id": "a", "input": {"x": "ok"}}]},
                     {"text": "done", "repeat": true}]"#;
    let run = |args: &[&str]| {
        let mock = Mock::start(script);
        let out = env
            .cmd()
            .args(["--base-url", &mock.base("claude"), "--api-key", "k"])
            .args(args)
            .output()
            .unwrap();
        expect_code(&out, 0);
        let sid = args[args.iter().position(|a| *a == "--session").unwrap() + 1];
        let evs = events(&env.session_dir(sid).join("events.jsonl"));
        (texts(&evs, "a"), mock.requests()[1]["body"].to_string())
    };
    // default mode, headless: refused at once (nobody can answer), the model is told why.
    let (r, next) = run(&["--permission-mode", "default", "--session", "d", "go"]);
    assert!(
        r.starts_with("Error: ") && r.contains("cannot ask (headless)"),
        "{r}"
    );
    assert!(next.contains("cannot ask (headless)"));
    // An allow rule for the whole server lets it run.
    let (r, _) = run(&[
        "--permission-mode",
        "default",
        "--allow",
        "mcp__fake",
        "--session",
        "a",
        "go",
    ]);
    assert_eq!(r, "alpha says ok");
    // A deny rule for one tool refuses it even in bypass mode, naming the rule.
    let (r, _) = run(&["--deny", "mcp__fake__alpha", "--session", "n", "go"]);
    assert!(
        r.starts_with("Error: ") && r.contains("mcp__fake__alpha"),
        "{r}"
    );
    // plan mode refuses MCP tools until the plan is confirmed.
    let (r, _) = run(&["--permission-mode", "plan", "--session", "p", "go"]);
    assert!(r.contains("plan mode"), "{r}");
}

fn cancelled(slow: &Path) -> Vec<Value> {
    std::fs::read_to_string(slow.with_extension("pids.cancelled"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn a_slow_call_times_out_or_is_interrupted_and_is_cancelled_at_the_server() {
    let env = Env::new();
    let slow = env.cwd.join("slow.pids");
    mcp_json(
        &env,
        json!({"fake": {"command": "python3", "args": [fake()], "env": {"FAKE_SLOW_FILE": slow}}}),
    );
    let script = r#"[{"tool_calls": [{"name": "mcp__fake__slow", "id": "s1", "input": {}}]},
                     {"text": "done", "repeat": true}]"#;
    // The per-call timeout (MCP_TOOL_TIMEOUT, ms): an error result and notifications/cancelled.
    let mock = Mock::start(script);
    let out = env
        .cmd()
        .args(["--base-url", &mock.base("claude"), "--api-key", "k"])
        .args(["--session", "t", "go"])
        .env("MCP_TOOL_TIMEOUT", "1000")
        .output()
        .unwrap();
    expect_code(&out, 0);
    let evs = events(&env.session_dir("t").join("events.jsonl"));
    assert_eq!(
        texts(&evs, "s1"),
        "Error: MCP tool mcp__fake__slow timed out after 1 s (the call was cancelled)"
    );
    wait_until("the server to hear the cancellation", 30, || {
        cancelled(&slow).iter().any(|c| c["reason"] == "timed out")
    });
    // Ctrl-C during a call: the run ends as interrupted, the server hears why.
    let mock = Mock::start(script);
    let mut child = env
        .cmd()
        .args(["--base-url", &mock.base("claude"), "--api-key", "k"])
        .args(["--session", "i", "go"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until("the second slow call", 60, || pids(&slow).len() >= 2);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let st = crate::support::checks::wait_timeout(&mut child, 60);
    assert_eq!(st.code(), Some(130), "{st:?}");
    wait_until("the server to hear the interrupt", 30, || {
        cancelled(&slow)
            .iter()
            .any(|c| c["reason"] == "interrupted by the user" && c["requestId"].is_u64())
    });
    for p in pids(&slow) {
        wait_until(&format!("server {p} to end with the run"), 5, || !alive(p));
    }
}

#[test]
fn mcp_subcommands_add_list_get_and_remove() {
    let env = Env::new();
    env.trust_project();
    let f = fake();
    let o = env.run(&["mcp", "add", "-e", "FOO=1", "fake", "--", "python3", &f]);
    expect_code(&o, 0);
    let o = env.run(&[
        "mcp",
        "add",
        "--transport",
        "http",
        "--header",
        "X-A: b",
        "web",
        "http://127.0.0.1:9/mcp",
    ]);
    expect_code(&o, 0);
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(env.cwd.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(
        file["mcpServers"]["fake"],
        json!({"command": "python3", "args": [f], "env": {"FOO": "1"}})
    );
    assert_eq!(
        file["mcpServers"]["web"],
        json!({"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-A": "b"}})
    );
    let o = env.run(&["mcp", "list"]);
    expect_code(&o, 0);
    assert!(
        stdout(&o).contains("fake\tproject\tpython3 ")
            && stdout(&o).contains("web\tproject\thttp://127.0.0.1:9/mcp (http)"),
        "{}",
        stdout(&o)
    );
    // get starts the server: ping and every page of its tools.
    let o = env.run(&["mcp", "get", "fake"]);
    expect_code(&o, 0);
    assert!(
        stdout(&o).contains("status: connected, 9 tool(s)"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("mcp__fake__alpha") && stdout(&o).contains("mcp__fake__fail"));
    let o = env.run(&["mcp", "get", "web"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("MCP server web: "), "{}", stderr(&o));
    // In a git repository the project's .mcp.json is the one at its root.
    std::fs::create_dir_all(env.cwd.join(".git")).unwrap();
    let sub = env.cwd.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let o = env.run_in(&sub, &["mcp", "list"]);
    assert!(stdout(&o).contains("fake\tproject\t"), "{}", stdout(&o));
    expect_code(&env.run(&["mcp", "remove", "fake"]), 0);
    expect_code(&env.run(&["mcp", "remove", "fake"]), 2);
}

#[test]
fn clashing_tool_names_a_non_utf8_line_and_a_huge_line() {
    let env = Env::new();
    let odd = fixture("mcp/odd_server.py").display().to_string();
    mcp_json(&env, json!({"odd": {"command": "python3", "args": [odd]}}));
    let long = "x".repeat(69);
    let raw = ["a b", "a_b", &format!("{long}A"), &format!("{long}B")];
    let names: Vec<String> = raw
        .iter()
        .map(|t| bash_agent::mcp::full_name("odd", t))
        .collect();
    let calls: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"name": n, "id": format!("c{i}"), "input": {}}))
        .collect();
    let mock = calls_then_done(&calls);
    let mut c = key_cmd(&env, &mock, &["--session", "s", "go"]);
    c.env("MCP_TIMEOUT", "120000");
    let (out, peak_kb) = crate::support::checks::output_with_peak_rss(&mut c, 300);
    expect_code(&out, 0);
    eprintln!("agent peak: {peak_kb} KB");
    // The server survived its non-UTF-8 line and its 100 MB line, which were not held whole.
    assert!(peak_kb < 80_000, "the agent peaked at {peak_kb} KB");
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    for (i, t) in raw.iter().enumerate() {
        assert_eq!(texts(&evs, &format!("c{i}")), format!("called {t}"));
    }
    let tools = mock.requests()[0]["body"]["tools"].clone();
    let got: Vec<String> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .filter(|n| n.starts_with("mcp__odd__"))
        .collect();
    assert_eq!(got.len(), 4, "{got:?}");
    let unique: std::collections::HashSet<&String> = got.iter().collect();
    assert_eq!(unique.len(), 4, "names must be unique: {got:?}");
    for n in &got {
        assert!(n.len() <= 64, "{n}");
        assert!(
            n.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c)),
            "{n}"
        );
    }
}
