//! input.fifo: the main loop's single ordered source (docs/fifo-protocol.md), and
//! the frame writer every client, child and thread uses.
//!
//! Writers: a frame up to PIPE_BUF goes out in ONE `write(2)` (atomic on a pipe) under a
//! shared `flock` on a sibling lock file; a larger frame is written in pieces under the
//! exclusive lock. So our own writers never interleave, whatever the size; a foreign writer
//! (`printf … > input.fifo`) is safe as long as its frame fits in PIPE_BUF.
use crate::ipc::resp::Frame;
use crate::session::Session;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// Bytes a pipe write is guaranteed atomic for (POSIX minimum is 512; Linux/macOS 4096+).
pub const PIPE_BUF: usize = libc::PIPE_BUF;

/// How long a writer waits for room in a full pipe before giving up.
const WRITE_DEADLINE: Duration = Duration::from_secs(60);

/// What the main loop receives, in arrival order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputMsg {
    /// A USER_INPUT frame's content (field 2) or a plain text line. Never empty.
    UserInput(String),
    NotifyPending,
    SessionEnd,
    /// A malformed frame was skipped (description for an `error` event).
    Malformed(String),
}

/// Why a frame could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The FIFO is missing, is not a FIFO, or nobody has it open for reading.
    #[error("no process is reading {0}")]
    NoReader(PathBuf),
    #[error("cannot write to {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// The lock file beside a FIFO (`.input.fifo.lock`), shared by all writers of that FIFO.
pub fn lock_path(fifo: &Path) -> PathBuf {
    let name = fifo
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "fifo".into());
    fifo.with_file_name(format!(".{name}.lock"))
}

/// True when `path` exists and is a FIFO (symlinks are not followed).
pub fn is_fifo(path: &Path) -> bool {
    std::fs::symlink_metadata(path)
        .map(|m| m.file_type().is_fifo())
        .unwrap_or(false)
}

/// Open a FIFO's write end `O_WRONLY|O_NONBLOCK`: ENXIO (no reader), a missing path or a
/// non-FIFO are [`WriteError::NoReader`], so a writer never blocks or creates a file.
fn open_write_nonblocking(path: &Path) -> Result<std::fs::File, WriteError> {
    if !is_fifo(path) {
        return Err(WriteError::NoReader(path.to_path_buf()));
    }
    OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ENXIO) | Some(libc::ENOENT) => WriteError::NoReader(path.to_path_buf()),
            _ => WriteError::Io {
                path: path.to_path_buf(),
                source: e,
            },
        })
}

/// Write one frame to the FIFO at `path` without ever blocking on a missing reader:
/// open `O_WRONLY|O_NONBLOCK` (ENXIO, missing or not a FIFO → [`WriteError::NoReader`]).
pub fn write_frame(path: &Path, frame: &Frame) -> Result<(), WriteError> {
    let f = open_write_nonblocking(path)?;
    write_locked(&f, &lock_path(path), &frame.encode()).map_err(|e| match e.raw_os_error() {
        Some(libc::EPIPE) => WriteError::NoReader(path.to_path_buf()),
        _ => WriteError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    })
}

/// Take the writers' lock (shared for atomic-size frames, exclusive for larger ones) and
/// write all of `bytes` to the non-blocking pipe descriptor `f`.
fn write_locked(f: &File, lock: &Path, bytes: &[u8]) -> io::Result<()> {
    use fs2::FileExt;
    let lockf = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_CLOEXEC)
        .open(lock)
        .ok();
    if let Some(l) = &lockf {
        let res = if bytes.len() <= PIPE_BUF {
            l.lock_shared()
        } else {
            l.lock_exclusive()
        };
        // A lock we cannot take only weakens the large-frame guarantee; write anyway.
        let _ = res;
    }
    write_all_nonblocking(f, bytes)
    // The lock is released when `lockf` is dropped.
}

