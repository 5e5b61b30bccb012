//! Hooks of real repositories' `.claude/settings.json` (read from ../shared at run time)
//! through the real binary, with stand-in scripts written by the test where the repository's
//! own scripts would be (the corpus keeps no program files): Claude Code's input (tool
//! names, `file_path`, `permission_mode`, ...) and its output semantics (exit 2, JSON
//! allow/deny, PermissionRequest, PostToolUseFailure, SubagentStart).
use crate::claude_settings::corpus;
use crate::ext_mcp_hooks::result_of;
use crate::support::hook_scripts::{lines, logger, script, settings};
use crate::support::*;
use serde_json::{json, Value};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A project holding `repo`'s `.claude/settings.json` (read from the corpus), trusted.
fn project(env: &Env, root: &Path, repo: &str) {
    let text = std::fs::read_to_string(root.join(repo).join(".claude/settings.json")).unwrap();
    std::fs::create_dir_all(env.cwd.join(".claude/hooks")).unwrap();
    std::fs::write(env.cwd.join(".claude/settings.json"), text).unwrap();
    env.trust_project();
}

fn run(env: &Env, args: &[&str], script: Value) -> (Vec<Value>, std::process::Output) {
    let mock = Mock::start(&script.to_string());
    let mut a = vec!["--session", "s"];
    a.extend_from_slice(args);
    a.push("go");
    let out = env.agent(&mock.base("claude"), "claude", &a);
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    (evs, out)
}

fn text(evs: &[Value], id: &str) -> String {
    result_of(evs, id)["content"].as_str().unwrap().to_string()
}

#[test]
fn beads_blocks_gh_watch_by_exit_2_with_claude_codes_input() {
    let Some(root) = corpus() else { return };
    let env = Env::new();
    project(&env, &root, "steveyegge__beads");
    script(
        &env,
        ".claude/hooks/block-gh-watch.sh",
        "#!/bin/sh\ncase \"$(cat)\" in *'\"command\":\"gh run watch'*) echo 'gh run watch hangs; use gh run view' >&2; exit 2;; esac\n",
    );
    script(
        &env,
        ".claude/hooks/block-interactive-cmds.sh",
        &logger("seen.jsonl"),
    );
    let (evs, out) = run(
        &env,
        &[],
        json!([{"tool_calls": [
            {"name": "Bash", "id": "w", "input": {"command": "gh run watch 12"}},
            {"name": "Bash", "id": "ok", "input": {"command": "echo fine"}}]},
            {"text": "done", "repeat": true}]),
    );
    expect_code(&out, 0);
    assert_eq!(
        text(&evs, "w"),
        "Error: PreToolUse hook blocked Bash: gh run watch hangs; use gh run view"
    );
    assert!(text(&evs, "ok").contains("fine"));
    let seen = lines(&env, "seen.jsonl");
    assert_eq!(seen.len(), 2, "{seen:?}");
    let l = &seen[0];
    assert_eq!(l["hook_event_name"], "PreToolUse");
    assert_eq!(l["tool_name"], "Bash");
    assert_eq!(l["tool_input"]["command"], "gh run watch 12");
    assert_eq!(l["tool_use_id"], "w");
    assert_eq!(l["permission_mode"], "bypassPermissions");
    assert_eq!(l["cwd"], env.cwd.display().to_string());
    assert!(l["session_id"].is_string());
    assert!(l["transcript_path"]
        .as_str()
        .unwrap()
        .ends_with("conversation.jsonl"));
    assert!(stderr(&out).contains("read Claude Code settings: .claude/settings.json"));
}

#[test]
fn bun_guard_allows_and_denies_by_json_and_its_formatter_reads_file_path() {
    let Some(root) = corpus() else { return };
    let env = Env::new();
    project(&env, &root, "oven-sh__bun");
    // pre-bash-guard: deny `rm -rf`, allow the rest (which skips the question).
    script(
        &env,
        ".claude/hooks/pre-bash-guard.js",
        r#"#!/bin/sh
case "$(cat)" in
  *'"command":"rm -rf'*) d=deny ;;
  *) d=allow ;;
