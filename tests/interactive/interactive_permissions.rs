//! Permission questions in a real terminal (tmux) and the same model output headless: in
//! the default interactive mode a Bash `rm -rf build` waits for an answer and `n` refuses it
//! with the reason reaching the model; a one-shot run never blocks (refused in `default`,
//! run in the headless default `bypass`).
use crate::support::tmux::{have_tmux, read_events, Run, Tmux};
use crate::support::*;

/// The model asks to delete `build`, then answers whatever the tool result said.
fn script() -> String {
    serde_json::json!([
        {"when": "keep the build", "text": "OK, I left the build alone."},
        {"when": "cannot ask", "text": "Refused headless."},
        {"when": "clean the build", "tool_calls": [
            {"name": "Bash", "id": "call_rm", "input": {"command": "rm -rf build"}}]},
        {"text": "Done."}
    ])
    .to_string()
}

fn make_build(env: &Env) -> std::path::PathBuf {
    let b = env.cwd.join("build");
    std::fs::create_dir_all(&b).expect("mkdir");
    std::fs::write(b.join("out.o"), "x").expect("write");
    b
}

#[test]
fn default_mode_asks_before_rm_and_no_refuses_with_the_reason() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let build = make_build(&env);
    let mock = Mock::start(&script());
    let url = mock.base("claude");
    let events_path = env.session_dir("s").join("events.jsonl");
    let t = Tmux::for_env(&env);
    let run = Run::start(&t, &env, "perm", &url);
    let w = run.name.as_str();
    let diag = || {
        format!(
            "screen:\n{}\nevents:\n{}\nrequests: {}",
            t.screen(w),
            std::fs::read_to_string(&events_path).unwrap_or_default(),
            mock.requests().len()
        )
    };
    wait_until_or("the prompt", 30, || t.last_line(w) == ">", diag);
    t.type_text(w, "clean the build");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the question",
        30,
        || t.screen(w).contains("Allow Bash(rm -rf build)?"),
        diag,
    );
    let s = t.screen(w);
    assert!(s.contains("1. Yes"), "{s}");
    assert!(s.contains("\"don't ask again\" adds: Bash(rm:*)"), "{s}");
    assert!(
        s.contains("5. No, and tell the agent what to do instead"),
        "{s}"
    );
    // The call waits: nothing deleted, no further request.
    assert!(build.join("out.o").exists(), "{}", diag());
    assert_eq!(mock.requests().len(), 1, "{}", diag());
    t.type_text(w, "n keep the build");
    t.keys(w, &["Enter"]);
    wait_until_or(
        "the model's answer to the refusal",
        30,
        || t.screen(w).contains("OK, I left the build alone."),
        diag,
    );
    assert!(build.join("out.o").exists(), "{}", diag());
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 2, "{}", diag());
    let body = reqs[1]["body"].to_string();
    assert!(body.contains("Permission denied"), "{body}");
    assert!(body.contains("The user says: keep the build"), "{body}");
    let perm: Vec<_> = read_events(&events_path)
        .into_iter()
        .filter(|e| e["type"] == "permission")
        .collect();
    assert_eq!(perm.len(), 1, "{}", diag());
    assert_eq!(perm[0]["call"], "Bash(rm -rf build)");
    assert_eq!(perm[0]["decision"], "refused");
    assert_eq!(perm[0]["answer"], "no");
    assert_eq!(perm[0]["reason"], "keep the build");
    t.wait_turn_end(w, &env.project_dir(), diag);
    t.keys(w, &["C-d"]);
    wait_until_or("the exit", 30, || run.rc().is_some(), diag);
    assert_eq!(run.rc().as_deref(), Some("0"), "{}", diag());
}

#[test]
fn headless_runs_never_block_on_a_question() {
    // `default` headless: refused at once, the model is told how to allow it.
    let env = Env::new();
    let build = make_build(&env);
    let mock = Mock::start(&script());
    let url = mock.base("claude");
    let mut c = env.cmd();
    c.args([
        "--provider",
        "claude",
        "--base-url",
        &url,
        "--api-key",
        "k",
        "--permission-mode",
        "default",
        "clean the build",
    ]);
    let mut child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let st = crate::support::checks::wait_timeout(&mut child, 60);
    assert!(st.success(), "{st:?}");
    assert!(build.join("out.o").exists());
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 2);
    let body = reqs[1]["body"].to_string();
    assert!(body.contains("this run cannot ask (headless)"), "{body}");
    assert!(body.contains("--allow 'Bash(rm:*)'"), "{body}");

    // An allow rule lets the same call run headless.
    let env = Env::new();
    let build = make_build(&env);
    let mock = Mock::start(&script());
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &[
            "--permission-mode",
            "default",
            "--allow",
            "Bash(rm:*)",
            "clean the build",
        ],
    );
    expect_code(&o, 0);
    assert!(!build.exists(), "{}", stderr(&o));

    // The headless default stays bypass (the shell version's behaviour).
    let env = Env::new();
    let build = make_build(&env);
    let mock = Mock::start(&script());
    let o = env.agent(&mock.base("claude"), "claude", &["clean the build"]);
    expect_code(&o, 0);
    assert!(!build.exists(), "{}", stderr(&o));
    assert_eq!(mock.requests().len(), 2);

    // A bad mode is a usage error.
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &["--permission-mode", "yolo", "x"],
    );
    expect_code(&o, 2);
    assert!(
        stderr(&o).contains("unknown permission mode"),
        "{}",
        stderr(&o)
    );
}
