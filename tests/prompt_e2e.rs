//! The system prompt as the real binary sends it: environment from the process, locale,
//! instruction files from `$BASH_AGENT_HOME/.bash-agent` and the working directory, and a
//! missing `--skill` reported once per process even across several model calls.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use bash_agent::mock::Server;
use std::fs;
use std::process::{Command, Stdio};

#[test]
fn binary_sends_the_prompt_and_warns_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    let (home, work) = (root.join("home"), root.join("work"));
    fs::create_dir_all(home.join(".bash-agent")).unwrap();
    fs::create_dir_all(&work).unwrap();
    fs::write(home.join(".bash-agent/CLAUDE.md"), "global rules here\n").unwrap();
    fs::write(work.join("AGENTS.md"), "project rules here\n").unwrap();
    let record = root.join("req.jsonl");
    // Two model calls in one turn: a tool call, then the answer.
    let script = r#"[{"tool_calls":[{"name":"Glob","input":{"pattern":"*.md"}}]},{"text":"done"}]"#;
    let server = Server::start(script, Some(&record), 0).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_bash-agent"))
        .args([
            "--base-url",
            &server.url,
            "--api-key",
            "x",
            "--skill",
            "nope-skill",
            "hi",
        ])
        .current_dir(&work)
        .env("BASH_AGENT_HOME", &home)
        .env("HOME", &home)
        .env("LANG", "zh_CN.UTF-8")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("SHELL", "/bin/testsh")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let msg = "Skill not found: nope-skill (expected .claude/skills/nope-skill/SKILL.md or ~/.claude/skills/nope-skill/SKILL.md)";
    assert_eq!(stderr.matches(msg).count(), 1, "{stderr}");

    let reqs: Vec<serde_json::Value> = fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reqs.len(), 2);
    let system = reqs[0]["body"]["system"].as_str().unwrap();
    assert_eq!(
        reqs[1]["body"]["system"].as_str().unwrap(),
        system,
        "stable prompt across calls"
    );
    assert!(system.starts_with("<agent-identity>\n你是 bash-agent"));
    let platform = bash_agent::agent::prompt::platform();
    let env = format!(
        "<environment>\nlang: zh_CN\npwd: {}\nhome: {}\nplatform: {platform}\nshell: /bin/testsh\n</environment>",
        work.display(),
        home.display()
    );
    assert!(system.contains(&env), "{system}");
    assert!(system.contains(
        "<instruction-files>\n<instruction-file name=\"global\">\nglobal rules here\n</instruction-file>\n<instruction-file name=\"project\">\nproject rules here\n</instruction-file>\n</instruction-files>"
    ));
    assert!(!system.contains("<selected-skills>"));
    assert!(system.ends_with("</output-language>"));
}
