//! A full disk: BASH_AGENT_HOME on a 64 KiB tmpfs, and a scripted session (long texts and
//! tool outputs) that overflows it. The agent must report the error (stderr, exit 1),
//! never panic, leave only whole JSONL lines behind, and carry on correctly once space is
//! freed. Needs `mount -t tmpfs` (root or CAP_SYS_ADMIN); skipped with a note otherwise.

use crate::support::checks::*;
use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A tmpfs mounted over `dir` for the life of the value.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        let ok = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0755"),
                "tmpfs",
            ])
            .arg(dir)
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            crate::support::skip::skip("cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN)");
            return None;
        }
        Some(Tmpfs(dir.to_path_buf()))
    }

    fn resize(&self, size: &str) {
        let st = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(st.success(), "remount failed");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// 30 calls, each a 3 KB text and a Bash tool printing 3 KB: far more than 64 KiB.
fn overflow_script() -> String {
    let mut steps = Vec::new();
    for i in 0..30 {
        steps.push(serde_json::json!({
            "text": format!("part {i} of a long answer. ").repeat(120),
            "chunk": 400,
            "tool_calls": [{"name": "Bash", "id": format!("b{i}"), "input": {"command": "head -c 3000 /dev/zero | tr '\\0' y; echo"}}]
        }));
    }
    steps.push(serde_json::json!({"text": "all done"}));
    serde_json::Value::Array(steps).to_string()
}

struct Run {
    code: i32,
    stderr: String,
}

fn run(env: &Env, mock: &Mock, args: &[&str]) -> Run {
    let out = env
        .cmd()
        .args([
            "--provider",
            "claude",
            "--base-url",
            &mock.base("claude"),
            "--api-key",
            "sk-disk",
        ])
        .args(args)
        .stdout(Stdio::null())
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Overflow the disk with one session; returns the run and the mount.
fn overflow(env: &Env) -> Option<(Run, Tmpfs)> {
    let fs = Tmpfs::mount(&env.home, "64k")?;
    let mock = Mock::start(&overflow_script());
    let r = run(env, &mock, &["--session", "full", "fill the disk"]);
    assert_no_panic(&r.stderr);
    assert!(
        r.stderr.contains("No space left on device"),
        "the agent did not report the full disk:\n{}",
        r.stderr
    );
    Some((r, fs))
}

#[test]
fn full_disk_leaves_only_whole_lines() {
    let env = Env::new();
    let Some((_r, _fs)) = overflow(&env) else {
        return;
    };
    let files = jsonl_files(&env.home);
    assert!(files.len() >= 2, "{files:?}");
    check_tree(&env.home);
    check_conversation(&env.session_dir("full").join("conversation.jsonl"));
}

#[test]
fn full_disk_run_exits_1() {
    let env = Env::new();
    let Some((r, _fs)) = overflow(&env) else {
        return;
    };
    // Decision 8: a run that could not record its conversation failed.
    assert_eq!(
        r.code, 1,
        "a run that lost conversation writes must fail:\n{}",
        r.stderr
    );
}

#[test]
fn after_space_is_freed_the_session_continues_intact() {
    let env = Env::new();
    let Some((_r, fs)) = overflow(&env) else {
        return;
    };
    fs.resize("8m");
    let mock = Mock::start(r#"[{"text":"recovered"}]"#);
    let r = run(
        &env,
        &mock,
        &["--continue", "MARKER-after-the-disk-was-freed"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_no_panic(&r.stderr);
    // The model saw the new input as the last message (a torn tail left by the full disk
    // must not swallow the next line), and everything is whole again.
    let req = &mock.requests()[0]["body"];
    let last = req["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(
        last.contains("MARKER-after-the-disk-was-freed"),
        "the new input was lost: {last}"
    );
    check_request_pairing(req);
    let conv = env.read("full", "conversation.jsonl");
    assert!(conv
        .lines()
        .any(|l| l == r#"{"role":"user","content":"MARKER-after-the-disk-was-freed"}"#));
    check_tree(&env.home);
    check_conversation(&env.session_dir("full").join("conversation.jsonl"));
}

#[test]
fn full_disk_before_the_session_exists_is_exit_1() {
    let env = Env::new();
    let Some(_fs) = Tmpfs::mount(&env.home, "64k") else {
        return;
    };
    // Fill the file system completely.
    let _ = Command::new("sh")
        .arg("-c")
        .arg("cat /dev/zero > \"$1/filler\" 2>/dev/null; true")
        .arg("sh")
        .arg(&env.home)
        .status();
    let mock = Mock::start(r#"[{"text":"never"}]"#);
    let r = run(&env, &mock, &["--session", "s", "hi"]);
    assert_no_panic(&r.stderr);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("No space left on device"), "{}", r.stderr);
    assert!(
        mock.requests().is_empty(),
        "a request was sent without a session"
    );
    check_tree(&env.home);
}
