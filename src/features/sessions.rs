//! `bash-agent sessions rm NAME | prune --sub-agents [--older-than 30d] [--dry-run] |
//! show NAME` for the current project. Never touches a running session: removal happens
//! while holding the session's run lock, so no agent can start on it meanwhile.
use crate::cli::{Opts, SessionsCmd};
use crate::session::lock::{LockError, SessionLock};
use crate::session::store::last_activity;
use serde_json::{json, Value};
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

/// `bash-agent sessions …`.
pub fn cmd_sessions(o: &Opts, action: &SessionsCmd) -> anyhow::Result<i32> {
    let project = crate::app::project_dir()?;
    if let SessionsCmd::Rm { name } | SessionsCmd::Show { name } = action {
        if let Err(e) = crate::session::paths::validate_session_name(name) {
            crate::app::print_error(&e);
            return Ok(crate::app::EXIT_USAGE);
        }
    }
    match action {
        SessionsCmd::Rm { name } => cmd_rm(o, &project, name),
        SessionsCmd::Prune {
            sub_agents,
            older_than,
            dry_run,
        } => cmd_prune(o, &project, *sub_agents, older_than.as_deref(), *dry_run),
        SessionsCmd::Show { name } => super::session_show::cmd_show(o, &project, name),
    }
}

fn cmd_rm(o: &Opts, project: &Path, name: &str) -> anyhow::Result<i32> {
    let dir = match session_dir(project, name) {
        Ok(d) => d,
        Err(e) => {
            crate::app::print_error(&e);
            return Ok(crate::app::EXIT_FAIL);
        }
    };
    match remove_session(&dir, name) {
        Ok(()) => {
            if o.json {
                println!(
                    "{}",
                    json!({"removed": name, "path": dir.to_string_lossy()})
                );
            } else {
                println!("Removed session {name} ({})", dir.display());
            }
            Ok(crate::app::EXIT_OK)
        }
        Err(e) => {
            crate::app::print_error(&e);
            Ok(crate::app::EXIT_FAIL)
        }
    }
}

fn cmd_prune(
    o: &Opts,
    project: &Path,
    sub_agents: bool,
    older_than: Option<&str>,
    dry_run: bool,
) -> anyhow::Result<i32> {
    if !sub_agents {
        crate::app::print_error(
            "sessions prune needs --sub-agents (only sub-agent sessions are pruned)",
        );
        return Ok(crate::app::EXIT_USAGE);
    }
    let age_text = older_than.unwrap_or(DEFAULT_PRUNE_AGE);
    let Some(age) = crate::util::time::parse_duration(age_text) else {
        crate::app::print_error(&format!(
            "Invalid --older-than: {age_text} (use e.g. 30d, 12h)"
        ));
        return Ok(crate::app::EXIT_USAGE);
    };
    let cutoff = crate::util::time::now_secs() - age;
    let mut names: Vec<String> = std::fs::read_dir(project)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("sub_"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut removed = Vec::new();
    let mut skipped = Vec::new();
    for name in names {
        let dir = project.join(&name);
        let act = last_activity(&dir);
        if act >= cutoff {
            continue;
        }
        let when = crate::util::time::local_minute(act);
        if let Some(pid) = running_pid(&dir) {
            let reason = format!("running ({})", pid_text(pid));
            if !o.json {
                println!("skipped {name}: {reason}");
            }
            skipped.push(json!({"name": name, "reason": reason}));
            continue;
        }
        if dry_run {
            if !o.json {
                println!("would remove {name} (last activity {when})");
            }
            removed.push(json!({"name": name, "last_activity": when}));
            continue;
        }
        match remove_session(&dir, &name) {
            Ok(()) => {
                if !o.json {
                    println!("removed {name} (last activity {when})");
                }
                removed.push(json!({"name": name, "last_activity": when}));
            }
            Err(e) => {
                if !o.json {
                    println!("skipped {name}: {e}");
                }
                skipped.push(json!({"name": name, "reason": e}));
            }
        }
    }
    if o.json {
        println!(
            "{}",
            json!({"dry_run": dry_run, "older_than": age_text, "removed": removed, "skipped": skipped})
        );
    } else if removed.is_empty() && skipped.is_empty() {
        println!("No sub-agent sessions older than {age_text}.");
    } else {
        let verb = if dry_run {
            "would be removed"
        } else {
            "removed"
        };
        println!("{} sub-agent session(s) {verb}.", removed.len());
    }
    Ok(crate::app::EXIT_OK)
}

/// One turn for `show`: the input and what followed.
#[derive(Debug, Clone, Default)]
pub struct TurnView {
    pub input: String,
    pub answer: String,
    pub tools: Vec<String>,
    pub errors: Vec<String>,
}

/// The last `n` turns (from `user_input` events) of an events.jsonl.
pub fn last_turns(events: &Path, n: usize) -> Vec<TurnView> {
    let (evs, _) = crate::session::events::read_all(events);
    let mut turns: Vec<TurnView> = Vec::new();
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    for v in &evs {
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "user_input" => turns.push(TurnView {
                input: s(v, "content"),
                ..Default::default()
            }),
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