esac
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"%s","permissionDecisionReason":"guard says %s"}}\n' $d $d
"#,
    );
    // post-edit-format: what a formatter reads, `.tool_input.file_path`.
    script(
        &env,
        ".claude/hooks/post-edit-format.js",
        "#!/usr/bin/env python3\nimport json, os, sys\nd = json.load(sys.stdin)\nwith open(os.environ['CLAUDE_PROJECT_DIR'] + '/formatted.txt', 'a') as f:\n    f.write(d['tool_name'] + ' ' + d['tool_input']['file_path'] + '\\n')\n",
    );
    let (evs, out) = run(
        &env,
        &["--permission-mode", "accept-edits"],
        json!([{"tool_calls": [
            {"name": "Bash", "id": "touch", "input": {"command": "touch made.txt"}},
            {"name": "Bash", "id": "rm", "input": {"command": "rm -rf made.txt"}},
            {"name": "Write", "id": "w", "input": {"path": "a.txt", "content": "one\n"}},
            {"name": "Edit", "id": "e", "input": {"path": "a.txt", "old_string": "one", "new_string": "two"}}]},
            {"text": "done", "repeat": true}]),
    );
    expect_code(&out, 0);
    // Headless accept-edits would refuse `touch` (it asks); the hook's allow skips that.
    assert!(
        !text(&evs, "touch").contains("Permission denied"),
        "{}",
        text(&evs, "touch")
    );
    assert!(env.cwd.join("made.txt").exists());
    assert_eq!(
        text(&evs, "rm"),
        "Error: PreToolUse hook blocked Bash: guard says deny"
    );
    let a = env.cwd.join("a.txt").display().to_string();
    assert_eq!(
        std::fs::read_to_string(env.cwd.join("formatted.txt")).unwrap(),
        format!("Write {a}\nEdit {a}\n")
    );
    assert_eq!(
        std::fs::read_to_string(env.cwd.join("a.txt")).unwrap(),
        "two\n"
    );
}

#[test]
fn hooks_mastery_every_event_with_its_claude_code_fields() {
    let Some(root) = corpus() else { return };
    let env = Env::new();
    project(&env, &root, "disler__claude-code-hooks-mastery");
    // The repository runs its hooks with `uv run X.py ARGS`: a stand-in `uv` on PATH runs
    // the stand-in scripts, which log their input; permission_request.py allows `touch`.
    let bin = env.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("uv"), "#!/bin/sh\nshift\nexec sh \"$@\"\n").unwrap();
    std::fs::set_permissions(bin.join("uv"), std::fs::Permissions::from_mode(0o755)).unwrap();
    for s in [
        "pre_tool_use",
        "post_tool_use",
        "notification",
        "stop",
        "subagent_stop",
        "user_prompt_submit",
        "pre_compact",
        "session_start",
        "session_end",
        "post_tool_use_failure",
        "subagent_start",
        "setup",
    ] {
        script(
            &env,
            &format!(".claude/hooks/{s}.py"),
            &logger("events.jsonl"),
        );
    }
    script(
        &env,
        ".claude/hooks/permission_request.py",
        &format!(
            "{}case \"$input\" in *'touch'*) echo '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PermissionRequest\",\"decision\":{{\"behavior\":\"allow\"}}}}}}' ;; *) echo '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PermissionRequest\",\"decision\":{{\"behavior\":\"deny\",\"message\":\"not this one\"}}}}}}' ;; esac\n",
            logger("events.jsonl")
        ),
    );
    let mock = Mock::start(
        &json!([
            {"when": "\"content\":\"SUBCHILD", "text": "child done"},
            {"tool_calls": [
                {"name": "Bash", "id": "t", "input": {"command": "touch ok.txt"}},
                {"name": "Bash", "id": "m", "input": {"command": "git push origin main"}},
                {"name": "Read", "id": "r", "input": {"path": "missing.txt"}},
                {"name": "SubAgent", "id": "sa", "input": {"prompt": "SUBCHILD go", "description": "c"}}]},
            {"text": "done", "repeat": true}
        ])
        .to_string(),
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let mut c = env.cmd();
    c.env("PATH", path).args([
        "--base-url",
        &mock.base("claude"),
        "--api-key",
        "sk-test-x",
        "--permission-mode",
        "default",
        "--allow",
        "SubAgent",
        "--session",
        "s",
        "go",
    ]);
    let out = c.output().unwrap();
    expect_code(&out, 0);
    let evs = events(&env.session_dir("s").join("events.jsonl"));
    // PermissionRequest answered the questions a headless run cannot put.
    assert!(
        env.cwd.join("ok.txt").exists(),
        "{}\n{}\n{}",
        text(&evs, "t"),
        stderr(&out),
        std::fs::read_to_string(env.cwd.join("events.jsonl")).unwrap_or_default()
    );
    assert!(
        text(&evs, "m").contains("not this one"),
        "{}",
        text(&evs, "m")
    );
    let seen = lines(&env, "events.jsonl");
    let of =
        |ev: &str| -> Vec<&Value> { seen.iter().filter(|l| l["hook_event_name"] == ev).collect() };
    for ev in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStart",
        "SubagentStop",
        "Stop",
        "SessionEnd",
    ] {
        assert!(!of(ev).is_empty(), "no {ev}: {seen:?}");
    }
    assert!(of("Setup").is_empty(), "Setup never fires here");
    let fail = of("PostToolUseFailure");
    assert!(fail.iter().any(|l| l["tool_name"] == "Read"
        && l["tool_input"]["file_path"] == env.cwd.join("missing.txt").display().to_string()
        && l["error"].is_string()));
    assert!(of("PreToolUse").iter().any(|l| l["tool_name"] == "Agent"));
    assert!(of("SubagentStart")
        .iter()
        .any(|l| l["agent_type"] == "general-purpose"));
    assert!(of("PermissionRequest")
        .iter()
        .all(|l| l["permission_mode"] == "default"));
    assert!(stderr(&out).contains("Setup hooks load but never fire"));
}

