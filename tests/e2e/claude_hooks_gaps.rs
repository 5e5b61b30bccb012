//! Issue 40, the rest of Claude Code's protocol through the real binary and the scripted
//! model, with stand-in hook scripts written by the test: SessionStart's `source`
//! (`startup`, `resume`, `clear`, `compact`) and its context; PreCompact's block, `trigger`
//! and `custom_instructions`; PermissionRequest's `updatedInput` and `updatedPermissions`;
//! SubagentStart/SubagentStop in the parent with `agent_type`, `agent_id` and
//! `agent_transcript_path`. Also Claude Code's `/x` in a settings file's Read/Edit rules
//! and `${CLAUDE_SESSION_ID}` in a command.
use crate::ext_mcp_hooks::result_of;
use crate::support::*;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;

/// An executable stand-in at `rel` (under the project).
fn script(env: &Env, rel: &str, body: &str) {
    let p = env.cwd.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, body).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A stand-in that appends its JSON input as one line to `log` (under the project), then
/// prints `out`.
fn logger(log: &str, out: &str) -> String {
    format!(
        "#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' \"$(printf '%s' \"$input\" | tr -d '\\n')\" >> \"$CLAUDE_PROJECT_DIR/{log}\"\nprintf '%s' '{out}'\n"
    )
}

fn lines(env: &Env, log: &str) -> Vec<Value> {
    std::fs::read_to_string(env.cwd.join(log))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `.claude/settings.json` with `v`, the folder trusted.
fn settings(env: &Env, v: Value) {
    std::fs::create_dir_all(env.cwd.join(".claude")).unwrap();
    std::fs::write(env.cwd.join(".claude/settings.json"), v.to_string()).unwrap();
    env.trust_project();
}

fn hook(cmd: &str) -> Value {
    json!([{"hooks": [{"type": "command", "command": cmd}]}])
}

fn text(evs: &[Value], id: &str) -> String {
    result_of(evs, id)["content"].as_str().unwrap().to_string()
}

/// Claude Code reads `/x` in a Read/Edit rule against the settings file's root, not the
/// working directory: from a sub-folder, `Read(/notes.txt)` still denies the project's
/// `notes.txt` (our own syntax would have read it as `sub/notes.txt`).
#[test]
fn claude_slash_path_in_a_rule_is_the_settings_files_root() {
    let env = Env::new();
    std::fs::create_dir_all(env.cwd.join(".git")).unwrap();
    std::fs::create_dir_all(env.cwd.join(".claude")).unwrap();
    std::fs::write(
        env.cwd.join(".claude/settings.json"),
        json!({"permissions": {"deny": ["Read(/notes.txt)"]}}).to_string(),
    )
    .unwrap();
    std::fs::write(env.cwd.join("notes.txt"), "TOP-SECRET-7").unwrap();
    let sub = env.cwd.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("notes.txt"), "SUB-FILE-3").unwrap();
    let mock = Mock::start(
        &json!([{"tool_calls": [
            {"name": "Read", "id": "top", "input": {"path": "../notes.txt"}},
            {"name": "Read", "id": "sub", "input": {"path": "notes.txt"}}]},
            {"text": "done", "repeat": true}])
        .to_string(),
    );
    let mut c = env.cmd_in(
        &sub,
        &[
            "--provider",
            "claude",
            "--base-url",
            &mock.base("claude"),
            "--api-key",
            "sk-test-x",
            "--session",
            "s",
            "go",
        ],
    );
    let out = c.output().unwrap();
    expect_code(&out, 0);
    let evs = events(&env.project_dir_for(&sub).join("s/events.jsonl"));
    let top = text(&evs, "top");
    assert!(
        top.contains("Permission denied") && !top.contains("TOP-SECRET-7"),
        "{top}"
    );
    let s = text(&evs, "sub");
    assert!(s.contains("SUB-FILE-3"), "{s}");
}

/// `${CLAUDE_SESSION_ID}` in a command is the session's id, as in Claude Code.
#[test]
fn claude_session_id_in_a_command_is_replaced() {
    let env = Env::new();
    let p = env.cwd.join(".claude/commands/log.md");
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, "Log to /tmp/${CLAUDE_SESSION_ID}.log: $ARGUMENTS\n").unwrap();
    let mock = Mock::start(r#"[{"text":"done.","repeat":true}]"#);
    let out = env.agent(
        &mock.base("claude"),
        "claude",
        &["--session", "sx9", "/log hi"],
    );
    expect_code(&out, 0);
    let req = mock.records().pop().unwrap();
    let body = req["body"]["messages"].to_string();
    assert!(body.contains("Log to /tmp/sx9.log: hi"), "{body}");
}
