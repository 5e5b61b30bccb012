//! The reporter of a background task (docs/fifo-protocol.md): this binary re-executed with
//! [`ARG`] between the agent and the task's `bash`, so a result never depends on the agent
//! process still being there. It starts the task in a process group of its own, tells the
//! agent the task's pid, waits for it, and hands the exit code to the agent over a socket
//! (fd 0), which records it and acknowledges. When the agent is gone (its run ended: a
//! signal, SESSION_END, a crash), the task is ended with its run: SIGTERM, then SIGKILL
//! after [`TASK_GRACE`], and a result that comes in that time or after is recorded by the
//! reporter itself, as the shell version's background child does: on notify.fifo when a
//! new run reads it, else into notify.buf under its lock (output inline, the `.log`
//! removed) with the two result events, so the next run of the session shows it.
use crate::ipc::{async_task, fifo, notify, resp::Frame};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The hidden first argument that makes the binary a task reporter.
pub const ARG: &str = "__async-task-reporter";
/// How long a task may still run once the run that started it has ended.
pub const TASK_GRACE: Duration = Duration::from_secs(10);
/// How long the reporter waits for the agent to acknowledge a result.
const ACK_WAIT: Duration = Duration::from_secs(10);

/// Run as a reporter when the command line says so (checked before anything else).
pub fn main_if_reporter() -> Option<i32> {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_none_or(|a| a != ARG) {
        return None;
    }
    Some(run(&args[2..]))
}

/// What the reporter was given: `<id> <log> <notify.fifo> <notify.buf> <session dir> --
/// <program> <args…>`.
struct Task {
    id: String,
    log: PathBuf,
    fifo: PathBuf,
    buf: PathBuf,
    dir: PathBuf,
}

fn run(a: &[OsString]) -> i32 {
    if a.len() < 7 || a[5] != "--" {
        eprintln!("bash-agent: {ARG}: bad arguments");
        return 2;
    }
    let t = Task {
        id: a[0].to_string_lossy().into_owned(),
        log: PathBuf::from(&a[1]),
        fifo: PathBuf::from(&a[2]),
        buf: PathBuf::from(&a[3]),
        dir: PathBuf::from(&a[4]),
    };
    // SAFETY: the agent starts the reporter with its end of the socket as fd 0, owned by
    // nothing else in this process.
    let sock = unsafe { UnixStream::from_raw_fd(0) };
    let mut cmd = Command::new(&a[6]);
    cmd.args(&a[7..]).stdin(Stdio::null()).process_group(0);
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(&sock, "error {e}");
            return 1;
        }
    };
    let pid = child.id() as i32;
    if writeln!(&sock, "pid {pid}").is_err() {
        // The agent is gone already: the task is not started for nobody.
        let _ =
            nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), nix::sys::signal::SIGKILL);
    }
    // A hangup of the terminal ends the agent, which ends the task; not this process.
    // SAFETY: setting a signal to be ignored, after the task was started (it keeps the
    // default).
    let _ = unsafe { libc::signal(libc::SIGHUP, libc::SIG_IGN) };
    let (rc, agent_gone) = wait_task(child, &sock);
    if !agent_gone && writeln!(&sock, "rc {rc}").is_ok() && acked(&sock) {
        return 0;
    }
    record_late(&t, rc);
    0
}

/// Wait for the task, ending it (SIGTERM, SIGKILL after [`TASK_GRACE`]) once the agent
/// has gone. Returns its exit code (128 + signal when killed) and whether the agent went.
fn wait_task(mut child: std::process::Child, sock: &UnixStream) -> (i32, bool) {
    use nix::sys::signal::{killpg, Signal};
    let pg = nix::unistd::Pid::from_raw(child.id() as i32);
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let mut gone: Option<Instant> = None;
    let mut killed = false;
    let status = loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(st) => break st.ok(),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(_) => break None,
        }
        if gone.is_none() && peer_closed(sock) {
            gone = Some(Instant::now());
            let _ = killpg(pg, Signal::SIGTERM);
        }
        if gone.is_some_and(|t| t.elapsed() >= TASK_GRACE) && !killed {
            killed = true;
            let _ = killpg(pg, Signal::SIGKILL);
        }
    };
    let _ = waiter.join();
    let rc = match status {
        Some(st) => st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
        None => -1,
    };
    (rc, gone.is_some() || peer_closed(sock))
}

/// True when the agent's end of the socket is closed (its process is gone).
fn peer_closed(sock: &UnixStream) -> bool {
    let mut b = [0u8; 1];
    // SAFETY: a one-byte peek into a local buffer on a descriptor we own.
    let n = unsafe {
        libc::recv(
            sock.as_raw_fd(),
            b.as_mut_ptr().cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    n == 0
}

/// The agent's `ok` for a result, within [`ACK_WAIT`].
fn acked(sock: &UnixStream) -> bool {
    let _ = sock.set_read_timeout(Some(ACK_WAIT));
    let mut line = String::new();
    BufReader::new(sock).read_line(&mut line).is_ok() && line.trim() == "ok"
}

/// Record a result the agent could not take: to a new run's notify.fifo, else into
/// notify.buf with its events. Nothing when the result was recorded already (its `.log`
/// taken by a reader, or the buffer holding it).
fn record_late(t: &Task, rc: i32) {
    let frame = Frame::async_task_result(&t.id, rc, &t.log.to_string_lossy());
    if !t.log.exists() || buffered(&t.buf, &t.id) {
        return;
    }
    if fifo::write_frame(&t.fifo, &frame).is_ok() {
        return;
    }
    if t.dir.is_dir() {
        let _ = async_task::record_unread(&t.dir, &t.buf, &frame);
    }
}

/// Does notify.buf already hold a result of task `id`?
fn buffered(buf: &Path, id: &str) -> bool {
    let _g = notify::lock_buf(buf);
    std::fs::read(buf).is_ok_and(|b| b.windows(id.len()).any(|w| w == id.as_bytes()))
}