/// Issue 42 item 10: a PreToolUse deny whose reason is over the 1 MiB output cap. The cut
/// JSON does not parse; the call must be refused at once, never run.
#[test]
fn a_deny_cut_at_the_output_cap_refuses_the_call() {
    let env = Env::new();
    script(
        &env,
        ".claude/huge_deny.sh",
        "#!/bin/sh\ncat >/dev/null\nprintf '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"'\nhead -c 3000000 /dev/zero | tr '\\0' x\nprintf '\"}}'\n",
    );
    settings(
        &env,
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/huge_deny.sh"}]}]}}),
    );
    let (evs, out) = run(
        &env,
        &[],
        json!([{"tool_calls": [
            {"name": "Bash", "id": "t", "input": {"command": "touch ran.txt"}}]},
            {"text": "done", "repeat": true}]),
    );
    expect_code(&out, 0);
    assert!(!env.cwd.join("ran.txt").exists(), "the call ran");
    let t = text(&evs, "t");
    assert!(
        t.starts_with("Error: PreToolUse hook blocked Bash: the PreToolUse hook")
            && t.contains("printed more than 1 MiB; its answer was cut and cannot be read, so this is refused"),
        "{t}"
    );
}

/// `updatedInput` (Claude Code's field names) rewrites the call before the permission gate,
/// which checks the call as rewritten: a deny rule on the new command still refuses.
#[test]
fn updated_input_is_checked_by_the_gate_as_rewritten() {
    let env = Env::new();
    script(
        &env,
        ".claude/rewrite.sh",
        r#"#!/bin/sh
case "$(cat)" in
  *'"command":"echo one"'*) c='echo rewritten' ;;
  *'"file_path"'*) printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":"%s/moved.txt"}}}' "$CLAUDE_PROJECT_DIR"; exit 0 ;;
  *) c='rm -f keep.txt' ;;
esac
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"%s"}}}' "$c"
"#,
    );
    std::fs::write(env.cwd.join("keep.txt"), "x").unwrap();
    settings(
        &env,
        json!({"permissions": {"deny": ["Bash(rm:*)"]},
               "hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [
                   {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/rewrite.sh"}]}]}}),
    );
    let (evs, out) = run(
        &env,
        &[],
        json!([{"tool_calls": [
            {"name": "Bash", "id": "one", "input": {"command": "echo one"}},
            {"name": "Bash", "id": "two", "input": {"command": "echo two"}},
            {"name": "Write", "id": "w", "input": {"path": "a.txt", "content": "hi\n"}}]},
            {"text": "done", "repeat": true}]),
    );
    expect_code(&out, 0);
    assert!(
        text(&evs, "one").contains("rewritten"),
        "{}",
        text(&evs, "one")
    );
    let two = text(&evs, "two");
    assert!(
        two.contains("Permission denied (denied by the rule Bash(rm:*)"),
        "{two}"
    );
    assert!(env.cwd.join("keep.txt").exists());
    assert_eq!(
        std::fs::read_to_string(env.cwd.join("moved.txt")).unwrap(),
        "hi\n"
    );
    assert!(!env.cwd.join("a.txt").exists());
}
