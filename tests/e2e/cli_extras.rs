//! Command-line extras through the real binary: completions and the man page, `-c` and
//! `-r/--resume`, the first-run messages (no key, an unquoted prompt) and no session folder
//! left by a run that never had a turn.
use crate::support::*;

#[test]
fn completions_for_every_shell_and_a_man_page() {
    let env = Env::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = env.run(&["completions", shell]);
        expect_code(&out, 0);
        let s = stdout(&out);
        assert!(
            s.contains("bash-agent") && s.contains("output-format"),
            "{shell}"
        );
    }
    let out = env.run(&["completions", "tcsh"]);
    expect_code(&out, 2);
    let out = env.run(&["man"]);
    expect_code(&out, 0);
    let m = stdout(&out);
    assert!(m.contains(".TH bash-agent 1"), "{m}");
    assert!(m.contains("output\\-format"), "{m}");
}

#[test]
fn short_continue_and_resume_alias_select_the_session() {
    let env = Env::new();
    let mock = Mock::start(
        r#"[{"text":"one","usage":{"input":1,"output":1}},{"text":"two","usage":{"input":1,"output":1}},{"text":"three","usage":{"input":1,"output":1}}]"#,
    );
    let base = mock.base("claude");
    expect_code(
        &env.agent(&base, "claude", &["--session", "named", "first"]),
        0,
    );
    expect_code(&env.agent(&base, "claude", &["-c", "second"]), 0);
    expect_code(&env.agent(&base, "claude", &["-r", "named", "third"]), 0);
    let conv = env.read("named", "conversation.jsonl");
    for w in ["first", "second", "third"] {
        assert!(conv.contains(w), "{w}: {conv}");
    }
    let out = env.agent(&base, "claude", &["--resume", "other", "x"]);
    // The script is used up: the run fails, but in the session --resume named.
    assert!(env.read("other", "conversation.jsonl").contains("\"x\""));
    let _ = out;
}

#[test]
fn no_key_names_every_provider_variable_and_the_local_server() {
    let env = Env::new();
    let out = env.run(&["hi"]);
    expect_code(&out, 1);
    let err = stderr(&out);
    for want in [
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "DEEPSEEK_API_KEY",
        "--base-url http://127.0.0.1",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    assert!(!env.projects_root().exists() || std::fs::read_dir(env.project_dir()).is_err());
}

#[test]
fn unquoted_prompt_explains_quoting() {
    let env = Env::new();
    let out = env.run(&["fix", "the", "bug"]);
    expect_code(&out, 2);
    assert!(
        stderr(&out).contains("quote it, e.g.\n  bash-agent \"fix the bug\""),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["usage", "of", "memory"]);
    expect_code(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("'usage' is a subcommand"), "{err}");
    assert!(err.contains("bash-agent \"usage of memory\""), "{err}");
    let out = env.run(&["--no-such"]);
    assert!(!stderr(&out).contains("hint:"));
}

#[test]
fn a_run_without_a_turn_leaves_no_session_folder() {
    let env = Env::new();
    let out = env.run(&["--api-key", "k", "--session", "gone", "/help"]);
    expect_code(&out, 0);
    assert!(!env.session_dir("gone").exists());
    // A run whose turn started keeps its session, even when the call failed.
    let mock = Mock::start(r#"[{"status":400,"message":"bad"}]"#);
    let out = env.agent(&mock.base("claude"), "claude", &["--session", "kept", "hi"]);
    expect_code(&out, 1);
    assert!(env.session_dir("kept").join("conversation.jsonl").exists());
    // An existing session is never removed.
    let mock = Mock::start(r#"[{"text":"ok","usage":{"input":1,"output":1}}]"#);
    expect_code(
        &env.agent(&mock.base("claude"), "claude", &["--session", "old", "hi"]),
        0,
    );
    let out = env.run(&["--api-key", "k", "--session", "old", "/help"]);
    expect_code(&out, 0);
    assert!(env.session_dir("old").exists());
}

#[test]
fn a_typoed_flag_keeps_clap_suggestion() {
    let env = Env::new();
    let out = env.run(&["--outptu-format", "json", "hi"]);
    expect_code(&out, 2);
    let err = stderr(&out);
    assert!(err.contains("Unknown option: --outptu-format"), "{err}");
    assert!(
        err.contains("tip: a similar argument exists: '--output-format'"),
        "{err}"
    );
    let out = env.run(&["--sesion", "x", "hi"]);
    assert!(stderr(&out).contains("'--session'"), "{}", stderr(&out));
}

#[test]
fn a_run_failing_before_its_first_turn_leaves_no_session_folder() {
    let env = Env::new();
    // No key, in every output format: the named session is never made.
    for fmt in ["human", "text", "json", "stream-json"] {
        let out = env.run(&["--output-format", fmt, "--session", "never", "hi"]);
        expect_code(&out, 1);
        assert!(!env.session_dir("never").exists(), "{fmt}");
    }
    // A bad flag value after a valid key: nothing either.
    let out = env.run(&[
        "--api-key",
        "k",
        "--max-context",
        "lots",
        "--session",
        "never",
        "hi",
    ]);
    expect_code(&out, 2);
    assert!(!env.session_dir("never").exists());
    assert!(
        !env.project_dir().exists() || std::fs::read_dir(env.project_dir()).unwrap().count() == 0
    );
}
