//! The notify path (docs/fifo-protocol.md): the reader thread that owns
//! notify.fifo, the notify.buf buffer (appends and drains mutually exclusive under a
//! `flock` on `.notify.buf.lock`, so no append is ever lost), the injection text, and the
//! recovery of a crashed run's leftovers (results kept, shown before the first turn).
use crate::ipc::fifo::{self, FifoWriter};
pub use crate::ipc::recover::recover_stale;
use crate::ipc::resp::{self, Frame, Item, Reader};
use crate::session::events::{ev, EventLog};
use crate::session::stats::{self, Stats, Usage};
use crate::session::Session;
use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// Ids (sub-agent sessions and tasks) whose result has been recorded by this process.
pub type Reported = Arc<Mutex<HashSet<String>>>;

/// The 10-field wire form a sub-agent sends:
/// `AGENT_RESULT sid status thinking text in out cache_read cache_creation requests`.
pub fn wire_agent_result(sid: &str, status: &str, thinking: &str, text: &str, s: &Stats) -> Frame {
    Frame::new([
        "AGENT_RESULT".to_string(),
        sid.to_string(),
        status.to_string(),
        thinking.to_string(),
        text.to_string(),
        s.total_input_tokens.to_string(),
        s.total_output_tokens.to_string(),
        s.total_cache_read_tokens.to_string(),
        s.total_cache_creation_tokens.to_string(),
        s.agent_request_count.to_string(),
    ])
}

/// The 7-field buffer/display form of a 10-field wire frame:
/// `AGENT_RESULT sid status in out thinking text`. `None` unless `wire` has 10 fields.
pub fn buffer_form(wire: &Frame) -> Option<Frame> {
    if wire.kind() != "AGENT_RESULT" || wire.len() != 10 {
        return None;
    }
    Some(Frame(vec![
        wire.0[0].clone(),
        wire.0[1].clone(),
        wire.0[2].clone(),
        wire.0[5].clone(),
        wire.0[6].clone(),
        wire.0[3].clone(),
        wire.0[4].clone(),
    ]))
}

/// The five counts of a wire AGENT_RESULT (fields 5–9), each checked.
fn agent_result_numbers(f: &Frame) -> Result<(Usage, u64), String> {
    Ok((
        Usage {
            input: f.number(5)?,
            output: f.number(6)?,
            cache_read: f.number(7)?,
            cache_creation: f.number(8)?,
        },
        f.number(9)?,
    ))
}

/// Take the exclusive buffer lock of the session folder holding `buf`.
pub(crate) fn lock_buf(buf: &Path) -> Option<File> {
    use fs2::FileExt;
    let l = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_CLOEXEC)
        .open(buf.with_file_name(".notify.buf.lock"))
        .ok()?;
    l.lock_exclusive().ok()?;
    Some(l)
}

/// Append one frame to a notify.buf (one write, under the buffer lock). The folder must
/// exist; nothing else is created.
pub fn append_to_buf(buf: &Path, frame: &Frame) -> io::Result<()> {
    let _g = lock_buf(buf);
    crate::util::fsx::append_bytes(buf, &frame.encode())
}

/// Take every frame out of the session's notify.buf: under the buffer lock, rename it to a
/// snapshot, read it, delete it. Malformed parts are skipped.
pub fn drain(session: &Session) -> Vec<Frame> {
    let buf = session.notify_buf();
    let _g = lock_buf(&buf);
    if !crate::util::fsx::non_empty(&buf) {
        return Vec::new();
    }
    let snap = buf.with_file_name(format!("notify.buf.{}", std::process::id()));
    if fs::rename(&buf, &snap).is_err() {
        return Vec::new();
    }
    let bytes = fs::read(&snap).unwrap_or_default();
    let _ = fs::remove_file(&snap);
    let frames = resp::decode_all(&bytes, |_| {});
    crate::ipc::async_task::resolve_buffered(session, frames)
}

