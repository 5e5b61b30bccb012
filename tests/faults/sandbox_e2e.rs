//! The kernel sandbox through the real binary and the scripted model. The permission
//! policy is opened wide (BASH_AGENT_BASH_MODE=7777) so that only Landlock stands between
//! a command and the folder outside the workspace; the agent's temp dir is a private
//! folder, so "outside" is really outside every writable place.

use crate::support::*;
use std::path::PathBuf;

pub(crate) struct Box_ {
    pub env: Env,
    pub outside: PathBuf,
    pub tmp: PathBuf,
}

pub(crate) fn setup() -> Box_ {
    let env = Env::new();
    let outside = env.dir.path().join("outside");
    let tmp = env.dir.path().join("tmp");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    let outside = std::fs::canonicalize(outside).unwrap();
    Box_ { env, outside, tmp }
}

pub(crate) fn bash(id: &str, command: &str) -> serde_json::Value {
    serde_json::json!({"name": "Bash", "id": id, "input": {"command": command}})
}

/// One turn running `calls`, then an answer. Returns the tool_result contents by id. An
/// empty `mode` leaves BASH_AGENT_BASH_MODE unset (the default policy).
pub(crate) fn run(
    b: &Box_,
    calls: Vec<serde_json::Value>,
    mode: &str,
    extra: &[&str],
) -> Vec<(String, String)> {
    let script = serde_json::json!([
        {"when": "GO", "tool_calls": calls},
        {"repeat": true, "text": "done"}
    ])
    .to_string();
    let mock = Mock::start(&script);
    let mut c = b.env.cmd();
    c.env("TMPDIR", &b.tmp);
    if !mode.is_empty() {
        c.env("BASH_AGENT_BASH_MODE", mode);
    }
    c.args([
        "--provider",
        "claude",
        "--base-url",
        &mock.base("claude"),
        "--api-key",
        "sk-test-sandbox",
    ]);
    c.args(extra).args(["--session", "sb", "GO"]);
    let out = c.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    events(&b.env.session_dir("sb").join("events.jsonl"))
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .map(|e| {
            (
                e["tool_use_id"].as_str().unwrap_or("").to_string(),
                e["content"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

pub(crate) fn result<'a>(rs: &'a [(String, String)], id: &str) -> &'a str {
    &rs.iter()
        .find(|(i, _)| i == id)
        .unwrap_or_else(|| panic!("no result for {id}: {rs:?}"))
        .1
}

fn b64(s: &str) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for ch in s.as_bytes().chunks(3) {
        let n = ch
            .iter()
            .enumerate()
            .fold(0u32, |a, (i, b)| a | (*b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= ch.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn workspace_write_refuses_every_way_out() {
    let b = setup();
    let o = b.outside.display().to_string();
    // The project sits beside `outside`, so `..` leads there.
    let rel = format!("../{}", b.outside.file_name().unwrap().to_string_lossy());
    std::os::unix::fs::symlink(&b.outside, b.env.cwd.join("link")).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("abs", format!("echo x > {o}/abs.txt"), "abs.txt"),
        ("dotdot", format!("echo x > {rel}/dotdot.txt"), "dotdot.txt"),
        ("symlink", "echo x > link/sym.txt".into(), "sym.txt"),
        (
            "devfd",
            format!("echo x > /dev/fd/../../..{o}/fd.txt"),
            "fd.txt",
        ),
        ("var", format!("D={rel}; echo x > $D/var.txt"), "var.txt"),
        (
            "cd",
            format!(
                "cd ..; cd {}; echo x > cd.txt",
                b.outside.file_name().unwrap().to_string_lossy()
            ),
            "cd.txt",
        ),
        (
            "b64",
            format!(
                "echo {} | base64 -d | sh",
                b64(&format!("echo x > {o}/b64.txt"))
            ),
            "b64.txt",
        ),
        (
            "py",
            format!("python3 -c 'open(\"{o}/py.txt\", \"w\").write(\"x\")'"),
            "py.txt",
        ),
        ("touch", format!("touch {o}/touch.txt"), "touch.txt"),
    ];
    let mut calls: Vec<_> = cases.iter().map(|(id, c, _)| bash(id, c)).collect();
    calls.push(bash("inside", "echo ok > inside.txt && cat inside.txt"));
    calls.push(bash(
        "tmp",
        "echo t > \"$TMPDIR/t.txt\" && cat \"$TMPDIR/t.txt\"",
    ));
    calls.push(bash("null", "echo x > /dev/null && echo null-ok"));
    calls.push(serde_json::json!({"name": "Write", "id": "w-link", "input": {"path": "link/newdir/../w.txt", "content": "x"}}));
    std::fs::write(b.outside.join("e.txt"), "one\n").unwrap();
    calls.push(serde_json::json!({"name": "Edit", "id": "e-link", "input": {"path": "link/e.txt", "old_string": "one", "new_string": "two"}}));
    let rs = run(&b, calls, "7777", &[]);
    for (id, _, file) in &cases {
        let r = result(&rs, id);
        assert!(r.starts_with("Error: "), "{id}: not refused: {r}");
        assert!(!b.outside.join(file).exists(), "{id}: {file} was written");
        assert!(!b.outside.join("newdir").exists(), "{id}: newdir");
    }
    // The command's own error and the agent's one line naming the sandbox and --add-dir.
    let abs = result(&rs, "abs");
    assert!(abs.contains("Permission denied"), "{abs}");
    assert!(
        abs.contains("sandbox workspace-write") && abs.contains("--add-dir"),
        "{abs}"
    );
    assert_eq!(result(&rs, "inside"), "ok");
    assert_eq!(result(&rs, "tmp"), "t");
    assert_eq!(result(&rs, "null"), "null-ok");
    let w = result(&rs, "w-link");
    assert!(w.starts_with("Error: ") && w.contains("--add-dir"), "{w}");
    assert!(!b.outside.join("w.txt").exists());
    let e = result(&rs, "e-link");
    assert!(e.starts_with("Error: ") && e.contains("--add-dir"), "{e}");
    assert_eq!(
        std::fs::read_to_string(b.outside.join("e.txt")).unwrap(),
        "one\n"
    );
}

#[test]
fn read_only_refuses_the_workspace_too() {
    let b = setup();
    let rs = run(
        &b,
        vec![
            bash("ws", "echo x > inside.txt"),
            bash("tmp", "echo t > \"$TMPDIR/t.txt\" && echo tmp-ok"),
            serde_json::json!({"name": "Write", "id": "w", "input": {"path": "w.txt", "content": "x"}}),
        ],
        "7777",
        &["--sandbox", "read-only"],
    );
    let ws = result(&rs, "ws");
    assert!(
        ws.starts_with("Error: ") && ws.contains("sandbox read-only"),
        "{ws}"
    );
    assert!(!b.env.cwd.join("inside.txt").exists());
    assert_eq!(result(&rs, "tmp"), "tmp-ok");
    assert!(result(&rs, "w").starts_with("Error: "));
    assert!(!b.env.cwd.join("w.txt").exists());
}

#[test]
fn add_dir_allows_its_folder_and_off_allows_all() {
    let b = setup();
    let o = b.outside.display().to_string();
    let rs = run(
        &b,
        vec![bash("a", &format!("echo x > {o}/added.txt && echo added"))],
        "7777",
        &["--add-dir", &o],
    );
    assert_eq!(result(&rs, "a"), "added");
    assert!(b.outside.join("added.txt").exists());
    let rs = run(
        &b,
        vec![bash("b", &format!("echo x > {o}/off.txt && echo off"))],
        "7777",
        &["--sandbox", "off"],
    );
    assert_eq!(result(&rs, "b"), "off");
}

#[test]
fn environment_variable_chooses_the_mode_and_bad_values_are_usage_errors() {
    let b = setup();
    let script = r#"[{"when":"GO","tool_calls":[{"name":"Bash","id":"e","input":{"command":"echo x > in.txt"}}]},{"repeat":true,"text":"done"}]"#;
    let mock = Mock::start(script);
    let out = b
        .env
        .cmd()
        .env("TMPDIR", &b.tmp)
        .env("BASH_AGENT_SANDBOX", "read-only")
        .args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args(["--api-key", "k", "--session", "ev", "GO"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!b.env.cwd.join("in.txt").exists());
    let evs = std::fs::read_to_string(b.env.session_dir("ev").join("events.jsonl")).unwrap();
    assert!(evs.contains("sandbox read-only"), "{evs}");
    for args in [
        vec!["--sandbox", "sometimes"],
        vec!["--add-dir", "/no/such/folder"],
    ] {
        let out = b
            .env
            .cmd()
            .args(&args)
            .args(["--api-key", "k", "hi"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(args[0]),
            "{args:?}"
        );
    }
}

#[test]
fn sub_agents_and_background_tasks_inherit_the_sandbox() {
    let b = setup();
    let o = b.outside.display().to_string();
    let script = serde_json::json!([
        {"when": "\"content\":\"CHILD\"", "tool_calls": [bash("c", &format!("echo x > {o}/child.txt; echo x > child-in.txt"))]},
        {"when": "\"content\":\"CHILD\"", "text": "child done"},
        {"when": "GO", "tool_calls": [
            {"name": "Bash", "id": "bg", "input": {"command": format!("echo x > {o}/bg.txt"), "background": true}},
            {"name": "SubAgent", "id": "s", "input": {"prompt": "CHILD", "description": "sandboxed"}}
        ]},
        {"repeat": true, "text": "done"}
    ])
    .to_string();
    let mock = Mock::start(&script);
    let out = b
        .env
        .cmd()
        .env("TMPDIR", &b.tmp)
        .env("BASH_AGENT_BASH_MODE", "7777")
        .args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args([
            "--api-key",
            "k",
            "--sandbox",
            "read-only",
            "--session",
            "p",
            "GO",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let evs = std::fs::read_to_string(b.env.session_dir("p").join("events.jsonl")).unwrap();
    assert!(evs.contains("sub_agent_end"), "{evs}");
    assert!(!b.outside.join("child.txt").exists());
    assert!(!b.outside.join("bg.txt").exists());
    // read-only reached the child: even its workspace write failed.
    assert!(!b.env.cwd.join("child-in.txt").exists());
    let child = std::fs::read_dir(b.env.project_dir())
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("sub_"))
        .expect("no sub-agent session");
    let cev = std::fs::read_to_string(child.path().join("events.jsonl")).unwrap();
    assert!(cev.contains("sandbox read-only"), "{cev}");
    // The background task ran and was refused (its result reached the conversation).
    let conv = std::fs::read_to_string(b.env.session_dir("p").join("conversation.jsonl")).unwrap();
    assert!(conv.contains("bg.txt: Permission denied"), "{conv}");
}

#[test]
fn no_network_denies_tcp_connect() {
    let b = setup();
    let script = r#"[{"when":"GO","tool_calls":[{"name":"Bash","id":"n","input":{"command":"exec 3<>/dev/tcp/127.0.0.1/PORT && echo connected"}}]},{"repeat":true,"text":"done"}]"#;
    let mock = Mock::start("[]");
    let port = mock
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    let script = script.replace("PORT", &port);
    let run_with = |extra: &[&str]| {
        let m = Mock::start(&script);
        let out = b
            .env
            .cmd()
            .env("BASH_AGENT_BASH_MODE", "7777")
            .args(["--provider", "claude", "--base-url", &m.base("claude")])
            .args(["--api-key", "k", "--session", "n"])
            .args(extra)
            .arg("GO")
            .output()
            .unwrap();
        assert!(out.status.success());
        let evs = events(&b.env.session_dir("n").join("events.jsonl"));
        let r = evs
            .iter()
            .rev()
            .find(|e| e["type"] == "tool_result")
            .unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string();
        r
    };
    assert_eq!(run_with(&[]), "connected");
    let denied = run_with(&["--no-network"]);
    assert!(
        denied.starts_with("Error: ") && !denied.contains("connected"),
        "{denied}"
    );
}