/// Write everything, waiting with poll(2) while the pipe is full. A frame up to PIPE_BUF
/// is written by one write(2) call (the kernel writes it whole or not at all).
fn write_all_nonblocking(mut f: &File, bytes: &[u8]) -> io::Result<()> {
    let deadline = Instant::now() + WRITE_DEADLINE;
    let mut done = 0;
    while done < bytes.len() {
        match f.write(&bytes[done..]) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the reader does not drain the FIFO",
                    ));
                }
                wait_fd(f, libc::POLLOUT, left.min(Duration::from_millis(500)));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// poll(2) one descriptor for `events`; true when ready.
pub(crate) fn wait_fd(f: &File, events: libc::c_short, timeout: Duration) -> bool {
    use std::os::fd::AsRawFd;
    let mut pfd = libc::pollfd {
        fd: f.as_fd().as_raw_fd(),
        events,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd for the duration of the call.
    let n = unsafe { libc::poll(&mut pfd, 1, ms) };
    n > 0 && pfd.revents != 0
}

/// Silence inside a frame after which the frame counts as truncated (its writer died).
pub const STALL: Duration = Duration::from_millis(1000);

/// A FIFO read descriptor whose reads return `TimedOut` after [`STALL`] without data, so
/// the RESP reader can tell a dead writer's partial frame from a slow one.
pub(crate) struct PatientFd(pub File);

impl io::Read for PatientFd {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !wait_fd(&self.0, libc::POLLIN, STALL) {
            return Err(io::Error::from(io::ErrorKind::TimedOut));
        }
        (&self.0).read(buf)
    }
}

/// True when nothing is buffered and the descriptor has no data ready right now.
pub(crate) fn idle(r: &BufReader<PatientFd>) -> bool {
    r.buffer().is_empty() && !wait_fd(&r.get_ref().0, libc::POLLIN, Duration::ZERO)
}

/// Open a FIFO read-write (never blocks, never sees EOF), creating it if missing.
pub(crate) fn open_rdwr(path: &Path) -> io::Result<File> {
    if !is_fifo(path) {
        crate::session::store::make_fifo(path)?;
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)
}

/// A cloneable, thread-safe writer of frames to a FIFO. It opens the FIFO for each frame
/// and closes it after, so the reader sees end-of-file whenever no writer is left, which
/// is how it tells an unfinished line of a writer that is gone from the next writer's.
#[derive(Clone, Debug)]
pub struct FifoWriter {
    path: PathBuf,
}

impl FifoWriter {
    /// A writer on an existing FIFO that has a reader (checked now).
    pub fn open(path: &Path) -> Result<FifoWriter, WriteError> {
        drop(open_write_nonblocking(path)?);
        Ok(FifoWriter {
            path: path.to_path_buf(),
        })
    }

    /// Send one frame (same locking rules as [`write_frame`]).
    pub fn send(&self, frame: &Frame) -> io::Result<()> {
        write_frame(&self.path, frame).map_err(|e| match e {
            WriteError::Io { source, .. } => source,
            other => io::Error::new(io::ErrorKind::BrokenPipe, other.to_string()),
        })
    }
}

/// The reading side of input.fifo: a thread parses frames and plain lines and hands them
/// to the main loop through `rx`.
pub struct InputChannel {
    pub rx: Receiver<InputMsg>,
    writer: FifoWriter,
    _thread: std::thread::JoinHandle<()>,
}

impl InputChannel {
    /// Open the session's input.fifo without blocking and start the reader thread.
    pub fn open(session: &Session) -> io::Result<InputChannel> {
        InputChannel::open_path(&session.input_fifo())
    }

    /// [`InputChannel::open`] on an explicit FIFO path.
    pub fn open_path(path: &Path) -> io::Result<InputChannel> {
        let read = open_read_end(path)?;
        let writer = FifoWriter::open(path).map_err(|e| io::Error::other(e.to_string()))?;
        let (tx, rx) = mpsc::channel();
        let p = path.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("input-fifo".into())
            .spawn(move || read_loop(&p, read, tx))?;
        Ok(InputChannel {
            rx,
            writer,
            _thread: thread,
        })
    }

