//! Provider keys never reach a tool. Keys are planted in ANTHROPIC_API_KEY,
//! OPENAI_API_KEY and DEEPSEEK_API_KEY (and a look-alike GITHUB_TOKEN); the scripted model
//! runs `env`, `printenv` and `cat /proc/self/environ` through Bash in the agent, in a
//! sub-agent and in a background task, and `cat`s a file holding the key. Afterwards no
//! key is in any file under BASH_AGENT_HOME or the project, on stdout or stderr, or in a
//! request body the mock recorded, while every request carried the auth header. A
//! harmless planted variable shows up in the same places, so the commands really ran and
//! their output really travelled.

use crate::support::checks::files_containing;
use crate::support::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

const VISIBLE: &str = "visible-marker-5150";

fn bash(id: &str, command: &str, background: bool) -> serde_json::Value {
    let mut input = serde_json::json!({ "command": command });
    if background {
        input["background"] = true.into();
    }
    serde_json::json!({"name": "Bash", "id": id, "input": input})
}

const DUMP: [&str; 3] = ["env", "printenv", "cat /proc/self/environ | tr '\\0' '\\n'"];

fn script() -> String {
    let mut parent: Vec<serde_json::Value> = DUMP
        .iter()
        .enumerate()
        .map(|(i, c)| bash(&format!("p{i}"), c, false))
        .collect();
    parent.push(bash(
        "pbg",
        &format!("echo BG-$PLANTED_VISIBLE; {}", DUMP.join("; ")),
        true,
    ));
    parent.push(bash("pcat", "cat notes.txt", false));
    parent.push(serde_json::json!({"name": "SubAgent", "id": "s1", "input": {"prompt": "CHILD-TASK", "description": "leak check"}}));
    let mut child: Vec<serde_json::Value> = DUMP
        .iter()
        .enumerate()
        .map(|(i, c)| bash(&format!("c{i}"), c, false))
        .collect();
    child.push(bash("cvis", "echo CH-$PLANTED_VISIBLE", false));
    child.push(bash(
        "cbg",
        &format!("echo CBG-$PLANTED_VISIBLE; {}", DUMP.join("; ")),
        true,
    ));
    serde_json::json!([
        {"when": "\"content\":\"CHILD-TASK\"", "text": "child looking", "tool_calls": child},
        {"when": "\"content\":\"CHILD-TASK\"", "text": "child done"},
        {"when": "PARENT-TASK", "text": "looking around", "tool_calls": parent},
        {"when": "PARENT-TASK", "text": "waiting"},
        {"repeat": true, "text": "noted"}
    ])
    .to_string()
}

/// Run the scenario with `provider`, the configured key in `key_var`; all three provider
/// variables and GITHUB_TOKEN hold planted values. Returns the leaks found.
fn scenario(provider: &str, key_var: &str, auth_header: &str) {
    let env = Env::new();
    let mock = Mock::start(&script());
    let planted = [
        ("ANTHROPIC_API_KEY", "sk-ant-PLANTED-a1b2c3"),
        ("OPENAI_API_KEY", "sk-oai-PLANTED-d4e5f6"),
        ("DEEPSEEK_API_KEY", "sk-ds-PLANTED-g7h8i9"),
        ("GITHUB_TOKEN", "ghp-PLANTED-j0k1l2"),
    ];
    let key = planted.iter().find(|(n, _)| *n == key_var).unwrap().1;
    let notes = env.cwd.join("notes.txt");
    std::fs::write(&notes, format!("the key is {key}\n")).unwrap();
    let out_path = env.dir.path().join("stdout.txt");
    let err_path = env.dir.path().join("stderr.txt");
    let mut c = env.cmd();
    c.args(["--provider", provider, "--base-url", &mock.base(provider)])
        .arg("-v")
        .env("PLANTED_VISIBLE", VISIBLE)
        // `cat /proc/self/environ` is a system read for the policy; let it through so
        // that only the environment scrub stands between the command and the keys.
        .env("BASH_AGENT_BASH_MODE", "7777");
    for (n, v) in planted {
        c.env(n, v);
    }
    let mut child = c
        .args(["--session", "sec", "PARENT-TASK"])
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > scaled(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the agent did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = std::fs::read_to_string(&out_path).unwrap();
    let stderr = std::fs::read_to_string(&err_path).unwrap();
    assert!(status.success(), "{status:?}\n{stderr}");

    // The commands ran and their output reached the model.
    let record = std::fs::read_to_string(&mock.record).unwrap();
    for mark in [
        format!("BG-{VISIBLE}"),
        format!("CH-{VISIBLE}"),
        format!("CBG-{VISIBLE}"),
        format!("PLANTED_VISIBLE={VISIBLE}"),
        "the key is [REDACTED]".to_string(),
    ] {
        assert!(
            record.contains(&mark),
            "no {mark:?} in the requests; events:\n{}",
            env.read("sec", "events.jsonl")
        );
    }
    let reqs = mock.requests();
    assert!(reqs.len() >= 5, "{} requests", reqs.len());
    for r in &reqs {
        assert_eq!(
            r["headers"][auth_header], "<redacted>",
            "the auth header was not sent: {}",
            r["headers"]
        );
    }

    let mut leaks = Vec::new();
    for (name, value) in planted {
        for (place, text) in [
            ("stdout", &stdout),
            ("stderr", &stderr),
            ("request record", &record),
        ] {
            if text.contains(value) {
                leaks.push(format!("{name} in {place}"));
            }
        }
        for root in [&env.home, &env.cwd] {
            for f in files_containing(root, value.as_bytes())
                .into_iter()
                .filter(|f| std::path::Path::new(f) != notes)
            {
                leaks.push(format!("{name} in {f}"));
            }
        }
    }
    assert!(leaks.is_empty(), "leaks:\n  {}", leaks.join("\n  "));
}

#[test]
fn provider_keys_never_reach_tools_claude() {
    scenario("claude", "ANTHROPIC_API_KEY", "x-api-key");
}

#[test]
fn provider_keys_never_reach_tools_openai() {
    scenario("openai", "OPENAI_API_KEY", "authorization");
}
