//! `bash-agent init` through the real binary and the scripted model server: one call whose
//! request carries the repository summary, AGENTS.md written at the git root (also when run
//! from a subfolder), an existing file kept unless `--force`, and `--output-format json`'s
//! result object.
use crate::support::*;
use serde_json::Value;

const ANSWER: &str = "# AGENTS.md\n\nBuild with `cargo build`; test with `make test`.\n";

fn repo(env: &Env) -> std::path::PathBuf {
    let r = &env.cwd;
    std::fs::create_dir_all(r.join(".git")).unwrap();
    std::fs::write(r.join(".git/HEAD"), "ref: refs/heads/trunk\n").unwrap();
    std::fs::write(
        r.join(".git/config"),
        "[remote \"origin\"]\n\turl = https://example.com/acme/widget.git\n",
    )
    .unwrap();
    std::fs::write(r.join("README.md"), "# Widget\nA widget maker.\n").unwrap();
    std::fs::write(
        r.join("Cargo.toml"),
        "[package]\nname = \"widget\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(r.join("Makefile"), "test:\n\tcargo test\n").unwrap();
    let sub = r.join("src");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("main.rs"), "fn main() {}\n").unwrap();
    sub
}

fn script() -> String {
    serde_json::json!([{"text": format!("```markdown\n{ANSWER}```\n"), "repeat": true,
        "usage": {"input": 300, "output": 40}}])
    .to_string()
}

fn run_init(env: &Env, mock: &Mock, cwd: &std::path::Path, args: &[&str]) -> std::process::Output {
    // Flags after the subcommand: before it they would make `init` the prompt.
    let mut c = env.cmd_in(
        cwd,
        &["init", "--base-url", &mock.base("claude"), "--api-key", "k"],
    );
    c.args(args);
    c.output().unwrap()
}

fn sent_text(req: &Value) -> String {
    req["body"]["messages"][0]["content"].to_string()
}

#[test]
fn init_writes_agents_md_from_the_repository_summary() {
    let env = Env::new();
    let sub = repo(&env);
    let mock = Mock::start(&script());
    let out = run_init(&env, &mock, &sub, &[]);
    expect_code(&out, 0);
    let path = env.cwd.join("AGENTS.md");
    assert_eq!(stdout(&out), format!("{}\n", path.display()));
    // The whole-file fence the model added is gone.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), ANSWER);
    let reqs = mock.requests();
    assert_eq!(reqs.len(), 1);
    let sent = sent_text(&reqs[0]);
    for want in [
        "Write a starter AGENTS.md",
        "Git branch: trunk",
        "Git remote (origin): https://example.com/acme/widget.git",
        "A widget maker.",
        "## Cargo.toml (head)",
        "name = \\\"widget\\\"",
        "- make test",
        "- cargo test",
        "src/",
    ] {
        assert!(sent.contains(want), "{want}: {sent}");
    }
    assert!(reqs[0]["body"].get("tools").is_none(), "no tools offered");
    // No session is made for it.
    assert!(!env.projects_root().exists(), "no session folder");
}

#[test]
fn init_keeps_an_existing_file_unless_forced_and_json_gives_a_result() {
    let env = Env::new();
    repo(&env);
    let path = env.cwd.join("AGENTS.md");
    std::fs::write(&path, "mine\n").unwrap();
    let mock = Mock::start(&script());
    let out = run_init(&env, &mock, &env.cwd, &[]);
    expect_code(&out, 1);
    assert!(
        stderr(&out).contains("already exists (use --force"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n");
    assert!(mock.requests().is_empty(), "no call when refusing");
    // The refusal in json is a result with is_error.
    let out = run_init(&env, &mock, &env.cwd, &["--output-format", "json"]);
    expect_code(&out, 1);
    let r: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(r["is_error"], true);
    assert!(r["result"].as_str().unwrap().contains("already exists"));
    // --force replaces it; json prints one result object with the path and the usage.
    let out = run_init(
        &env,
        &mock,
        &env.cwd,
        &[
            "--force",
            "--output-format",
            "json",
            "--model",
            "claude-sonnet-4",
        ],
    );
    expect_code(&out, 0);
    let so = stdout(&out);
    let l: Vec<&str> = so.lines().collect();
    assert_eq!(l.len(), 1, "{l:?}");
    let r: Value = serde_json::from_str(l[0]).unwrap();
    assert_eq!(r["type"], "result");
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["is_error"], false);
    assert_eq!(r["result"], ANSWER);
    assert_eq!(r["path"], path.to_str().unwrap());
    assert_eq!(r["num_turns"], 1);
    assert!(r["session_id"].is_null());
    assert_eq!(r["usage"]["input_tokens"], 300);
    assert_eq!(r["usage"]["output_tokens"], 40);
    let cost = (300.0 * 3.0 + 40.0 * 15.0) / 1e6;
    assert!(
        (r["total_cost_usd"].as_f64().unwrap() - cost).abs() < 1e-12,
        "{r}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), ANSWER);
    // Only the file itself: no temp file left next to it.
    let stray: Vec<_> = std::fs::read_dir(&env.cwd)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

#[test]
fn init_without_a_key_fails_with_a_json_result() {
    let env = Env::new();
    let out = env.run(&["init", "--output-format", "json"]);
    expect_code(&out, 1);
    let r: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(r["is_error"], true);
    assert!(r["result"].as_str().unwrap().contains("No API key"));
    assert!(!env.cwd.join("AGENTS.md").exists());
}
