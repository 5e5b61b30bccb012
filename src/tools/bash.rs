//! Bash (docs/tools-and-policy.md): `bash -c` over the shell snapshot (`snapshot.rs`; or
//! `bash -lc`) in its own process group, stdin /dev/null,
//! stdout+stderr merged through one pipe, timeout and interrupt kill the whole group, a
//! daemon keeping the pipe open cannot hang the call, output bounded while it is read.
use super::common::{arg, flag, int};
use super::policy;
use super::truncate::truncate_reported;
use super::{ToolHost, ToolOutput};
use crate::util::cancel::Cancel;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use serde_json::Value;
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// After the command exited, keep reading while data still flows, but at most this long
/// without new data (a daemon may hold the pipe open forever).
const QUIET_AFTER_EXIT: Duration = Duration::from_millis(100);
/// Hard limit on reading after the command exited.
const MAX_AFTER_EXIT: Duration = Duration::from_secs(2);
/// SIGTERM → SIGKILL delay on timeout.
const KILL_GRACE: Duration = Duration::from_secs(1);

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    Signalled(i32),
    TimedOut(u64),
    Interrupted,
}

/// The collected result of one command.
#[derive(Debug, Clone)]
pub struct Exec {
    /// Output decoded as UTF-8 (invalid bytes → U+FFFD). When the output exceeded the
    /// collector's cap, this is its head followed by its tail.
    pub output: String,
    /// Bytes the command printed in total.
    pub total: usize,
    pub ending: Ending,
}

/// Keeps the first and the last `cap` bytes of a stream.
struct Collector {
    head: Vec<u8>,
    tail: Vec<u8>,
    total: usize,
    cap: usize,
}

impl Collector {
    fn push(&mut self, data: &[u8]) {
        self.total += data.len();
        let take = (self.cap - self.head.len()).min(data.len());
        self.head.extend_from_slice(&data[..take]);
        self.tail.extend_from_slice(&data[take..]);
        if self.tail.len() > 2 * self.cap {
            let cut = self.tail.len() - self.cap;
            self.tail.drain(..cut);
        }
    }
    fn text(self) -> (String, usize) {
        let mut all = self.head;
        all.extend_from_slice(&self.tail);
        (super::common::lossy(all), self.total)
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    use std::os::fd::AsRawFd;
    let (r, w) = nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(std::io::Error::from)?;
    // The read end is polled and read without blocking; the child's write end blocks.
    let fl = fcntl(r.as_raw_fd(), FcntlArg::F_GETFL).map_err(std::io::Error::from)?;
    let flags = OFlag::from_bits_truncate(fl) | OFlag::O_NONBLOCK;
    fcntl(r.as_raw_fd(), FcntlArg::F_SETFL(flags)).map_err(std::io::Error::from)?;
    Ok((r, w))
}

/// Run `<command>` in `cwd` (`bash -c` over the shell snapshot, else `bash -lc`). `timeout` None = no limit. `cap` bounds the memory
/// kept for the output (head and tail of `cap` bytes each).
pub fn exec(
    command: &str,
    cwd: &Path,
    timeout: Option<u64>,
    cancel: &Cancel,
    cap: usize,
) -> std::io::Result<Exec> {
    exec_live(command, cwd, timeout, cancel, cap, &mut |_| {})
}

/// [`exec`], with each piece of output handed to `on_data` as it arrives.
pub fn exec_live(
    command: &str,
    cwd: &Path,
    timeout: Option<u64>,
    cancel: &Cancel,
    cap: usize,
    on_data: &mut dyn FnMut(&[u8]),
) -> std::io::Result<Exec> {
    let (rd, wr) = pipe()?;
    let wr2 = wr.try_clone()?;
    let mut child = {
        let mut cmd = Command::new("bash");
        cmd.current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::from(wr))
            .stderr(Stdio::from(wr2))
            .process_group(0);
        // `bash -c` over the session's shell snapshot, or `bash -lc` (snapshot.rs).
        let _confined = super::snapshot::confine_shell(&mut cmd, command, cwd)?;
        cmd.spawn()?
        // `cmd` (holding our copies of the write end) is dropped here.
    };
    let pgid = Pid::from_raw(child.id() as i32);
    let mut file = std::fs::File::from(rd);
    let mut col = Collector {
        head: Vec::new(),
        tail: Vec::new(),
        total: 0,
        cap: cap.max(4096),
    };
    let start = Instant::now();
    let deadline = timeout.map(|t| start + Duration::from_secs(t));
    let mut buf = vec![0u8; 64 * 1024];
    let (mut eof, mut status) = (false, None);
    let (mut exited_at, mut last_data) = (None::<Instant>, start);
    let (mut timed_out, mut term_at, mut interrupted) = (false, None::<Instant>, false);
    loop {
        if !eof {
            let wait = if exited_at.is_some() { 10u16 } else { 20 };
            let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLIN)];
            let _ = poll(&mut fds, PollTimeout::from(wait));
            loop {
                match file.read(&mut buf) {
                    Ok(0) => {
                        eof = true;
                        break;
                    }
                    Ok(n) => {
                        col.push(&buf[..n]);
                        on_data(&buf[..n]);
                        last_data = Instant::now();
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break, // WouldBlock: nothing more for now
                }
            }
        } else if status.is_none() {
            std::thread::sleep(Duration::from_millis(5));
        }
        if status.is_none() {
            if let Some(st) = child.try_wait()? {
                status = Some(st);
                exited_at = Some(Instant::now());
            }
        }
        let now = Instant::now();
        if let Some(t) = exited_at {
            if eof
                || now.duration_since(last_data.max(t)) >= QUIET_AFTER_EXIT
                || now.duration_since(t) >= MAX_AFTER_EXIT
            {
                break;
            }
        }
        if status.is_none() {
            if cancel.is_cancelled() && !interrupted {
                interrupted = true;
                let _ = killpg(pgid, Signal::SIGKILL);
            }
            if deadline.is_some_and(|d| now >= d) && !timed_out {
                timed_out = true;
                term_at = Some(now);
                let _ = killpg(pgid, Signal::SIGTERM);
            }
            if term_at.is_some_and(|t| now.duration_since(t) >= KILL_GRACE) {
                term_at = None;
                let _ = killpg(pgid, Signal::SIGKILL);
            }
        }
    }
    if timed_out || interrupted {
        // Make sure nothing of the group survives a timeout or an interrupt.
        let _ = killpg(pgid, Signal::SIGKILL);
    }
    let st = match status {
        Some(s) => s,
        None => child.wait()?,
    };
    let ending = if interrupted {
        Ending::Interrupted
    } else if timed_out {
        Ending::TimedOut(timeout.unwrap_or(0))
    } else if let Some(code) = st.code() {
        Ending::Exited(code)
    } else {
        Ending::Signalled(st.signal().unwrap_or(0))
    };
    let (output, total) = col.text();
    Ok(Exec {
        output,
        total,
        ending,
    })
}

