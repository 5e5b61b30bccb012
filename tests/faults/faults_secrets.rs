//! A planted API key never leaks: not into any file under BASH_AGENT_HOME or the project
//! (events, conversation, usage ledger, stats, search index, the sub-agent's session), not
//! into stdout or stderr with `-v`, not into a spawned sub-agent's argv
//! (`/proc/<pid>/cmdline`, read while it runs), and not into the environment that tool
//! processes see (a Bash `env` in the agent and in its sub-agent). The mock server's
//! request record is checked separately: it saw the auth header, redacted.

use crate::support::checks::*;
use crate::support::*;
use std::process::Stdio;

/// Parent: Bash `env` + a SubAgent; the sub-agent: a Bash that waits until `gate` exists
/// (the test creates it once it has read the sub-agent's argv, so the sub-agent is alive
/// while it is read however slow the machine is), a Bash `env`, then an answer.
fn script(with_env_tools: bool, gate: &std::path::Path) -> String {
    let env_call =
        |id: &str| serde_json::json!({"name": "Bash", "id": id, "input": {"command": "env"}});
    let mut parent_tools = vec![
        serde_json::json!({"name": "SubAgent", "id": "s1", "input": {"prompt": "CHILD-TASK", "description": "leak check"}}),
    ];
    // Bounded (about two minutes) so a test that dies before opening the gate leaves no
    // sub-agent behind for long.
    let wait = format!(
        "i=0; while [ ! -e '{}' ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; echo gate-open",
        gate.display()
    );
    let mut child_tools = vec![
        serde_json::json!({"name": "Bash", "id": "g1", "input": {"command": wait}}),
        serde_json::json!({"name": "Read", "id": "r1", "input": {"path": "nothing-here.txt"}}),
    ];
    if with_env_tools {
        parent_tools.insert(0, env_call("e1"));
        child_tools.push(env_call("e2"));
    }
    serde_json::json!([
        {"when": "\"content\":\"CHILD-TASK\"", "text": "child looking around", "tool_calls": child_tools},
        {"when": "\"content\":\"CHILD-TASK\"", "text": "child done"},
        {"when": "PARENT-TASK", "text": "starting a helper", "tool_calls": parent_tools},
        {"when": "PARENT-TASK", "text": "waiting for the helper"},
        {"repeat": true, "text": "noted"}
    ])
    .to_string()
}

struct Leak {
    where_: String,
}

/// Opens the sub-agent's gate when dropped: on success and on every panic path alike.
struct Gate(std::path::PathBuf);

impl Drop for Gate {
    fn drop(&mut self) {
        let _ = std::fs::write(&self.0, "");
    }
}

