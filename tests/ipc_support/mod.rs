//! Shared helpers of the ipc_* integration tests.
#![allow(dead_code)]
use bash_agent::session::events::EventLog;
use bash_agent::session::Session;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A fresh, initialised session in a temp folder (quiet event log).
pub fn session(dir: &Path, id: &str) -> (Session, EventLog) {
    let s = Session::new(dir, id);
    let log = EventLog::new(s.events(), None);
    s.init(&log).expect("init");
    (s, log)
}

/// Wait until `f` holds (polling), or fail after `secs`.
pub fn wait_until(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Event lines of a session as JSON values.
pub fn events(s: &Session) -> Vec<serde_json::Value> {
    bash_agent::session::events::read_all(&s.events()).0
}

/// Events of a given type.
pub fn of_type(s: &Session, ty: &str) -> Vec<serde_json::Value> {
    events(s).into_iter().filter(|e| e["type"] == ty).collect()
}

/// The project folder the binary uses for `cwd` under `home` (BASH_AGENT_HOME).
pub fn project_dir(home: &Path, cwd: &Path) -> PathBuf {
    let cwd = std::fs::canonicalize(cwd).expect("canonicalize");
    home.join(".bash-agent")
        .join("projects")
        .join(bash_agent::session::paths::project_key(&cwd))
}