    /// A writer on the same FIFO (notify reader wakeups, the one-shot SESSION_END, the
    /// line-editor thread).
    pub fn writer(&self) -> FifoWriter {
        self.writer.clone()
    }
}

/// The read end of input.fifo, `O_RDONLY|O_NONBLOCK` (creating the FIFO if missing): it
/// never blocks on open, and since the agent keeps no write end open, a read returns
/// end-of-file when the last writer closes.
fn open_read_end(path: &Path) -> io::Result<File> {
    if !is_fifo(path) {
        crate::session::store::make_fifo(path)?;
    }
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

/// A fresh read end on `path` when it is still the FIFO `old` reads (same inode).
fn reopen_same(path: &Path, old: &File) -> Option<File> {
    use std::os::unix::fs::MetadataExt;
    let a = old.metadata().ok()?;
    let b = std::fs::symlink_metadata(path).ok()?;
    if !b.file_type().is_fifo() || a.dev() != b.dev() || a.ino() != b.ino() {
        return None;
    }
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .ok()
}

fn read_loop(path: &Path, mut file: File, tx: mpsc::Sender<InputMsg>) {
    use crate::ipc::framing::{Decoder, Event};
    use std::io::Read;
    let mut dec = Decoder::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut last_eof: Option<Instant> = None;
    let mut got_since_eof = 0usize;
    loop {
        while let Some(ev) = dec.next_event() {
            let msg = match ev {
                Event::Line(text) => {
                    if text.trim().is_empty() {
                        continue;
                    }
                    InputMsg::UserInput(text)
                }
                Event::Malformed(e) => {
                    InputMsg::Malformed(format!("malformed frame on input.fifo: {e}"))
                }
                Event::Dropped(why) => InputMsg::Malformed(format!("input.fifo: {why}")),
                Event::Frame(f) => match f.kind() {
                    // The content is field 2; an empty one is ignored (never "0").
                    "USER_INPUT" => {
                        let content = f.field(2);
                        if content.is_empty() {
                            continue;
                        }
                        InputMsg::UserInput(content)
                    }
                    "NOTIFY_PENDING" => InputMsg::NotifyPending,
                    "SESSION_END" => InputMsg::SessionEnd,
                    _ => continue,
                },
            };
            if tx.send(msg).is_err() {
                return;
            }
        }
        // Inside a frame a writer that holds the FIFO open and stops sending is cut off
        // after STALL; between items the reader waits for bytes or for the last writer
        // to close, however long that takes.
        let wait = if dec.in_frame() {
            STALL
        } else {
            Duration::from_secs(3600)
        };
        if !wait_fd(&file, libc::POLLIN, wait) {
            if dec.in_frame() {
                dec.stalled();
            }
            continue;
        }
        match (&file).read(&mut chunk) {
            Ok(0) => {
                dec.writers_gone();
                // A new descriptor does not report the hang-up that was already seen;
                // it is opened before the old one closes, so a reader always exists.
                match reopen_same(path, &file) {
                    Some(f) => file = f,
                    None => {
                        // The FIFO was removed or replaced (the run is ending, or another
                        // program took the name): nothing can reach this reader any more,
                        // and a new FIFO must not be created under the name.
                        loop {
                            std::thread::sleep(Duration::from_secs(3600));
                        }
                    }
                }
                // Where a hang-up stays visible on a fresh descriptor, do not spin.
                if got_since_eof == 0
                    && last_eof.is_some_and(|t| t.elapsed() < Duration::from_millis(5))
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                last_eof = Some(Instant::now());
                got_since_eof = 0;
            }
            Ok(n) => {
                got_since_eof += n;
                dec.feed(&chunk[..n]);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                ) => {}
            Err(e) => {
                let _ = tx.send(InputMsg::Malformed(format!("input.fifo read error: {e}")));
                return;
            }
        }
    }
}
