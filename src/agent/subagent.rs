//! Sub-agents (docs/fifo-protocol.md): this binary re-executed in a `sub_<id>`
//! session, silenced, in its own process group, reporting the 10-field AGENT_RESULT on the
//! parent's notify.fifo. A reaper thread waits for each child; a child that dies without
//! reporting (SIGKILL, crash) is reported `failed` by the parent itself, so nothing hangs. A result
//! whose parent is gone goes to the parent's notify.buf (shown on its next start).
use crate::ipc::notify::{self, wire_agent_result, Reported};
use crate::session::events::{ev, EventLog};
use crate::session::stats::Stats;
use crate::session::Session;
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Environment variable carrying the API key to a child (never argv).
pub const API_KEY_ENV: &str = crate::sandbox::env::INTERNAL_KEY_ENV;
/// See [`crate::sandbox::env::INTERNAL_BASE_URL_ENV`].
pub const BASE_URL_ENV: &str = crate::sandbox::env::INTERNAL_BASE_URL_ENV;

/// How long the reaper waits, after the child exited, for its own result to be recorded.
pub const REPORT_GRACE: Duration = Duration::from_secs(2);

/// Start a sub-agent; returns `Sub-agent started: session_id=<sid>, pid=<pid>`. It inherits
/// the run's flags; the key goes through the internal environment variable.
/// A custom agent (`agent`) runs with its own model (when it names one) and `--agent NAME`:
/// the child reads the definition itself and keeps to its tools and instructions.
pub fn spawn(
    ctx: &crate::agent::context::AgentCtx,
    task: Task,
    agent: Option<&crate::agent::custom::agents::AgentDef>,
) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the agent binary: {e}"))?;
    let mut args = crate::agent::context::child_args(&ctx.cfg);
    if let Some(a) = agent {
        if let Some(m) = &a.model {
            if let Some(i) = args.iter().position(|x| x == "--model") {
                args[i + 1] = m.clone();
            }
        }
        args.push("--agent".into());
        args.push(a.name.clone());
    }
    // A sub-agent cannot ask: it runs headless in this run's mode and rules.
    args.extend(ctx.permission.child_args());
    if !ctx.cfg.provider.api_key.is_empty() {
        args.push("--api-key".into());
        args.push(ctx.cfg.provider.api_key.clone());
    }
    spawn_exe(
        &exe,
        &ctx.session,
        ctx.rec.events(),
        ctx.reported.clone(),
        &args,
        task,
        ctx.session.notify_fifo(),
    )
}

/// Given the helper's reserved session id and the task, the task to send.
pub type Prepare<'a> = &'a dyn Fn(&str, &str) -> String;

/// What a sub-agent is asked to do: the SubAgent tool's input.
#[derive(Clone, Copy)]
pub struct Task<'a> {
    pub prompt: &'a str,
    pub description: &'a str,
    /// Start from a copy of the parent's conversation.
    pub fork: bool,
    /// Given the helper's session id once it is reserved, the task to send (the
    /// SubagentStart hooks run there and may add context).
    pub prepare: Option<Prepare<'a>>,
}

