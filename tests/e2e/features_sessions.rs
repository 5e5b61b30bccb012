//! Session management: rm, prune --sub-agents (never a running session), show.

use crate::support::*;
use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};

/// A process holding the session's lock (`flock <dir>/.lock sleep 30`), in its own
/// process group; killed on drop.
struct Holder(Child);

impl Holder {
    fn new(dir: &std::path::Path) -> Holder {
        let child = Command::new("flock")
            .arg(dir.join(".lock"))
            .args(["sleep", "30"])
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        wait_until("the lock to be held", 20, || {
            bash_agent::session::lock::holder(dir).is_some()
        });
        Holder(child)
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        let pgid = nix::unistd::Pid::from_raw(self.0.id() as i32);
        let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
        let _ = self.0.wait();
    }
}

fn old_session(env: &Env, id: &str, age_days: i64) -> std::path::PathBuf {
    let s = env.session(id);
    std::fs::write(
        s.events(),
        "{\"type\":\"session_start\",\"session_id\":\"x\"}\n",
    )
    .unwrap();
    set_mtime(
        &s.events(),
        bash_agent::util::time::now_secs() - age_days * 86400,
    );
    s.dir
}

#[test]
fn prune_never_touches_a_running_session() {
    let env = Env::new();
    let old = old_session(&env, "sub_20200101-000000-aaaa", 90);
    let busy = old_session(&env, "sub_20200101-000000-bbbb", 90);
    let recent = old_session(&env, "sub_20200101-000000-cccc", 2);
    let main = old_session(&env, "main-session", 90);
    let _h = Holder::new(&busy);

    // --sub-agents is required.
    expect_code(&env.run(&["sessions", "prune"]), 2);
    expect_code(
        &env.run(&["sessions", "prune", "--sub-agents", "--older-than", "x"]),
        2,
    );

    let o = env.run(&["sessions", "prune", "--sub-agents", "--dry-run"]);
    expect_code(&o, 0);
    let out = stdout(&o);
    assert!(
        out.contains("would remove sub_20200101-000000-aaaa"),
        "{out}"
    );
    assert!(
        out.contains("skipped sub_20200101-000000-bbbb: running"),
        "{out}"
    );
    assert!(
        !out.contains("cccc") && !out.contains("main-session"),
        "{out}"
    );
    assert!(old.is_dir(), "dry run removes nothing");

    let o = env.run(&["sessions", "prune", "--sub-agents", "--json"]);
    expect_code(&o, 0);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["removed"][0]["name"], "sub_20200101-000000-aaaa");
    assert_eq!(v["skipped"][0]["name"], "sub_20200101-000000-bbbb");
    assert!(!old.exists());
    assert!(busy.is_dir() && recent.is_dir() && main.is_dir());

    // A shorter age reaches the recent one.
    let o = env.run(&["sessions", "prune", "--sub-agents", "--older-than", "1d"]);
    expect_code(&o, 0);
    assert!(!recent.exists());
    assert!(busy.is_dir(), "still running, still there");
}

#[test]
fn rm_refuses_running_and_bad_names() {
    let env = Env::new();
    let keep = old_session(&env, "keep", 1);
    let busy = old_session(&env, "busy", 1);
    let outside = env.cwd.join("precious");
    std::fs::create_dir_all(&outside).unwrap();
    {
        let _h = Holder::new(&busy);
        let o = env.run(&["sessions", "rm", "busy"]);
        expect_code(&o, 1);
        assert!(stderr(&o).contains("running"), "{}", stderr(&o));
        assert!(busy.is_dir());
    }
    for bad in ["../proj", "..", ".", "a/b", "-x"] {
        let o = env.run(&["sessions", "rm", "--", bad]);
        assert_ne!(o.status.code(), Some(0), "{bad}");
    }
    assert!(outside.is_dir() && keep.is_dir());
    expect_code(&env.run(&["sessions", "rm", "nosuch"]), 1);
    let o = env.run(&["sessions", "rm", "busy"]);
    expect_code(&o, 0);
    assert!(!busy.exists());
    assert!(stdout(&o).contains("Removed session busy"));
}

#[test]
fn show_prints_meta_stats_plan_and_last_turns() {
    let env = Env::new();
    let dir = env.project_dir().join("rich");
    copy_fixture("-tmp-rich-proj/rich", &dir);
    std::fs::write(dir.join("plan.md"), "1. tidy notes\n").unwrap();
    let o = env.run(&["sessions", "show", "rich"]);
    expect_code(&o, 0);
    let t = stdout(&o);
    for want in [
        "session   rich",
        &format!("path      {}", dir.display()),
        "running   no",
        "turns     2",
        "1. tidy notes",
        "> RICH_START please tidy notes",
        "All done: beta is now BETA",
        "héllo 世界",
    ] {
        assert!(t.contains(want), "missing {want:?} in\n{t}");
    }
    let o = env.run(&["sessions", "show", "rich", "--json"]);
    expect_code(&o, 0);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["stats"]["agent_request_count"], 7);
    assert_eq!(v["running_pid"], Value::Null);
    assert_eq!(v["last_turns"].as_array().unwrap().len(), 2);
    assert_eq!(v["usage"]["calls"], 7);

    let _h = Holder::new(&dir);
    let v: Value =
        serde_json::from_str(stdout(&env.run(&["sessions", "show", "rich", "--json"])).trim())
            .unwrap();
    assert!(v["running_pid"].is_u64(), "{v}");
}
