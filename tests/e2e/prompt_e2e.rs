//! The system prompt as the real binary sends it: environment from the process, locale,
//! instruction files from `$BASH_AGENT_HOME/.bash-agent` and the working directory, and a
//! missing `--skill` reported once per process even across several model calls.
use crate::support::{checks, Env, Mock};
use std::fs;

#[test]
fn binary_sends_the_prompt_and_warns_once() {
    let env = Env::new();
    let (home, work) = (&env.home, &env.cwd);
    fs::create_dir_all(home.join(".bash-agent")).unwrap();
    fs::write(home.join(".bash-agent/CLAUDE.md"), "global rules here\n").unwrap();
    fs::write(work.join("AGENTS.md"), "project rules here\n").unwrap();
    // Two model calls in one turn: a tool call, then the answer.
    let script = r#"[{"tool_calls":[{"name":"Glob","input":{"pattern":"*.md"}}]},{"text":"done"}]"#;
    let server = Mock::start(script);
    let out = env
        .cmd()
        .args([
            "--base-url",
            &server.url,
            "--api-key",
            "x",
            "--skill",
            "nope-skill",
            "hi",
        ])
        .env("LANG", "zh_CN.UTF-8")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("SHELL", "/bin/testsh")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let msg = "Skill not found: nope-skill (expected .claude/skills/nope-skill/SKILL.md or ~/.claude/skills/nope-skill/SKILL.md)";
    assert_eq!(stderr.matches(msg).count(), 1, "{stderr}");

    let reqs = server.records();
    assert_eq!(reqs.len(), 2);
    let system = &checks::system_text(&reqs[0]["body"]);
    assert_eq!(
        &checks::system_text(&reqs[1]["body"]),
        system,
        "stable prompt across calls"
    );
    assert!(system.starts_with("<agent-identity>\n你是 bash-agent"));
    let platform = bash_agent::agent::prompt::platform();
    let expected = format!(
        "<environment>\nlang: zh_CN\npwd: {}\nhome: {}\nplatform: {platform}\nshell: /bin/testsh\ndate: {}\n</environment>\n<rules>",
        work.display(),
        home.display(),
        today()
    );
    assert!(system.contains(&expected), "{system}");
    assert!(system.contains(
        "<instruction-files>\n<instruction-file name=\"global\">\nglobal rules here\n</instruction-file>\n<instruction-file name=\"project\">\nproject rules here\n</instruction-file>\n</instruction-files>"
    ));
    assert!(!system.contains("<selected-skills>"));
    assert!(system.ends_with("</output-language>"));
}

/// Today's local date as the binary writes it (a run across midnight may see yesterday's).
fn today() -> String {
    let t = bash_agent::util::time::local(bash_agent::util::time::now_secs());
    format!("{:04}-{:02}-{:02}", t.year, t.mon, t.day)
}

#[test]
fn the_prompt_has_the_date_and_the_git_state() {
    let env = Env::new();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&env.cwd)
            .env("HOME", &env.home)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "-b", "feature-x"]);
    fs::write(env.cwd.join("notes.txt"), "new\n").unwrap();
    let server = Mock::start(r#"[{"text":"ok","repeat":true}]"#);
    let out = env
        .cmd()
        .args(["--base-url", &server.url, "--api-key", "x", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let system = checks::system_text(&server.records()[0]["body"]);
    assert!(
        system.contains(&format!("date: {}\n</environment>", today())),
        "{system}"
    );
    assert!(
        system.contains("<git-status>\nbranch: No commits yet on feature-x\nstatus:\n?? notes.txt\n</git-status>\n<rules>"),
        "{system}"
    );
    // Outside a repository: no section.
    let plain = env.other_cwd("plain");
    let out = env
        .cmd()
        .current_dir(&plain)
        .args(["--base-url", &server.url, "--api-key", "x", "hi"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let system = checks::system_text(&server.records()[1]["body"]);
    assert!(!system.contains("<git-status>"), "{system}");
}
