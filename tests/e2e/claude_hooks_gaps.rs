//! Issue 40, the rest of Claude Code's protocol through the real binary and the scripted
//! model, with stand-in hook scripts written by the test: SessionStart's `source`
//! (`startup`, `resume`, `clear`, `compact`) and its context; PreCompact's block, `trigger`
//! and `custom_instructions`; PermissionRequest's `updatedInput` and `updatedPermissions`;
//! SubagentStart/SubagentStop in the parent with `agent_type`, `agent_id` and
//! `agent_transcript_path`. Also Claude Code's `/x` in a settings file's Read/Edit rules
//! and `${CLAUDE_SESSION_ID}` in a command.
use crate::ext_mcp_hooks::result_of;
use crate::support::hook_scripts::{lines, logger, script, settings};
use crate::support::*;
use serde_json::{json, Value};

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

/// The agent in the project with `args`, against `mock` (with extra environment `envs`).
fn agent(env: &Env, mock: &Mock, envs: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args(["--api-key", "sk-test-x"])
        .args(args);
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// SessionStart's `source` as Claude Code sends it (`startup`, `resume` for an existing
/// session, `clear` for the run a `/clear` restart starts, `compact` after a compaction),
/// its stdout the next request's context (after a compaction: with the summary, in the
/// system prompt). PreCompact gets `trigger` and `custom_instructions` and may block, by
/// exit 2 or by `decision: "block"`: the conversation stays as it was.
#[test]
fn claude_session_start_sources_and_pre_compact_block() {
    let env = Env::new();
    script(
        &env,
        ".claude/start.sh",
        &format!(
            "{}src=$(printf '%s' \"$input\" | sed 's/.*\"source\":\"\\([a-z]*\\)\".*/\\1/')\necho \"START-CTX-$src\"\n",
            logger("start.jsonl")
        ),
    );
    script(
        &env,
        ".claude/precompact.sh",
        &format!(
            "{}case \"$input\" in *BLOCKME*) echo 'not now, the API is half done' >&2; exit 2;; *JSONBLOCK*) echo '{{\"decision\":\"block\",\"reason\":\"json says no\"}}';; esac\n",
            logger("pre.jsonl")
        ),
    );
    settings(
        &env,
        json!({"hooks": {"SessionStart": hook("\"$CLAUDE_PROJECT_DIR\"/.claude/start.sh"),
                         "PreCompact": hook("\"$CLAUDE_PROJECT_DIR\"/.claude/precompact.sh")}}),
    );
    let mock = Mock::start(r#"[{"text":"ok.","repeat":true}]"#);
    let last = |m: &Mock| m.records().pop().unwrap()["body"].to_string();
    for i in 0..5 {
        let o = agent(&env, &mock, &[], &["--session", "s", &format!("turn {i}")]);
        expect_code(&o, 0);
        let want = if i == 0 {
            "START-CTX-startup"
        } else {
            "START-CTX-resume"
        };
        assert!(last(&mock).contains(want), "{i}: {}", last(&mock));
    }
    let o = agent(
        &env,
        &mock,
        &[("BASH_AGENT_CLEARED", "1")],
        &["--session", "c", "hi"],
    );
    expect_code(&o, 0);
    assert!(last(&mock).contains("START-CTX-clear"));
    let sources: Vec<Value> = lines(&env, "start.jsonl")
        .iter()
        .map(|l| l["source"].clone())
        .collect();
    assert_eq!(sources[..2], [json!("startup"), json!("resume")]);
    assert_eq!(sources.last().unwrap(), "clear");

    let conv = env.session_dir("s").join("conversation.jsonl");
    let before = std::fs::read_to_string(&conv).unwrap();
    for (text, why) in [
        ("/compact BLOCKME now", "not now, the API is half done"),
        ("/compact JSONBLOCK now", "json says no"),
    ] {
        let o = agent(&env, &mock, &[], &["--session", "s", text]);
        let err = stderr(&o);
        assert!(
            err.contains(&format!("compaction blocked by a PreCompact hook: {why}")),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&conv).unwrap(), before);
    }
    let n = lines(&env, "start.jsonl").len();
    let o = agent(
        &env,
        &mock,
        &[],
        &["--session", "s", "/compact keep the API"],
    );
    expect_code(&o, 0);
    assert_ne!(std::fs::read_to_string(&conv).unwrap(), before, "compacted");
    let pre = lines(&env, "pre.jsonl");
    let p = pre.last().unwrap();
    assert_eq!(p["trigger"], "manual");
    assert_eq!(p["custom_instructions"], "keep the API");
    assert_eq!(pre[0]["custom_instructions"], "BLOCKME now");
    let starts = lines(&env, "start.jsonl");
    assert_eq!(starts.len(), n + 2, "resume, then compact: {starts:?}");
    assert_eq!(starts.last().unwrap()["source"], "compact");
    let o = agent(&env, &mock, &[], &["--session", "s", "after"]);
    expect_code(&o, 0);
    let req = mock.records().pop().unwrap();
    assert!(
        req["body"]["system"]
            .to_string()
            .contains("START-CTX-compact"),
        "{}",
        req["body"]["system"]
    );
}

/// PermissionRequest's allow with `updatedInput` runs the rewritten call, checked again by
/// the gate (a deny rule holds for the new command); its `updatedPermissions` add rules for
/// the session, so the next matching call is not a question at all.
#[test]
fn claude_permission_request_updated_input_and_permissions() {
    let env = Env::new();
    std::fs::write(env.cwd.join("keep.txt"), "x").unwrap();
    let allow = |extra: &str| {
        format!("echo '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PermissionRequest\",\"decision\":{{\"behavior\":\"allow\"{extra}}}}}}}'")
    };
    script(
        &env,
        ".claude/perm.sh",
        &format!(
            "{}case \"$input\" in\n  *'\"command\":\"mkdir d1\"'*) {};;\n  *'\"command\":\"mkdir d3\"'*) {};;\n  *touch*) {};;\n  *) {};;\nesac\n",
            logger("perm.jsonl"),
            allow(r#","updatedInput":{"command":"mkdir d2"}"#),
            allow(r#","updatedInput":{"command":"rm -f keep.txt"}"#),
            allow(r#","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch:*"}],"behavior":"allow","destination":"localSettings"}]"#),
            allow(""),
        ),
    );
    settings(
        &env,
        json!({"permissions": {"deny": ["Bash(rm:*)"]},
               "hooks": {"PermissionRequest": [{"matcher": "Bash", "hooks": [
                   {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/perm.sh"}]}]}}),
    );
    let mock = Mock::start(
        &json!([{"tool_calls": [
            {"name": "Bash", "id": "one", "input": {"command": "mkdir d1"}},
            {"name": "Bash", "id": "three", "input": {"command": "mkdir d3"}},
            {"name": "Bash", "id": "ta", "input": {"command": "touch a.txt"}},
            {"name": "Bash", "id": "tb", "input": {"command": "touch b.txt"}}]},
            {"text": "done", "repeat": true}])
        .to_string(),
    );
    let out = agent(
        &env,
        &mock,
        &[],
        &["--permission-mode", "default", "--session", "s", "go"],
    );
    expect_code(&out, 0);
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    assert!(env.cwd.join("d2").is_dir() && !env.cwd.join("d1").exists());
    let three = text(&evs, "three");
    assert!(three.contains("denied by the rule Bash(rm:*)"), "{three}");
    assert!(env.cwd.join("keep.txt").exists() && !env.cwd.join("d3").exists());
    assert!(env.cwd.join("a.txt").exists() && env.cwd.join("b.txt").exists());
    let asked: Vec<String> = lines(&env, "perm.jsonl")
        .iter()
        .map(|l| l["tool_input"]["command"].as_str().unwrap().to_string())
        .collect();
    // The rewritten `mkdir d2` is asked about again; `touch b.txt` is not asked at all.
    assert_eq!(asked, ["mkdir d1", "mkdir d2", "mkdir d3", "touch a.txt"]);
}

/// SubagentStart and SubagentStop name the helper as Claude Code does: the same
/// `agent_id`, its `agent_type`, the parent's `session_id` and `transcript_path`, and (at
/// the stop) the helper's own conversation as `agent_transcript_path`.
#[test]
fn claude_subagent_start_and_stop_name_the_helper() {
    let env = Env::new();
    script(&env, ".claude/log.sh", &logger("sub.jsonl"));
    let h = hook("\"$CLAUDE_PROJECT_DIR\"/.claude/log.sh");
    settings(
        &env,
        json!({"hooks": {"SubagentStart": h, "SubagentStop": h}}),
    );
    let mock = Mock::start(
        &json!([
            {"when": "\"content\":\"SUBCHILD", "text": "child done"},
            {"tool_calls": [{"name": "SubAgent", "id": "sa",
                "input": {"prompt": "SUBCHILD go", "description": "c"}}]},
            {"text": "done", "repeat": true}])
        .to_string(),
    );
    let out = agent(&env, &mock, &[], &["--session", "s", "go"]);
    expect_code(&out, 0);
    wait_until("SubagentStop", 20, || {
        lines(&env, "sub.jsonl")
            .iter()
            .any(|l| l["hook_event_name"] == "SubagentStop")
    });
    let seen = lines(&env, "sub.jsonl");
    let of = |ev: &str| seen.iter().find(|l| l["hook_event_name"] == ev).unwrap();
    let (start, stop) = (of("SubagentStart"), of("SubagentStop"));
    let id = start["agent_id"].as_str().unwrap();
    assert!(id.starts_with("sub_"), "{start}");
    assert_eq!(stop["agent_id"], id);
    assert_eq!(start["agent_type"], "general-purpose");
    assert_eq!(stop["agent_type"], "general-purpose");
    let parent = env.session_dir("s").join("conversation.jsonl");
    for l in [start, stop] {
        assert_eq!(l["session_id"], "s", "{l}");
        assert_eq!(l["transcript_path"], parent.display().to_string());
    }
    let own = env.session_dir(id).join("conversation.jsonl");
    assert_eq!(stop["agent_transcript_path"], own.display().to_string());
    assert!(own.exists());
}
