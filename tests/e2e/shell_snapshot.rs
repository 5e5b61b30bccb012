//! The shell snapshot (docs/tools-and-policy.md, "Bash"): a login profile's function,
//! alias and exported variable reach foreground and background Bash calls through the
//! session's snapshot; its secrets never reach the snapshot file; a profile change
//! refreshes it; `BASH_AGENT_SHELL_SNAPSHOT=0` logs in for every command instead.
use crate::support::*;
use std::os::unix::fs::PermissionsExt;

const PROFILE: &str = r#"echo "profile noise"
greet() { echo "hello from fn $1"; }
alias hi='echo alias-ok'
export MY_PROFILE_VAR=from-profile
export GITHUB_TOKEN=ghp_profile_secret_1
export INNOCENT_LOOKING="sk-test-PLANTED"
"#;

const SCRIPT: &str = r#"[
  {"when": "tool_result", "repeat": true, "text": "Done."},
  {"repeat": true, "tool_calls": [
    {"name": "Bash", "id": "b1", "input": {"command": "greet fg; hi; echo var=$MY_PROFILE_VAR; echo tok=$GITHUB_TOKEN"}},
    {"name": "Bash", "id": "b2", "input": {"command": "greet bg", "background": true}}
  ]}
]"#;

fn result(env: &Env, id: &str) -> String {
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    evs.iter()
        .rev()
        .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == id)
        .and_then(|e| e["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

fn bg_output(env: &Env) -> String {
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    evs.iter()
        .rev()
        .find(|e| e["type"] == "async_task_result")
        .and_then(|e| e["output"].as_str())
        .unwrap_or_default()
        .to_string()
}

fn run(env: &Env, mock: &Mock, snapshot: Option<&str>) {
    run_with(env, mock, snapshot, "run them")
}

fn run_with(env: &Env, mock: &Mock, snapshot: Option<&str>, prompt: &str) {
    let mut c = env.cmd();
    c.args([
        "--provider",
        "claude",
        "--base-url",
        &mock.base("claude"),
        "--api-key",
        "sk-test-PLANTED",
        "--session",
        "s",
        prompt,
    ]);
    if let Some(v) = snapshot {
        c.env("BASH_AGENT_SHELL_SNAPSHOT", v);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn login_profile_reaches_commands_through_the_snapshot() {
    let env = Env::new();
    std::fs::write(env.home.join(".bash_profile"), PROFILE).unwrap();
    let mock = Mock::start(SCRIPT);
    run(&env, &mock, None);
    // The profile's noise is printed once, at the capture, not into every command.
    assert_eq!(
        result(&env, "b1"),
        "hello from fn fg\nalias-ok\nvar=from-profile\ntok="
    );
    assert_eq!(bg_output(&env), "hello from fn bg\n");
    let snap = env.session_dir("s").join("shell-snapshot.sh");
    let text = std::fs::read_to_string(&snap).unwrap();
    let mode = std::fs::metadata(&snap).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(text.contains("MY_PROFILE_VAR"));
    assert!(!text.contains("ghp_profile_secret_1"), "{text}");
    assert!(!text.contains("sk-test-PLANTED"), "{text}");

    // A changed profile means a new snapshot.
    std::fs::write(
        env.home.join(".bash_profile"),
        PROFILE.replace("from-profile", "changed-profile"),
    )
    .unwrap();
    set_mtime(&env.home.join(".bash_profile"), 1_700_000_000);
    let again = Mock::start(
        r#"[
      {"when": "again\"}]", "tool_calls": [{"name": "Bash", "id": "b3", "input": {"command": "echo var=$MY_PROFILE_VAR"}}]},
      {"repeat": true, "text": "Done."}
    ]"#,
    );
    run_with(&env, &again, None, "again");
    assert_eq!(result(&env, "b3"), "var=changed-profile");
}

#[test]
fn snapshot_off_logs_in_for_every_command() {
    let env = Env::new();
    std::fs::write(env.home.join(".bash_profile"), PROFILE).unwrap();
    let mock = Mock::start(SCRIPT);
    run(&env, &mock, Some("0"));
    // A login shell per command: the profile prints into every result, and (as before
    // the snapshot) a non-interactive login shell expands no aliases.
    let r = result(&env, "b1");
    assert!(
        r.starts_with("profile noise\nhello from fn fg\n") && r.contains("var=from-profile"),
        "{r}"
    );
    assert!(!env.session_dir("s").join("shell-snapshot.sh").exists());
}
