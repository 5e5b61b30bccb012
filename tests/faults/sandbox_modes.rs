//! Session folders are 0700 and every file and FIFO in them 0600, whatever the umask of
//! the agent (here 000, the worst case): a full run with tools, a background task, a
//! sub-agent and file history.

use crate::support::*;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;

fn walk(dir: &Path, bad: &mut Vec<String>, n: &mut usize) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let m = std::fs::symlink_metadata(&p).unwrap();
        let mode = m.permissions().mode() & 0o777;
        *n += 1;
        if m.is_dir() {
            if mode != 0o700 {
                bad.push(format!("{} is {mode:o}", p.display()));
            }
            walk(&p, bad, n);
        } else if !m.file_type().is_symlink() && mode != 0o600 {
            bad.push(format!("{} is {mode:o}", p.display()));
        }
    }
}

#[test]
fn modes_hold_under_umask_000() {
    let env = Env::new();
    std::fs::write(env.cwd.join("a.txt"), "one\n").unwrap();
    let fifos = format!(
        "stat -c '%a %F %n' {}/*.fifo",
        env.session_dir("m").display()
    );
    let script = r#"[
      {"when": "\"content\":\"CHILD\"", "text": "child done"},
      {"when": "GO", "tool_calls": [
        {"name": "Bash", "id": "b", "input": {"command": "FIFOS"}},
        {"name": "Bash", "id": "g", "input": {"command": "echo bg", "background": true}},
        {"name": "Edit", "id": "e", "input": {"path": "a.txt", "old_string": "one", "new_string": "two"}},
        {"name": "Write", "id": "w", "input": {"path": "b.txt", "content": "x"}},
        {"name": "TodoWrite", "id": "t", "input": {"todos": [{"content": "x", "status": "pending"}]}},
        {"name": "SubAgent", "id": "s", "input": {"prompt": "CHILD", "description": "c"}}
      ]},
      {"repeat": true, "text": "done"}
    ]"#;
    let script = script.replace("FIFOS", &fifos);
    let mock = Mock::start(&script);
    let mut c = env.cmd();
    c.args(["--provider", "claude", "--base-url", &mock.base("claude")])
        .args(["--api-key", "sk-test-modes", "--session", "m", "GO"]);
    // SAFETY: umask is async-signal-safe.
    unsafe {
        c.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(env.cwd.join("a.txt")).unwrap(),
        "two\n"
    );
    let agent_home = env.home.join(".bash-agent");
    let mut bad = Vec::new();
    let mut n = 0;
    walk(&agent_home.join("projects"), &mut bad, &mut n);
    assert!(n > 10, "only {n} entries");
    // The FIFOs exist only while the agent runs: its own Bash call looked at them.
    let evs = events(&env.session_dir("m").join("events.jsonl"));
    let stat = evs
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool_use_id"] == "b")
        .expect("no stat result")["content"]
        .as_str()
        .unwrap()
        .to_string();
    let lines: Vec<&str> = stat.lines().collect();
    assert!(lines.len() >= 2, "{stat}");
    for l in lines {
        assert!(l.starts_with("600 fifo "), "{l}");
    }
    assert!(bad.is_empty(), "wrong modes:\n{}", bad.join("\n"));
}
