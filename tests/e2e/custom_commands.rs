//! Issue 25 items 3 and 4 through the real binary and the scripted model: custom slash
//! commands (`.claude/commands`, `.bash-agent/commands`, project then user folder) from a
//! one-shot prompt and through a --listen run's FIFO, with `$0`/`$ARGUMENTS`, `@file`,
//! `` !`cmd` ``, `allowed-tools` (the tools sent and a refused call) and `model`; custom
//! sub-agents (`.claude/agents`) started by SubAgent's `subagent_type`, with their tools,
//! model and instructions in the child's request and the list in the parent's prompt. Bad
//! input: broken frontmatter (reported with the path and line, the file still loads), a
//! missing `$1` (left as written, as Claude Code does), a built-in's name, an unknown
//! agent name (a tool error naming the known ones). Issue 40: Claude Code's tool names
//! (`Task` in allowed-tools, `LS`/`Agent` in an agent's tools) and model aliases.
use crate::support::checks::*;
use crate::support::*;
use serde_json::Value;
use std::fs;
use std::process::Stdio;

fn write(path: &std::path::Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn tool_names(req: &Value) -> Vec<String> {
    req["body"]["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn last_user(req: &Value) -> String {
    req["body"]["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .map(|m| m.to_string())
        .unwrap_or_default()
}

/// The project's commands: /greet (everything), a broken one, one named like a built-in;
/// and a namespaced user command under `$BASH_AGENT_HOME/.bash-agent/commands/git/`.
fn commands(env: &Env) {
    write(
        &env.cwd.join(".claude/commands/greet.md"),
        "---\ndescription: Greet someone\nargument-hint: <name> <greeting>\nallowed-tools: Bash(echo:*), Read, Task\nmodel: opus\n---\nGreet $0 with $1 (all: $ARGUMENTS).\nShell says: !`echo SHELL-OUT-$((40+2))`\nSee @notes.txt\n",
    );
    write(&env.cwd.join("notes.txt"), "NOTE-CONTENT-9\n");
    write(
        &env.cwd.join(".claude/commands/broken.md"),
        "---\ndescription: no end\n",
    );
    write(&env.cwd.join(".bash-agent/commands/help.md"), "Mine.\n");
    write(
        &env.home.join(".bash-agent/commands/git/log.md"),
        "Summarise the log.\n",
    );
}

#[test]
fn one_shot_custom_command_expands_and_narrows_its_turn() {
    let env = Env::new();
    commands(&env);
    let script = serde_json::json!([
        {"when": "Greet Ann", "tool_calls": [
            {"name": "Write", "id": "w1", "input": {"file_path": "pwned.txt", "content": "x"}}]},
        {"text": "done.", "repeat": true}
    ]);
    let mock = Mock::start(&script.to_string());
    let o = env.agent(&mock.base("claude"), "claude", &["/greet Ann \"good day\""]);
    let err = stderr(&o);
    expect_code(&o, 0);
    assert_no_panic(&err);
    // Broken file and built-in clash: reported once each with the path; the rest works.
    let broken = env.cwd.join(".claude/commands/broken.md");
    assert_eq!(
        err.matches(&format!(
            "{}: line 1: the frontmatter opened with --- is never closed",
            broken.display()
        ))
        .count(),
        1,
        "{err}"
    );
    assert_eq!(
        err.matches("has the name of a built-in command").count(),
        1,
        "{err}"
    );

    let reqs = mock.records();
    assert_eq!(reqs.len(), 2, "{reqs:?}");
    let u = last_user(&reqs[0]);
    assert!(
        u.contains("Greet Ann with good day (all: Ann \\\"good day\\\")."),
        "{u}"
    );
    assert!(u.contains("Shell says: SHELL-OUT-42"), "{u}");
    assert!(u.contains("NOTE-CONTENT-9"), "{u}");
    // model and allowed-tools hold for every call of the turn.
    // `opus` through the model table; Claude Code's `Task` is the SubAgent tool.
    for r in &reqs {
        assert_eq!(r["body"]["model"], "claude-opus-5-5");
        assert_eq!(tool_names(r), ["Read", "Bash", "Glob", "Grep", "SubAgent"]);
    }
    // The model named a tool outside the set: refused, nothing written.
    assert!(!env.cwd.join("pwned.txt").exists());
    let conv = fs::read_to_string(
        env.project_dir()
            .join(session_id(&env))
            .join("conversation.jsonl"),
    )
    .unwrap();
    assert!(
        conv.contains("the tool Write is not available in this /greet turn"),
        "{conv}"
    );

    // The next plain turn has every tool and the run's model again (a --continue run).
    let o = env.agent(
        &mock.base("claude"),
        "claude",
        &["--continue", "plain turn"],
    );
    expect_code(&o, 0);
    let last = mock.records().pop().unwrap();
    assert_eq!(last["body"]["model"], "claude-sonnet-5-5");
    assert!(tool_names(&last).len() >= 11, "{:?}", tool_names(&last));

    // A user command, namespaced by its folder, with arguments appended.
    let o = env.agent(&mock.base("claude"), "claude", &["/git:log since monday"]);
    expect_code(&o, 0);
    let u = last_user(&mock.records().pop().unwrap());
    assert!(
        u.contains("Summarise the log.\\n\\nARGUMENTS: since monday"),
        "{u}"
    );
}

fn session_id(env: &Env) -> String {
    fs::read_dir(env.project_dir())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| {
            !n.starts_with('.') && !n.starts_with("sub_") && env.project_dir().join(n).is_dir()
        })
        .unwrap()
}

/// A `$N` beyond the arguments stays as written (Claude Code 2.1.332): awk's `$3` and a
/// price reach the model untouched; an unknown command still sends nothing.
#[test]
fn missing_argument_stays_as_written_and_unknown_command_sends_nothing() {
    let env = Env::new();
    commands(&env);
    write(
        &env.cwd.join(".claude/commands/sum.md"),
        "Run awk '{s+=$3} END {print s}' $0 and compare with $45,234.67\n",
    );
    let mock = Mock::start(r#"[{"text":"done.","repeat":true}]"#);
    let o = env.agent(&mock.base("claude"), "claude", &["/greet Ann"]);
    expect_code(&o, 0);
    let u = last_user(&mock.records().pop().unwrap());
    assert!(u.contains("Greet Ann with $1 (all: Ann)."), "{u}");
    let o = env.agent(&mock.base("claude"), "claude", &["/sum data.tsv"]);
    expect_code(&o, 0);
    let u = last_user(&mock.records().pop().unwrap());
    assert!(
        u.contains("Run awk '{s+=$3} END {print s}' data.tsv and compare with $45,234.67"),
        "{u}"
    );
    let before = mock.records().len();
    let o = env.agent(&mock.base("claude"), "claude", &["/greeet Ann"]);
    expect_code(&o, 1);
    assert!(
        stdout(&o).contains("Unknown command /greeet")
            || stderr(&o).contains("Unknown command /greeet")
    );
    assert_eq!(mock.records().len(), before);
}

/// Issue 34 item 6: every refused slash command of a one-shot run (a `` !`cmd` `` the
/// permission gate refuses, an unknown command) exits 1 with its error on
/// stderr and nothing on stdout, as the README says of every error.
#[test]
fn one_shot_slash_errors_go_to_stderr() {
    let env = Env::new();
    commands(&env);
    write(
        &env.cwd.join(".claude/commands/shell.md"),
        "Run this: !`touch made-by-shell`\n",
    );
    let mock = Mock::start(r#"[{"text":"done.","repeat":true}]"#);
    for (line, want) in [
        (
            "/shell",
            "Error: /shell: !`touch made-by-shell` was not run",
        ),
        ("/nosuchcommand", "Error: Unknown command /nosuchcommand"),
    ] {
        let o = env.agent(
            &mock.base("claude"),
            "claude",
            &["--deny", "Bash(touch:*)", line],
        );
        expect_code(&o, 1);
        assert_eq!(stdout(&o), "", "{line}: stdout must stay empty");
        assert!(stderr(&o).contains(want), "{line}: {}", stderr(&o));
        assert_no_panic(&stderr(&o));
    }
    assert!(!env.cwd.join("made-by-shell").exists());
    assert_eq!(mock.records().len(), 0);
}

#[test]
fn listen_fifo_input_expands_custom_commands() {
    let env = Env::new();
    commands(&env);
    let mock = Mock::start(r#"[{"text":"ok.","repeat":true}]"#);
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args(["--api-key", "sk-test-PLANTED", "--session", "L", "--listen"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let _agent = Guard(c.spawn().unwrap());
    let fifo = env.session_dir("L").join("input.fifo");
    wait_until("the agent to serve input.fifo", 20, || {
        bash_agent::ipc::client::has_reader(&fifo)
    });
    let o = env
        .cmd()
        .args(["--session", "L", "--send", "/greet Bob hi", "--wait"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let reqs = mock.records();
    let u = last_user(reqs.last().unwrap());
    assert!(u.contains("Greet Bob with hi"), "{u}");
    assert_eq!(reqs.last().unwrap()["body"]["model"], "claude-opus-5-5");
}

#[test]
fn custom_sub_agent_runs_with_its_tools_model_and_instructions() {
    let env = Env::new();
    write(
        &env.cwd.join(".claude/agents/team/reviewer.md"),
        "---\nname: reviewer\ndescription: >\n  Reviews\n  changes\ntools: Read, Search, NoSuchTool\nmodel: haiku\n---\nREVIEWER-BODY-7: review carefully.\n",
    );
    write(
        &env.cwd.join(".bash-agent/agents/bad.md"),
        "---\nname bad\n---\n",
    );
    let calls = serde_json::json!([
        {"name": "SubAgent", "id": "s1", "input": {"prompt": "CHILD-JOB", "description": "review", "subagent_type": "reviewer"}},
        {"name": "SubAgent", "id": "s2", "input": {"prompt": "OTHER-JOB", "subagent_type": "nosuch"}}
    ]);
    let script = serde_json::json!([
        {"when": "SPAWN-PARENT", "tool_calls": calls},
        {"when": "REVIEWER-BODY-7", "tool_calls": [
            {"name": "Bash", "id": "b1", "input": {"command": "echo x > pwned.txt"}}]},
        {"when": "REVIEWER-BODY-7", "text": "child done", "repeat": true},
        {"text": "parent noted", "repeat": true}
    ]);
    let mock = Mock::start(&script.to_string());
    let errlog = env.dir.path().join("stderr.log");
    let mut agent = Guard(
        env.cmd()
            .args(["--provider", "claude", "--base-url", &mock.base("claude")])
            .args([
                "--api-key",
                "sk-sub",
                "--session",
                "P",
                "SPAWN-PARENT: review",
            ])
            .stdout(Stdio::null())
            .stderr(fs::File::create(&errlog).unwrap())
            .spawn()
            .unwrap(),
    );
    let st = wait_timeout(&mut agent, 60);
    let err = fs::read_to_string(&errlog).unwrap();
    assert_eq!(st.code(), Some(0), "{err}");
    assert_no_panic(&err);
    let bad = env.cwd.join(".bash-agent/agents/bad.md");
    assert!(
        err.contains(&format!(
            "{}: line 2: the frontmatter is not a map",
            bad.display()
        )),
        "{err}"
    );
    // A tool name we do not have: one warning, the agent loads with the rest.
    let rev = env.cwd.join(".claude/agents/team/reviewer.md");
    assert_eq!(
        err.matches(&format!(
            "{}: tools: NoSuchTool not known here",
            rev.display()
        ))
        .count(),
        1,
        "{err}"
    );

    let reqs = mock.records();
    let parent_sys = checks::system_text(&reqs[0]["body"]);
    assert!(
        parent_sys.contains("<custom-agents>\nNamed helpers")
            && parent_sys.contains("\n- reviewer: Reviews changes (tools: Read, Grep)\n"),
        "{parent_sys}"
    );
    let child: Vec<&Value> = reqs
        .iter()
        .filter(|r| checks::system_text(&r["body"]).contains("REVIEWER-BODY-7"))
        .collect();
    assert_eq!(child.len(), 2, "{reqs:?}");
    for r in &child {
        let sys = checks::system_text(&r["body"]);
        assert!(sys.ends_with("<agent-instructions name=\"reviewer\">\nREVIEWER-BODY-7: review carefully.\n</agent-instructions>"), "{sys}");
        assert!(!sys.contains("<custom-agents>"));
        assert_eq!(r["body"]["model"], "claude-haiku-5-5");
        assert_eq!(tool_names(r), ["Read", "Grep"]);
    }
    // The child's Bash call was refused; it stayed in its tools.
    assert!(!env.cwd.join("pwned.txt").exists());
    let sub = fs::read_dir(env.project_dir())
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("sub_"))
        .unwrap()
        .path();
    let conv = fs::read_to_string(sub.join("conversation.jsonl")).unwrap();
    assert!(
        conv.contains(
            "the tool Bash is not available to the agent reviewer (its tools: Read, Grep)"
        ),
        "{conv}"
    );
    // The unknown name: a tool error naming the known agents; only one child started.
    let parent = env.read("P", "conversation.jsonl");
    assert!(
        parent
            .contains("unknown subagent_type \\\"nosuch\\\"; the known agents are: reviewer, bad"),
        "{parent}"
    );
    assert_eq!(parent.matches("Sub-agent started").count(), 1, "{parent}");
}