/// The frames waiting in the session's notify.buf, left there (read under the buffer lock).
/// A task's output may still be a log file's path (the reporter's form).
pub fn peek(session: &Session) -> Vec<Frame> {
    let buf = session.notify_buf();
    let _g = lock_buf(&buf);
    let bytes = fs::read(&buf).unwrap_or_default();
    resp::decode_all(&bytes, |_| {})
}

/// The user message the drained items become (one for all of them), without a final newline.
pub fn injection_text(frames: &[Frame]) -> String {
    let mut s = String::new();
    for f in frames {
        match f.kind() {
            "AGENT_RESULT" | "SUB_AGENT_RESULT" => {
                s.push_str(&format!(
                    "[sub-agent {}] {} (in={}, out={})\n",
                    f.field(1),
                    f.field(2),
                    f.field(3),
                    f.field(4)
                ));
                if !f.field(5).is_empty() {
                    s.push_str(&format!("Thinking: {}\n", f.field(5)));
                }
                if !f.field(6).is_empty() {
                    s.push_str(&format!("Text: {}\n", f.field(6)));
                }
            }
            "ASYNC_TASK_RESULT" => {
                s.push_str(&format!(
                    "[async-task {}] exit_code={}\n",
                    f.field(1),
                    f.field(2)
                ));
                if !f.field(3).is_empty() {
                    s.push_str(&format!("Output: {}\n", f.field(3)));
                }
            }
            "USER_NOTIFY" => {
                s.push_str(&f.field(1));
                s.push('\n');
            }
            _ => {}
        }
    }
    if s.ends_with('\n') {
        s.pop();
    }
    s
}

/// The notify reader thread (P2 of the reference).
pub struct NotifyReader {
    reported: Reported,
    wake: File,
    token: String,
    done: mpsc::Receiver<()>,
    _thread: std::thread::JoinHandle<()>,
}

struct Ctx {
    session: Session,
    events: EventLog,
    input: FifoWriter,
    reported: Reported,
}

/// Open the session's notify.fifo read-write and start the reader.
pub fn spawn_reader(
    session: &Session,
    events: EventLog,
    input: FifoWriter,
) -> io::Result<NotifyReader> {
    let file = fifo::open_rdwr(&session.notify_fifo())?;
    let wake = file.try_clone()?;
    let reported: Reported = Arc::default();
    let token = format!("{:016x}", crate::util::random_u64());
    let ctx = Ctx {
        session: session.clone(),
        events,
        input,
        reported: reported.clone(),
    };
    let (done_tx, done) = mpsc::channel();
    let tok = token.clone();
    let thread = std::thread::Builder::new()
        .name("notify-reader".into())
        .spawn(move || {
            read_loop(file, &ctx, &tok);
            let _ = done_tx.send(());
        })?;
    Ok(NotifyReader {
        reported,
        wake,
        token,
        done,
        _thread: thread,
    })
}

impl NotifyReader {
    /// The ids already reported (shared with the sub-agent reapers).
    pub fn reported(&self) -> Reported {
        self.reported.clone()
    }

    /// Process every frame already in the FIFO, then stop the thread (bounded wait).
    pub fn stop(self) {
        let stop = Frame::new(["NOTIFY_READER_STOP", self.token.as_str()]).encode();
        let mut w = &self.wake;
        if w.write_all(&stop).is_ok() {
            let _ = self.done.recv_timeout(Duration::from_secs(2));
        }
    }
}

fn set_nonblocking(f: &File) {
    use std::os::fd::AsRawFd;
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl >= 0 {
            libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK);
        }
    }
}

fn read_loop(file: File, ctx: &Ctx, token: &str) {
    let mut reader = Reader::new(BufReader::with_capacity(64 * 1024, fifo::PatientFd(file)));
    let mut stopping = false;
    loop {
        if stopping && fifo::idle(reader.get_mut()) {
            return;
        }
        let item = match reader.next_item_with(fifo::idle) {
            Ok(Some(i)) => i,
            Ok(None) => return,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::TimedOut
                ) =>
            {
                continue
            }
            Err(_) => return, // WouldBlock once stopping and empty, or a dead descriptor.
        };
        match item {
            Item::Frame(f) if f.kind() == "NOTIFY_READER_STOP" && f.field(1) == token => {
                stopping = true;
                set_nonblocking(&reader.get_mut().get_ref().0);
            }
            Item::Frame(f) => handle(ctx, &f),
            Item::Malformed(e) => {
                let _ = ctx
                    .events
                    .append(&ev::error(&format!("malformed frame on notify.fifo: {e}")));
            }
            Item::Line(_) => {}
        }
    }
}

