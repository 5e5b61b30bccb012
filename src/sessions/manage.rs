//! `bash-agent sessions rm NAME | prune --sub-agents [--older-than 30d] [--dry-run] |
//! show NAME` for the current project. Never touches a running session: removal happens
//! while holding the session's run lock, so no agent can start on it meanwhile.
use crate::session::lock::{LockError, SessionLock};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Default age for `prune`.
pub const DEFAULT_PRUNE_AGE: &str = "30d";
/// Turns shown by `show`.
pub const SHOW_TURNS: usize = 3;

/// The pid running on a session: the holder of its lock, or the pid in a fresh
/// `agent_running.flag` (a shell-reference agent takes no lock).
pub fn running_pid(dir: &Path) -> Option<u32> {
    if let Some(pid) = crate::session::lock::holder(dir) {
        return Some(pid);
    }
    let flag = crate::util::fsx::read_lossy(&dir.join("agent_running.flag"));
    let pid: i32 = flag.split_whitespace().next()?.parse().ok()?;
    let alive = pid > 0 && nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
    alive.then_some(pid as u32)
}

/// `pid N`, or `pid unknown` for a lock holder that did not write its pid.
pub fn pid_text(pid: u32) -> String {
    if pid == 0 {
        "pid unknown".into()
    } else {
        format!("pid {pid}")
    }
}

/// Validate NAME and find its folder in `project` (a real directory, not a symlink).
pub fn session_dir(project: &Path, name: &str) -> Result<PathBuf, String> {
    crate::session::paths::validate_session_name(name)?;
    let dir = project.join(name);
    match std::fs::symlink_metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(dir),
        Ok(_) => Err(format!("{} is not a session folder", dir.display())),
        Err(_) => Err(format!("no session named {name} in this project")),
    }
}

/// Remove a session folder while holding its lock. `Err` names the reason.
pub fn remove_session(dir: &Path, name: &str) -> Result<(), String> {
    if let Some(pid) = running_pid(dir) {
        return Err(format!("session {name} is running ({})", pid_text(pid)));
    }
    let lock = SessionLock::acquire(dir, name).map_err(|e| match e {
        LockError::InUse { pid, .. } => format!("session {name} is running (pid {pid})"),
        e => e.to_string(),
    })?;
    let res = std::fs::remove_dir_all(dir).map_err(|e| format!("removing {}: {e}", dir.display()));
    drop(lock);
    res
}

/// One turn for `show`: the input and what followed.
#[derive(Debug, Clone, Default)]
pub struct TurnView {
    /// The turn's number, as `rewind --to` takes it.
    pub number: usize,
    pub input: String,
    pub answer: String,
    pub tools: Vec<String>,
    pub errors: Vec<String>,
}

/// The last `n` turns (from `user_input` events) of an events.jsonl. A `rewind` event
/// drops the turns from its `to` on and its undo puts them back (docs/rewind.md), so the
/// numbers are those `rewind --to` takes.
pub fn last_turns(events: &Path, n: usize) -> Vec<TurnView> {
    let (evs, _) = crate::session::events::read_all(events);
    let mut turns: Vec<TurnView> = Vec::new();
    let mut rewound: std::collections::HashMap<u64, Vec<TurnView>> = Default::default();
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    for v in &evs {
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "user_input" => turns.push(TurnView {
                number: turns.len() + 1,
                input: s(v, "content"),
                ..Default::default()
            }),
            "rewind" if s(v, "action") == "rewind" => {
                let keep = (num(v, "to").max(1) - 1) as usize;
                if keep <= turns.len() {
                    rewound.insert(num(v, "id"), turns.split_off(keep));
                }
            }
            "rewind" if s(v, "action") == "undo" => {
                if let Some(back) = rewound.remove(&num(v, "id")) {
                    turns.extend(back);
                }
            }
            "text" => {
                if let Some(t) = turns.last_mut() {
                    t.answer.push_str(&s(v, "content"));
                }
            }
            "tool_call" => {
                if let Some(t) = turns.last_mut() {
                    t.tools.push(s(v, "name"));
                }
            }
            "error" => {
                if let Some(t) = turns.last_mut() {
                    t.errors.push(s(v, "message"));
                }
            }
            "stop" => {
                if let Some(t) = turns.last_mut() {
                    if !t.answer.is_empty() && !t.answer.ends_with('\n') {
                        t.answer.push('\n');
                    }
                }
            }
            _ => {}
        }
    }
    let skip = turns.len().saturating_sub(n);
    turns.split_off(skip)
}
