//! Bash tasks started with `async` (or its later name `background`), docs/fifo-protocol.md:
//! `bash -c CMD` over the shell snapshot (or `bash -lc CMD`) in its own process group, stdin /dev/null, stdout and stderr into
//! `<session dir>/<task id>.log`; a waiter thread reports `ASYNC_TASK_RESULT task_id rc
//! <path of the .log>` on the session's notify.fifo (or, with no reader, appends it to
//! notify.buf so it is delivered on resume). The reader takes the file's tail and deletes it.
use crate::ipc::fifo::{self, WriteError};
use crate::ipc::resp::Frame;
use crate::session::events::{ev, EventLog};
use crate::session::Session;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Start `command`; returns `Async task started: task_id=<id>, pid=<pid>` with an
/// `async_<session-style id>` task id.
pub fn spawn(session: &Session, command: &str, notify_fifo: PathBuf) -> Result<String, String> {
    if command.trim().is_empty() {
        return Err("no command provided".into());
    }
    let (id, log_path, out) =
        new_log(&session.dir).map_err(|e| format!("cannot create the output file: {e}"))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    // Count it before it exists: a result can never arrive before its increment.
    crate::ipc::counter::add(session, 1);
    let mut cmd = Command::new("bash");
    cmd.stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    // `bash -c` over the session's shell snapshot, or `bash -lc` (tools/snapshot.rs).
    let child = crate::tools::snapshot::confine_shell(&mut cmd, command, &cwd)
        .and_then(|_confined| cmd.spawn());
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            crate::ipc::counter::add(session, -1);
            let _ = std::fs::remove_file(&log_path);
            return Err(format!("cannot start bash: {e}"));
        }
    };
    let pid = child.id();
    let ts = crate::util::time::utc_iso_now();
    let _ = EventLog::new(session.events(), None)
        .append_quiet(&ev::async_task_start(&id, command, &ts));
    let task_id = id.clone();
    let buf = session.notify_buf();
    let spawned = std::thread::Builder::new()
        .name(format!("bg-{id}"))
        .spawn(move || {
            let rc = match child.wait() {
                Ok(st) => st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
                Err(_) => -1,
            };
            let path = log_path.to_string_lossy();
            let frame = Frame::async_task_result(&task_id, rc, &path);
            deliver(&notify_fifo, &buf, &frame);
        });
    if let Err(e) = spawned {
        // The task runs but cannot be awaited; say so rather than leave the count stuck.
        crate::ipc::counter::add(session, -1);
        return Err(format!(
            "task started (pid {pid}) but cannot be watched: {e}"
        ));
    }
    Ok(format!("Async task started: task_id={id}, pid={pid}"))
}

/// Send a result frame to a notify FIFO; with nobody reading it, append it to the
/// buffer `buf` instead (never creates a regular file where the FIFO was).
pub fn deliver(notify_fifo: &Path, buf: &Path, frame: &Frame) {
    match fifo::write_frame(notify_fifo, frame) {
        Ok(()) => {}
        Err(WriteError::NoReader(_)) | Err(WriteError::Io { .. }) => {
            if buf.parent().is_some_and(Path::is_dir) {
                let _ = crate::ipc::notify::append_to_buf(buf, frame);
            }
        }
    }
}

/// A fresh `async_<id>` whose `<id>.log` did not exist, and that file, created (0600).
fn new_log(dir: &Path) -> std::io::Result<(String, PathBuf, File)> {
    for _ in 0..64 {
        let id = format!("async_{}", crate::session::paths::new_session_id());
        let p = dir.join(format!("{id}.log"));
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_CLOEXEC)
            .open(&p)
        {
            Ok(f) => return Ok((id, p, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free task id"))
}