/// Record one notify frame (events, stats, buffer, counter) and wake the main loop.
fn handle(ctx: &Ctx, f: &Frame) {
    let buf = ctx.session.notify_buf();
    let log = |line: String| {
        let _ = ctx.events.append(&line);
    };
    match f.kind() {
        "AGENT_RESULT" => {
            let Some(b) = buffer_form(f) else {
                log(ev::error(&format!(
                    "malformed frame on notify.fifo: AGENT_RESULT with {} fields (expected 10)",
                    f.len()
                )));
                return;
            };
            // Checked before the id is marked reported: a rejected frame leaves the
            // sub-agent's reaper to report it `failed`.
            let (u, reqs) = match agent_result_numbers(f) {
                Ok(v) => v,
                Err(e) => {
                    log(ev::error(&format!(
                        "malformed frame on notify.fifo: {e} (frame rejected)"
                    )));
                    return;
                }
            };
            let sid = f.field(1);
            if !first_report(ctx, &sid) {
                return;
            }
            let status = f.field(2);
            log(ev::usage_sub_agent(&u, &sid));
            log(ev::sub_agent_result(
                &sid,
                &status,
                u.input,
                u.output,
                &f.field(3),
                &f.field(4),
            ));
            log(ev::sub_agent_end(
                &sid,
                &crate::util::time::utc_iso_now(),
                &status,
            ));
            let _ = stats::update(&ctx.session.stats(), |s| {
                s.add_usage(&u);
                s.sub_agent_request_count = stats::sat_add(s.sub_agent_request_count, 1);
                s.agent_request_count = stats::sat_add(s.agent_request_count, reqs);
            });
            store(ctx, &buf, &b, true);
        }
        "ASYNC_TASK_RESULT" => {
            if f.len() < 3 {
                log(ev::error(&format!(
                    "malformed frame on notify.fifo: ASYNC_TASK_RESULT with {} fields (expected 4)",
                    f.len()
                )));
                return;
            }
            let id = f.field(1);
            if !first_report(ctx, &id) {
                return;
            }
            let (f, _) = crate::ipc::async_task::inline(&ctx.session.dir, f);
            crate::ipc::async_task::log_result(&ctx.events, false, &f);
            store(ctx, &buf, &f, true);
        }
        "USER_NOTIFY" => {
            if f.field(1).is_empty() {
                return;
            }
            store(ctx, &buf, f, false);
        }
        _ => {}
    }
}

/// Mark `id` reported; false when it already was (a duplicate is dropped entirely).
fn first_report(ctx: &Ctx, id: &str) -> bool {
    ctx.reported
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(id.to_string())
}

/// Buffer first, then the counter, then the wakeup: the one-shot exit check (count ≤ 0 and
/// buffer empty) can never see a result that is neither counted nor buffered.
fn store(ctx: &Ctx, buf: &Path, frame: &Frame, task_done: bool) {
    if let Err(e) = append_to_buf(buf, frame) {
        let _ = ctx
            .events
            .append(&ev::error(&format!("cannot append to notify.buf: {e}")));
    }
    if task_done {
        crate::ipc::counter::add(&ctx.session, -1);
    }
    let _ = ctx.input.send(&Frame::new(["NOTIFY_PENDING"]));
}

/// The one-shot exit condition: no sub-agent or task running and nothing buffered.
pub fn nothing_pending(session: &Session) -> bool {
    crate::ipc::counter::get(session) <= 0 && !crate::util::fsx::non_empty(&session.notify_buf())
}