/// The timeout to use: a positive `timeout` parameter, else the agent's --tool-timeout
/// (0 there = no limit).
fn effective_timeout(param: Result<Option<i64>, String>, default: u64) -> Option<u64> {
    match param {
        Ok(Some(t)) if t > 0 => Some(t as u64),
        _ if default > 0 => Some(default),
        _ => None,
    }
}

fn note(out: &mut String, text: &str) {
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(text);
}

pub fn run(ctx: &dyn ToolHost, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let command = arg(input, "command");
    if command.trim().is_empty() {
        return ToolOutput::error("no command provided", max);
    }
    let places = policy::places_of_run(ctx.cwd());
    if let Err(e) = policy::check(
        policy::classify_in(&command, &places),
        ctx.limits().bash_mode,
    ) {
        return ToolOutput::error(&e, max);
    }
    // `async` is the name the shell agent of our session layout uses; `background` the later one.
    if flag(input, "async") || flag(input, "background") {
        return match ctx.spawn_background(&command) {
            Ok(text) => ToolOutput::text(true, &text, max),
            Err(e) => ToolOutput::error(&e, max),
        };
    }
    let timeout = effective_timeout(int(input, "timeout"), ctx.limits().tool_timeout);
    let cap = max.saturating_mul(2).max(256 * 1024);
    let mut live = |d: &[u8]| ctx.tool_output(d);
    let ex = match exec_live(&command, ctx.cwd(), timeout, ctx.cancel(), cap, &mut live) {
        Ok(ex) => ex,
        Err(e) => return ToolOutput::error(&format!("cannot run bash: {e}"), max),
    };
    let base_len = ex.output.len();
    let mut out = ex.output;
    let ok = match ex.ending {
        Ending::Exited(0) => true,
        Ending::Exited(code) => {
            if let Some(line) = crate::sandbox::refusal_note(&out) {
                note(&mut out, &line);
            }
            note(&mut out, &format!("[exit code: {code}]"));
            false
        }
        Ending::Signalled(sig) => {
            note(&mut out, &format!("[killed by signal {sig}]"));
            false
        }
        Ending::TimedOut(n) => {
            out.push_str(&format!("\n[... command timed out after {n} seconds ...]"));
            false
        }
        Ending::Interrupted => {
            out.push_str("\n[... command interrupted ...]");
            false
        }
    };
    if !ok {
        out.insert_str(0, "Error: ");
    }
    let total = ex.total + (out.len() - base_len);
    let text = truncate_reported(&out, total, max);
    // On screen, a command cut off mid-output keeps `Error:` on a line of its own: glued
    // to the output's first line it read as part of it. The model's text is unchanged.
    let cut = matches!(ex.ending, Ending::Interrupted | Ending::TimedOut(_));
    let display = match text.strip_prefix("Error: ") {
        Some(rest) if cut && base_len > 0 => format!("Error:\n{rest}"),
        _ => text.clone(),
    };
    ToolOutput {
        ok,
        conv: text,
        display,
        checklist: None,
    }
}