fn run_and_collect(key: &str, via_env: bool) -> Vec<Leak> {
    let env = Env::new();
    let gate = env.dir.path().join("sub-agent-gate");
    let mock = Mock::start(&script(!via_env, &gate));
    let out_path = env.dir.path().join("stdout.txt");
    let err_path = env.dir.path().join("stderr.txt");
    let mut c = env.cmd();
    c.args([
        "--provider",
        "claude",
        "--base-url",
        &mock.base("claude"),
        "-v",
    ]);
    if via_env {
        c.env("ANTHROPIC_API_KEY", key);
    } else {
        c.args(["--api-key", key]);
    }
    c.args(["--session", "sec", "PARENT-TASK"])
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap());
    let mut parent = Guard(c.spawn().unwrap());
    // Declared after `parent`, so dropped (the gate opened) before the parent is killed.
    let gate = Gate(gate);
    let mut leaks = Vec::new();

    // The sub-agent's pid, from the SubAgent tool result.
    let ev = env.session_dir("sec").join("events.jsonl");
    let mut pid = None;
    wait_until_or(
        "a sub-agent to start",
        30,
        || {
            let text = std::fs::read_to_string(&ev).unwrap_or_default();
            pid = text.split("pid=").nth(1).and_then(|r| {
                r.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
                    .parse::<u32>()
                    .ok()
            });
            pid.is_some()
        },
        || {
            format!(
                "no sub-agent was started: {}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            )
        },
    );
    let pid = pid.unwrap();
    // The pid is reported as soon as the child is spawned, possibly while it is still inside
    // execve: the kernel then shows an empty cmdline until the new image's argv is set up.
    // Read until the argv is there; the gate keeps the sub-agent from exiting meanwhile.
    let mut argv: Vec<String> = Vec::new();
    wait_until_or(
        "the sub-agent's argv in /proc",
        30,
        || {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_else(|e| {
                panic!("sub-agent {pid} already gone ({e}) before its gate was opened")
            });
            argv = cmdline
                .split(|b| *b == 0)
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            argv.iter().any(|a| a == "--sub-agent-notify")
        },
        || {
            format!(
                "not the sub-agent: {:?} ({})\nstderr: {}",
                std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default(),
                std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default(),
                std::fs::read_to_string(&err_path).unwrap_or_default(),
            )
        },
    );
    drop(gate);
    if argv
        .iter()
        .any(|a| a.contains(key) || a.starts_with("--api-key"))
    {
        leaks.push(Leak {
            where_: format!("sub-agent argv: {argv:?}"),
        });
    }

    let st = wait_timeout(&mut parent, 60);
    let stdout = std::fs::read_to_string(&out_path).unwrap();
    let stderr = std::fs::read_to_string(&err_path).unwrap();
    assert!(st.success(), "{st:?}\n{stderr}");
    assert_no_panic(&stderr);
    // The whole scenario really ran: the child's env call and its answer came back.
    let evs = events(&ev);
    assert!(
        evs.iter()
            .any(|e| e["type"] == "sub_agent_result" || e.to_string().contains("child done"))
            || stdout.contains("child done"),
        "the sub-agent's result never arrived: {:?}",
        types(&evs)
    );
    assert!(stderr.len() > 100, "-v printed nothing: {stderr}");
    // The sub-agent's gate really ran (was not refused), so it was held while its argv was read.
    assert!(
        !files_containing(&env.home, b"gate-open").is_empty(),
        "the sub-agent's gate command did not run"
    );

    for (name, text) in [("stdout", &stdout), ("stderr -v", &stderr)] {
        if text.contains(key) {
            leaks.push(Leak {
                where_: name.into(),
            });
        }
    }
    for root in [&env.home, &env.cwd] {
        for f in files_containing(root, key.as_bytes()) {
            leaks.push(Leak { where_: f });
        }
    }
    // The record: the key header was sent, and is only there redacted.
    let reqs = mock.requests();
    assert!(reqs.len() >= 4, "{} requests", reqs.len());
    for r in &reqs {
        assert_eq!(r["headers"]["x-api-key"], "<redacted>", "{}", r["headers"]);
    }
    if std::fs::read_to_string(&mock.record).unwrap().contains(key) {
        leaks.push(Leak {
            where_: "mock request record".into(),
        });
    }
    leaks
}

fn report(leaks: &[Leak], key: &str) {
    assert!(
        leaks.is_empty(),
        "the planted key {key} leaked into:\n  {}",
        leaks
            .iter()
            .map(|l| l.where_.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

#[test]
fn planted_key_from_the_command_line_never_leaks() {
    let key = "sk-PLANTED-123";
    let leaks = run_and_collect(key, false);
    report(&leaks, key);
}

#[test]
fn planted_key_from_the_environment_never_leaks() {
    let key = "sk-PLANTED-ENV-456";
    let leaks = run_and_collect(key, true);
    report(&leaks, key);
}

#[test]
fn provider_errors_do_not_echo_the_key() {
    // A 401 whose body quotes the key back (some proxies do): the agent's error event and
    // stderr must not repeat it.
    let key = "sk-PLANTED-401";
    let env = Env::new();
    let mock = Mock::start(&format!(
        r#"[{{"status":401,"message":"invalid x-api-key {key}"}}]"#
    ));
    let out = env
        .cmd()
        .args([
            "--provider",
            "claude",
            "--base-url",
            &mock.base("claude"),
            "--api-key",
            key,
            "-v",
        ])
        .args(["--session", "e", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_no_panic(&stderr);
    let mut leaks = Vec::new();
    if stderr.contains(key) {
        leaks.push(Leak {
            where_: "stderr".into(),
        });
    }
    for f in files_containing(&env.home, key.as_bytes()) {
        leaks.push(Leak { where_: f });
    }
    report(&leaks, key);
    let _ = Stdio::null();
}
