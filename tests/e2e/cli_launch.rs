//! Launch habits of Claude Code users through the real binary (issue 35, item 3): a
//! subcommand written after global flags runs the subcommand; `--system-prompt` and
//! `--append-system-prompt`; `--allowedTools` / `--disallowedTools` (comma- or
//! space-separated); `--fallback-model` when the model stays overloaded.
use crate::support::*;

#[test]
fn a_subcommand_after_global_flags_runs_the_subcommand() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"should not be asked","repeat":true}]"#);
    let base = mock.base("claude");
    let out = env.run(&["--base-url", &base, "--api-key", "k", "compact"]);
    expect_code(&out, 0);
    assert!(stdout(&out).contains("Nothing to compact"), "{out:?}");
    let out = env.run(&["-m", "sonnet", "usage"]);
    expect_code(&out, 0);
    assert!(mock.requests().is_empty(), "no prompt went to the model");
    // After `--`, the word is a prompt again.
    let out = env.run(&["--base-url", &base, "--api-key", "k", "--", "compact"]);
    expect_code(&out, 0);
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 1);
    assert!(reqs[0]["body"].to_string().contains("compact"));
}

#[test]
fn system_prompt_flags_replace_or_extend_the_prompt() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"ok","repeat":true}]"#);
    let base = mock.base("claude");
    expect_code(&env.agent(&base, "claude", &["--session", "a", "hi"]), 0);
    expect_code(
        &env.agent(
            &base,
            "claude",
            &["--system-prompt", "You are terse.", "hi"],
        ),
        0,
    );
    expect_code(
        &env.agent(
            &base,
            "claude",
            &[
                "--session",
                "a",
                "--append-system-prompt",
                "Always answer in haiku.",
                "hi",
            ],
        ),
        0,
    );
    let reqs = mock.requests();
    let sys = |i: usize| checks::system_text(&reqs[i]["body"]);
    let built = sys(0);
    assert!(built.starts_with("<agent-identity>"), "{built}");
    assert_eq!(sys(1), "You are terse.");
    assert_eq!(sys(2), format!("{built}\n\nAlways answer in haiku."));
}

#[test]
fn allowed_and_disallowed_tools_are_rule_lists() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"when":"go","tool_calls":[{"name":"Bash","id":"b1","input":{"command":"echo hi"}}]},
            {"text":"done"}]"#,
    );
    let base = mock.base("claude");
    let out = env.agent(
        &base,
        "claude",
        &["--disallowedTools", "Write, Bash(echo:*)", "go"],
    );
    expect_code(&out, 0);
    let conv = env.read(&latest_session(&env), "conversation.jsonl");
    assert!(!conv.contains("\"hi\\n\""), "the call was refused: {conv}");
    assert!(conv.contains("Bash(echo:*)"), "the rule is named: {conv}");
}

/// The one session of the project.
fn latest_session(env: &Env) -> String {
    let dir = env.project_dir();
    std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("conversation.jsonl").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .next()
        .unwrap()
}

#[test]
fn an_overloaded_model_hands_over_to_the_fallback_model() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"when":"primary-x","status":529,"message":"Overloaded","repeat":true},
            {"text":"from the fallback"}]"#,
    );
    let base = mock.base("claude");
    let out = env.agent(
        &base,
        "claude",
        &["-m", "primary-x", "--fallback-model", "backup-y", "hi"],
    );
    expect_code(&out, 0);
    assert!(stdout(&out).contains("from the fallback"), "{out:?}");
    assert!(
        stderr(&out).contains("switching to the fallback model backup-y"),
        "{out:?}"
    );
    let reqs = mock.requests();
    assert_eq!(reqs.last().unwrap()["body"]["model"], "backup-y");
    // Without the flag the overload is the run's error.
    let out = env.agent(&base, "claude", &["-m", "primary-x", "hi"]);
    expect_code(&out, 1);
    assert!(stderr(&out).contains("529"), "{out:?}");
}

#[test]
fn resume_without_a_name_needs_a_terminal_and_session_alone_is_a_new_one() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"ok","repeat":true}]"#);
    let base = mock.base("claude");
    for flag in ["-r", "--resume"] {
        let out = env.agent(&base, "claude", &[flag]);
        expect_code(&out, 2);
        let err = stderr(&out);
        assert!(
            err.contains("needs a terminal")
                && err.contains("-r NAME")
                && err.contains("--continue"),
            "{err}"
        );
    }
    assert!(mock.requests().is_empty());
    // `--session` alone keeps the shell version's meaning: a new session.
    let out = env.agent(&base, "claude", &["--session", "--", "hi"]);
    expect_code(&out, 0);
    assert_eq!(mock.requests().len(), 1);
}

#[test]
fn a_subcommands_help_after_global_flags_is_the_subcommands() {
    let env = Env::new();
    let out = env.run(&["--base-url", "http://127.0.0.1:9", "compact", "--help"]);
    expect_code(&out, 0);
    let text = stdout(&out);
    assert!(text.contains("Usage: bash-agent compact"), "{text}");
    let out = env.run(&["--base-url", "http://127.0.0.1:9", "--help"]);
    expect_code(&out, 0);
    assert!(stdout(&out).contains("Usage: bash-agent [OPTIONS] [PROMPT]"));
}

#[test]
fn a_peers_command_word_is_a_usage_error_not_a_prompt() {
    let env = Env::new();
    let mock = Mock::start(r#"[{"text":"ok","repeat":true}]"#);
    let base = mock.base("claude");
    for word in ["login", "doctor", "update", "resume", "exec"] {
        let out = env.run(&["--base-url", &base, "--api-key", "k", word]);
        expect_code(&out, 2);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("unrecognized subcommand '{word}'")),
            "{err}"
        );
        assert!(err.contains(&format!("bash-agent -- {word}")), "{err}");
    }
    assert!(mock.requests().is_empty(), "no prompt went to the model");
    // A word that is no command is a prompt; so is a peer's word after `--` or among others.
    expect_code(
        &env.run(&["--base-url", &base, "--api-key", "k", "hello"]),
        0,
    );
    expect_code(
        &env.run(&["--base-url", &base, "--api-key", "k", "--", "login"]),
        0,
    );
    expect_code(
        &env.run(&["--base-url", &base, "--api-key", "k", "login how?"]),
        0,
    );
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 3);
    assert!(reqs[1]["body"].to_string().contains("login"));
}
