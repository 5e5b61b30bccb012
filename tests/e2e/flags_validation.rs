//! Flag values are checked before anything else happens: a bad number or a value outside
//! a closed set is `Error: Invalid --flag: value`, exit 2, before the prompt is read, the
//! key is looked for or a session folder exists.
use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: &str) -> (i32, String, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bash-agent"))
        .current_dir(cwd.path())
        .env("BASH_AGENT_HOME", home.path())
        .env("NO_COLOR", "1")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("DEEPSEEK_API_KEY")
        .env_remove("EFFORT")
        .env_remove("THINKING")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A write error means the agent did not read stdin: that is the point.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        home,
    )
}

fn no_session_folder(home: &std::path::Path) {
    let projects = home.join("projects");
    let n = std::fs::read_dir(&projects).map(|d| d.count()).unwrap_or(0);
    assert_eq!(
        n,
        0,
        "a session folder was created under {}",
        projects.display()
    );
}

#[test]
fn every_numeric_and_enumerated_flag_is_checked_first() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--max-context", "invalid"],
            "Error: Invalid --max-context: invalid",
        ),
        (
            &["--max-tokens", "1.5k"],
            "Error: Invalid --max-tokens: 1.5k",
        ),
        (&["--max-turns", "many"], "Error: Invalid --max-turns: many"),
        (
            &["--tool-timeout", "10s"],
            "Error: Invalid --tool-timeout: 10s",
        ),
        (
            &["--effort", "extreme"],
            "Error: Invalid --effort: extreme (expected low|medium|high|xhigh|max)",
        ),
        (
            &["--thinking", "maybe"],
            "Error: Invalid --thinking: maybe (expected adaptive|enabled|disabled)",
        ),
        (
            &["--output-format", "xml"],
            "Error: Invalid --output-format: xml (expected human|text|json|stream-json)",
        ),
    ];
    for (args, want) in cases {
        // No key, a prompt on stdin: neither is reached.
        let (code, err, home) = run(args, "a prompt on stdin\n");
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end(), *want, "{args:?}");
        no_session_folder(home.path());
        // With a prompt argument and a bad value for the same flag as `--flag=value`.
        let joined = format!("{}={}", args[0], args[1]);
        let (code, err, _) = run(&[joined.as_str(), "hello"], "");
        assert_eq!(code, 2, "{joined}: {err}");
        assert_eq!(err.trim_end(), *want, "{joined}");
    }
}

#[test]
fn good_values_pass_the_check() {
    // Valid values get past parsing: the run then fails for the missing key (exit 1),
    // which proves the flags themselves were accepted.
    let (code, err, _) = run(
        &[
            "--max-context",
            "200k",
            "--max-tokens",
            "2k",
            "--max-turns",
            "3",
            "--tool-timeout",
            "5",
            "--effort",
            "low",
            "--thinking",
            "disabled",
            "--output-format",
            "human",
            "hi",
        ],
        "",
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("No API key"), "{err}");
}

#[test]
fn bad_effort_or_thinking_in_the_environment_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_bash-agent"))
        .current_dir(home.path())
        .env("BASH_AGENT_HOME", home.path())
        .env("NO_COLOR", "1")
        .env("THINKING", "maybe")
        .args(["--api-key", "sk-x", "hi"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "Error: Invalid THINKING: maybe"
    );
}

/// A prompt or flag value that is not UTF-8 is a usage error naming the argument (it used to
/// panic with exit 101), and leaves no session folder.
#[test]
fn an_argument_that_is_not_utf8_is_a_usage_error() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let cases: [(&[&[u8]], &str); 3] = [
        (
            &[b"fix \xff\xfe now"],
            "argument 1 is not valid UTF-8: \"fix \\xFF\\xFE now\"",
        ),
        (
            &[b"--session", b"ab\xc3", b"hi"],
            "the value of --session is not valid UTF-8",
        ),
        (
            &[b"--print", b"hi", b"\x80"],
            "argument 3 is not valid UTF-8",
        ),
    ];
    for (args, want) in cases {
        let home = tempfile::tempdir().unwrap();
        let cwd = tempfile::tempdir().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_bash-agent"))
            .current_dir(cwd.path())
            .env("BASH_AGENT_HOME", home.path())
            .env("NO_COLOR", "1")
            .env("ANTHROPIC_API_KEY", "sk-unused")
            .args(args.iter().map(|a| OsStr::from_bytes(a)))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.starts_with("Error: ") && err.contains(want), "{err}");
        assert!(
            !err.contains("panicked") && !err.contains("internal error"),
            "{err}"
        );
        assert!(
            !home.path().join(".bash-agent/projects").exists(),
            "a session folder was made"
        );
    }
}
