//! The run's children: sub-agents and background tasks still running. Each runs in its own
//! process group; when a signal ends the run (SIGINT, SIGTERM, SIGHUP), [`Children::end_all`]
//! terminates every group still alive: sub-agents are logged as cancelled and the counter
//! settled; a task's own result is recorded (by this run, or by its reporter for the next
//! one), so no orphan outlives the run it belongs to and no result is lost.
use crate::ipc::notify::Reported;
use crate::session::events::{ev, EventLog};
use crate::session::Session;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a child gets between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_millis(1500);

/// How long a child stopped by KillShell or `/kill` gets between SIGTERM and the SIGKILL of
/// its whole process group (a task that ignores SIGTERM, and its children, still end; a
/// sub-agent has time for its own 1.5 s [`GRACE`] first).
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// What kind of child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildKind {
    SubAgent,
    Task,
}

#[derive(Debug, Clone)]
struct Child {
    kind: ChildKind,
    id: String,
    pgid: i32,
    /// The command (a task) or the description (a sub-agent), for `/bashes`.
    label: String,
    since: Instant,
}

/// A child still running, as `/bashes` lists it.
#[derive(Debug, Clone)]
pub struct Running {
    pub kind: ChildKind,
    pub id: String,
    pub label: String,
    pub secs: u64,
}

/// The registry (one per run).
#[derive(Default)]
pub struct Children {
    live: Mutex<Vec<Child>>,
    /// Stopped by the person (`/kill`): id → whether its result was shown yet.
    stopped: Mutex<std::collections::HashMap<String, bool>>,
}

/// `id` and `pid` from a start message (`…=<id>, pid=<pid>`).
fn parse_started(text: &str) -> Option<(String, i32)> {
    let (head, pid) = text.rsplit_once(", pid=")?;
    let id = head.rsplit_once('=')?.1.to_string();
    Some((id, pid.trim().parse().ok()?))
}

fn alive(pgid: i32) -> bool {
    killpg(Pid::from_raw(pgid), None).is_ok()
}

impl Children {
    /// Remember a child from the tool's start message.
    pub fn started(&self, kind: ChildKind, message: &str, label: &str) {
        if let Some((id, pgid)) = parse_started(message) {
            if pgid > 1 {
                let mut l = self.live.lock().unwrap_or_else(|p| p.into_inner());
                l.push(Child {
                    kind,
                    id,
                    pgid,
                    label: label.split_whitespace().collect::<Vec<_>>().join(" "),
                    since: Instant::now(),
                });
            }
        }
    }