/// [`spawn`] with an explicit executable (tests use a stand-in).
pub fn spawn_exe(
    exe: &Path,
    parent: &Session,
    events: &EventLog,
    reported: Reported,
    base_args: &[String],
    task: Task,
    notify_fifo: PathBuf,
) -> Result<String, String> {
    let Task {
        prompt,
        description,
        fork,
        prepare,
    } = task;
    if prompt.trim().is_empty() {
        return Err("no prompt provided for sub-agent".into());
    }
    let project = parent.project_dir();
    let sid =
        reserve_id(&project).map_err(|e| format!("cannot create the sub-agent session: {e}"))?;
    let child = Session::new(&project, &sid);
    let prepared = prepare.map(|f| f(&sid, prompt));
    let prompt = prepared.as_deref().unwrap_or(prompt);
    if fork {
        // The snapshot is taken now, in the parent, before the child exists: what the
        // parent writes after this call (the call's own line, the next reply) never
        // reaches the child, however slowly it starts.
        if let Err(e) = child.fork_from(parent) {
            let _ = std::fs::remove_dir_all(&child.dir);
            return Err(format!("cannot copy the conversation for the fork: {e}"));
        }
    }
    let ts = crate::util::time::utc_iso_now();
    let _ = events.append_quiet(&ev::sub_agent_start(&sid, &ts, prompt, description, fork));
    crate::ipc::counter::add(parent, 1);

    let (args, key) = split_api_key(base_args);
    let (args, secret_url) = split_secret_base_url(&args);
    let mut cmd = Command::new(exe);
    cmd.args(&args)
        .arg("--session")
        .arg(&sid)
        .arg("--sub-agent-notify")
        .arg(&notify_fifo)
        .arg("--depth")
        .arg("1");
    if fork {
        // Kept for the shell version's argv; the child copies from it only into an empty
        // conversation, and the snapshot above is already there.
        cmd.arg("--parent-dir").arg(&parent.dir);
    }
    cmd.arg("--").arg(prompt);
    // The tool environment (no provider keys, nothing secret-looking): the child gets
    // the key through the internal variable alone.
    crate::sandbox::env::apply(&mut cmd);
    if let Some(k) = &key {
        // Only the internal variable: the child consumes and removes it at start, so
        // its tool processes never see the key.
        cmd.env(API_KEY_ENV, k);
    }
    if let Some(u) = &secret_url {
        cmd.env(BASE_URL_ENV, u);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    let mut proc = match cmd.spawn() {
        Ok(p) => p,
        Err(e) => {
            crate::ipc::counter::add(parent, -1);
            let _ = std::fs::remove_dir_all(&child.dir);
            return Err(format!("cannot start the sub-agent: {e}"));
        }
    };
    let pid = proc.id();
    let buf = parent.notify_buf();
    let id = sid.clone();
    let reaper = std::thread::Builder::new()
        .name(format!("reap-{sid}"))
        .spawn(move || {
            let _ = proc.wait();
            let deadline = Instant::now() + REPORT_GRACE;
            loop {
                if reported
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .contains(&id)
                {
                    return;
                }
                if Instant::now() >= deadline {
                    break;
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            let stats = Stats::load(&child.stats());
            let frame = wire_agent_result(&id, "failed", "", "", &stats);
            deliver_result(&notify_fifo, &buf, &frame);
        });
    if let Err(e) = reaper {
        return Err(format!(
            "sub-agent started (pid {pid}) but cannot be watched: {e}"
        ));
    }
    Ok(format!("Sub-agent started: session_id={sid}, pid={pid}"))
}

/// A fresh `sub_<id>` whose folder this call created (so parallel spawns never share one).
fn reserve_id(project: &Path) -> std::io::Result<String> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(project)?;
    let mut last = None;
    for _ in 0..32 {
        let id = crate::session::paths::new_unique_id(project, "sub_");
        match std::fs::DirBuilder::new()
            .mode(0o700)
            .create(project.join(&id))
        {
            Ok(()) => return Ok(id),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free sub-agent id")))
}

/// Remove `--base-url X` from the child's argv when X holds a password (the child gets it
/// through [`BASE_URL_ENV`]); return it.
pub fn split_secret_base_url(args: &[String]) -> (Vec<String>, Option<String>) {
    let has_password = |u: &str| url::Url::parse(u).is_ok_and(|u| u.password().is_some());
    let mut out = Vec::with_capacity(args.len());
    let mut url = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match it.as_slice().first() {
            Some(v) if a == "--base-url" && has_password(v) => {
                url = it.next().cloned();
            }
            _ => out.push(a.clone()),
        }
    }
    (out, url)
}

/// Remove `--api-key X` / `--api-key=X` from the child's argv; return the key.
fn split_api_key(args: &[String]) -> (Vec<String>, Option<String>) {
    let mut out = Vec::with_capacity(args.len());
    let mut key = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--api-key" {
            key = it.next().cloned();
        } else if let Some(k) = a.strip_prefix("--api-key=") {
            key = Some(k.to_string());
        } else {
            out.push(a.clone());
        }
    }
    (out, key.filter(|k| !k.is_empty()))
}

#[cfg(test)]
fn provider_of(args: &[String]) -> Option<String> {
    let i = args.iter().position(|a| a == "--provider" || a == "-p")?;
    args.get(i + 1).cloned()
}

/// A wire frame to the parent FIFO, or its buffer form into the parent's notify.buf.
fn deliver_result(parent_notify: &Path, buf: &Path, wire: &crate::ipc::resp::Frame) {
    match crate::ipc::fifo::write_frame(parent_notify, wire) {
        Ok(()) => {}
        Err(_) => {
            if let Some(b) = notify::buffer_form(wire) {
                if buf.parent().is_some_and(Path::is_dir) {
                    let _ = notify::append_to_buf(buf, &b);
                }
            }
        }
    }
}

/// What a sub-agent's runtime calls at its end: the 10-field result (thinking and text of
/// the last assistant line only when `status == "ok"`; totals from its stats.json) to the
/// parent's notify.fifo, or, with the parent gone, the 7-field form into the parent's
/// notify.buf (kept for the next start; never a regular file named notify.fifo).
pub fn send_result(parent_notify: &Path, child: &Session, status: &str) {
    let (thinking, text) = if status == "ok" {
        let (lines, _) = crate::session::conversation::read_lines(&child.conversation());
        crate::session::conversation::last_assistant_output(&lines)
    } else {
        (String::new(), String::new())
    };
    let stats = Stats::load(&child.stats());
    let frame = wire_agent_result(&child.id, status, &thinking, &text, &stats);
    deliver_result(
        parent_notify,
        &parent_notify.with_file_name("notify.buf"),
        &frame,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_base_url_with_a_password_leaves_argv() {
        let a: Vec<String> = ["--model", "m", "--base-url", "https://u:pw@h/v1", "-x"]
            .map(String::from)
            .to_vec();
        let (rest, url) = split_secret_base_url(&a);
        assert_eq!(rest, ["--model", "m", "-x"]);
        assert_eq!(url.as_deref(), Some("https://u:pw@h/v1"));
        let plain: Vec<String> = ["--base-url", "https://h/v1"].map(String::from).to_vec();
        assert_eq!(split_secret_base_url(&plain), (plain.clone(), None));
    }

    #[test]
    fn api_key_leaves_argv() {
        let a: Vec<String> = ["--provider", "openai", "--api-key", "sk-1", "--model", "m"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (rest, key) = split_api_key(&a);
        assert_eq!(key.as_deref(), Some("sk-1"));
        assert!(!rest.iter().any(|x| x.contains("sk-1") || x == "--api-key"));
        assert_eq!(provider_of(&rest).as_deref(), Some("openai"));
        let (_, k2) = split_api_key(&["--api-key=abc".to_string()]);
        assert_eq!(k2.as_deref(), Some("abc"));
    }

    #[test]
    fn reserved_ids_are_unique() {
        let d = tempfile::tempdir().unwrap();
        let ids: std::collections::HashSet<String> =
            (0..50).map(|_| reserve_id(d.path()).unwrap()).collect();
        assert_eq!(ids.len(), 50);
        assert!(ids.iter().all(|i| i.starts_with("sub_")));
    }
}
