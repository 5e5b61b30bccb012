//! Bash tasks started with `async` (or its later name `background`), docs/fifo-protocol.md:
//! `bash -c CMD` over the shell snapshot (or `bash -lc CMD`) in its own process group, stdin /dev/null, stdout and stderr into
//! `<session dir>/<task id>.log`, started by a reporter process (agent/task_reporter.rs)
//! that outlives this one if need be. A waiter thread takes the task's exit code from the
//! reporter and reports `ASYNC_TASK_RESULT task_id rc <path of the .log>` on the session's
//! notify.fifo (or, with no reader, appends it to notify.buf so it is delivered on resume);
//! the reader takes the file's tail and deletes it. A result that comes after this process
//! is gone is recorded by the reporter itself.
use crate::agent::task_reporter;
use crate::ipc::fifo::{self, WriteError};
use crate::ipc::resp::Frame;
use crate::session::events::{ev, EventLog};
use crate::session::Session;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Start `command`; returns `Async task started: task_id=<id>, pid=<pid>` with an
/// `async_<session-style id>` task id.
pub fn spawn(session: &Session, command: &str, notify_fifo: PathBuf) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the agent binary: {e}"))?;
    spawn_exe(&exe, session, command, notify_fifo)
}

/// [`spawn`] with an explicit agent binary as the reporter (tests run from another one).
pub fn spawn_exe(
    exe: &Path,
    session: &Session,
    command: &str,
    notify_fifo: PathBuf,
) -> Result<String, String> {
    if command.trim().is_empty() {
        return Err("no command provided".into());
    }
    let (id, log_path, out) =
        new_log(&session.dir).map_err(|e| format!("cannot create the output file: {e}"))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    let (mine, theirs) =
        UnixStream::pair().map_err(|e| format!("cannot talk to the task's reporter: {e}"))?;
    // Count it before it exists: a result can never arrive before its increment.
    crate::ipc::counter::add(session, 1);
    // The reporter (agent/task_reporter.rs) runs `bash` and reports, also after this
    // process is gone; it is confined like the task, which inherits that.
    let mut cmd = Command::new(exe);
    cmd.arg(task_reporter::ARG)
        .arg(&id)
        .arg(&log_path)
        .arg(&notify_fifo)
        .arg(session.notify_buf())
        .arg(&session.dir)
        .arg("--")
        .arg("bash");
    cmd.stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stdout(out)
        .stderr(err)
        .process_group(0);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    // `bash -c` over the session's shell snapshot, or `bash -lc` (tools/snapshot.rs).
    let child = crate::tools::snapshot::confine_shell(&mut cmd, command, &cwd)
        .and_then(|_confined| cmd.spawn());
    // Our copy of the reporter's end goes, so its exit is seen as end of file.
    drop(cmd);
    // One reader for the whole conversation: the `rc` line may come with the `pid` one.
    let mut words = BufReader::new(mine.try_clone().map_err(|e| e.to_string())?);
    let started = child
        .map_err(|e| e.to_string())
        .and_then(|mut c| match first_line(&mut words) {
            Ok(pid) => Ok((c, pid)),
            Err(e) => {
                let _ = c.kill();
                let _ = c.wait();
                Err(e)
            }
        });
    let (mut reporter, pid) = match started {
        Ok(v) => v,
        Err(e) => {
            crate::ipc::counter::add(session, -1);
            let _ = std::fs::remove_file(&log_path);
            return Err(format!("cannot start bash: {e}"));
        }
    };
    let ts = crate::util::time::utc_iso_now();
    let _ = EventLog::new(session.events(), None)
        .append_quiet(&ev::async_task_start(&id, command, &ts));
    let task_id = id.clone();
    let buf = session.notify_buf();
    let spawned = std::thread::Builder::new()
        .name(format!("bg-{id}"))
        .spawn(move || {
            let mut line = String::new();
            let _ = words.read_line(&mut line);
            let rc = match line.trim().strip_prefix("rc ").and_then(|n| n.parse().ok()) {
                Some(rc) => rc,
                // The reporter died without a word (killed): no exit code is known.
                None => match reporter.wait() {
                    Ok(st) => st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
                    Err(_) => -1,
                },
            };
            let path = log_path.to_string_lossy();
            let frame = Frame::async_task_result(&task_id, rc, &path);
            deliver(&notify_fifo, &buf, &frame);
            let _ = (&mine).write_all(b"ok\n");
            let _ = reporter.wait();
        });
    if let Err(e) = spawned {
        // The task runs and its reporter records it for the next run.
        crate::ipc::counter::add(session, -1);
        return Err(format!(
            "task started (pid {pid}) but cannot be watched: {e}"
        ));
    }
    Ok(format!("Async task started: task_id={id}, pid={pid}"))
}

/// The reporter's first word: `pid N` (the task's pid, its process group), within a
/// bounded wait; else why not.
fn first_line(words: &mut BufReader<UnixStream>) -> Result<u32, String> {
    let sock = words.get_ref();
    let _ = sock.set_read_timeout(Some(std::time::Duration::from_secs(30)));
    let mut line = String::new();
    let read = words.read_line(&mut line);
    let _ = words.get_ref().set_read_timeout(None);
    read.map_err(|e| e.to_string())?;
    let line = line.trim();
    if let Some(pid) = line.strip_prefix("pid ").and_then(|p| p.parse().ok()) {
        return Ok(pid);
    }
    Err(line
        .strip_prefix("error ")
        .unwrap_or("the task's reporter did not start")
        .to_string())
}

/// Send a result frame to a notify FIFO; with nobody reading it, record it in the buffer
/// `buf` instead, with its events (never creates a regular file where the FIFO was).
pub fn deliver(notify_fifo: &Path, buf: &Path, frame: &Frame) {
    match fifo::write_frame(notify_fifo, frame) {
        Ok(()) => {}
        Err(WriteError::NoReader(_)) | Err(WriteError::Io { .. }) => {
            if let Some(dir) = buf.parent().filter(|d| d.is_dir()) {
                let _ = crate::ipc::async_task::record_unread(dir, buf, frame);
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