    /// The children still running, oldest first (a task whose result arrived is done).
    pub fn running(&self, reported: &Reported) -> Vec<Running> {
        let done = reported.lock().unwrap_or_else(|p| p.into_inner()).clone();
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|c| alive(c.pgid) && !done.contains(&c.id))
            .map(|c| Running {
                kind: c.kind,
                id: c.id.clone(),
                label: c.label.clone(),
                secs: c.since.elapsed().as_secs(),
            })
            .collect()
    }

    /// The running child `key` names: its id, its number in [`Children::running`]'s list
    /// (from 1), or "" for the newest task.
    pub fn find(&self, reported: &Reported, key: &str) -> Result<Running, String> {
        let list = self.running(reported);
        let key = key.trim();
        let hit = if key.is_empty() {
            list.iter().rev().find(|c| c.kind == ChildKind::Task)
        } else if let Ok(n) = key.parse::<usize>() {
            n.checked_sub(1).and_then(|i| list.get(i))
        } else {
            list.iter().find(|c| c.id == key)
        };
        match hit {
            Some(c) => Ok(c.clone()),
            None if list.is_empty() => Err("no background task or sub-agent is running".into()),
            None => Err(format!(
                "no running task {key:?}; running: {}",
                list.iter()
                    .map(|c| c.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Stop one child: SIGTERM to its process group, SIGKILL to the group [`STOP_GRACE`]
    /// later if any of it still runs (on a thread of its own: nothing waits for it). Its
    /// result still arrives: a task's exit code, a sub-agent's end. Returns what was
    /// stopped.
    pub fn stop(&self, reported: &Reported, key: &str) -> Result<Running, String> {
        let c = self.find(reported, key)?;
        let pgid = self
            .live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|x| x.id == c.id)
            .map(|x| x.pgid)
            .ok_or_else(|| format!("{} is no longer running", c.id))?;
        killpg(Pid::from_raw(pgid), Signal::SIGTERM)
            .map_err(|e| format!("cannot stop {}: {e}", c.id))?;
        escalate(pgid);
        Ok(c)
    }

    /// End every child still running with the run: SIGTERM to each group. Sub-agents get a
    /// grace, then SIGKILL, and are logged as cancelled and taken off the counter. A task's
    /// result is its own: the grace lets one that ends at once be recorded by this run
    /// (`reported`); one that takes longer is ended and recorded by its reporter for the
    /// next run (agent/task_reporter.rs). Returns how many were running.
    pub fn end_all(&self, session: &Session, events: &EventLog, reported: &Reported) -> usize {
        let all: Vec<Child> =
            std::mem::take(&mut *self.live.lock().unwrap_or_else(|p| p.into_inner()));
        let running: Vec<Child> = all.into_iter().filter(|c| alive(c.pgid)).collect();
        for c in &running {
            let _ = killpg(Pid::from_raw(c.pgid), Signal::SIGTERM);
        }
        let done = |c: &Child| match c.kind {
            ChildKind::SubAgent => !alive(c.pgid),
            ChildKind::Task => reported
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .contains(&c.id),
        };
        let deadline = Instant::now() + GRACE;
        while !running.iter().all(done) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        for c in running.iter().filter(|c| c.kind == ChildKind::SubAgent) {
            if alive(c.pgid) {
                let _ = killpg(Pid::from_raw(c.pgid), Signal::SIGKILL);
            }
            let ts = crate::util::time::utc_iso_now();
            let _ = events.append(&ev::sub_agent_end(&c.id, &ts, "cancelled"));
            crate::ipc::counter::add(session, -1);
        }
        running.len()
    }
}

/// SIGKILL to group `pgid` once [`STOP_GRACE`] has passed with any of it alive. Polled
/// every 50 ms, so a group that ended is let go at once (its id is not reused meanwhile).
fn escalate(pgid: i32) {
    let spawned = std::thread::Builder::new()
        .name("stop-escalate".into())
        .spawn(move || {
            let deadline = Instant::now() + STOP_GRACE;
            while Instant::now() < deadline {
                if !alive(pgid) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
        });
    if spawned.is_err() {
        // No thread for the grace: SIGKILL now rather than never.
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}

/// The children the person stopped with `/kill`: their results are no news to them, so each
/// is shown in one short block and starts no model turn of its own; the model reads it with
/// the next message (docs/interactive.md, "Background work").
impl Children {
    /// Remember that the person stopped `id`.
    pub fn stopped_by_user(&self, id: &str) {
        self.stopped
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.to_string(), false);
    }

    /// Whether the person stopped `id`.
    pub fn was_stopped(&self, id: &str) -> bool {
        self.stopped
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    /// True the first time the result of a stopped `id` is to be shown (it is shown once).
    pub fn first_show(&self, id: &str) -> bool {
        self.stopped
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(id)
            .is_some_and(|shown| !std::mem::replace(shown, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn start_messages_parse() {
        assert_eq!(
            parse_started("Sub-agent started: session_id=sub_ab, pid=123"),
            Some(("sub_ab".into(), 123))
        );
        assert_eq!(
            parse_started("Async task started: task_id=task_x1, pid=9"),
            Some(("task_x1".into(), 9))
        );
        assert_eq!(parse_started("Error: nope"), None);
    }
}
