//! Background Bash tasks (docs/fifo-protocol.md): `bash -lc CMD` in its own process group,
//! stdin /dev/null, output to a private temp file; a waiter thread reports
//! `ASYNC_TASK_RESULT task_id rc output` on the session's notify.fifo (or, with no reader,
//! appends it to notify.buf so it is delivered on resume).
use crate::ipc::fifo::{self, WriteError};
use crate::ipc::resp::Frame;
use crate::session::Session;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Most output bytes injected (head + tail); the middle is replaced by a marker line.
pub const OUTPUT_CAP: u64 = 100_000;

/// Start `command`; returns `Async task started: task_id=<id>, pid=<pid>`.
pub fn spawn(session: &Session, command: &str, notify_fifo: PathBuf) -> Result<String, String> {
    if command.trim().is_empty() {
        return Err("no command provided".into());
    }
    let id = crate::session::paths::new_unique_id(&session.dir, "task_");
    let (out_path, out) =
        temp_output(&id).map_err(|e| format!("cannot create the output file: {e}"))?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    // Count it before it exists: a result can never arrive before its increment.
    crate::ipc::counter::add(session, 1);
    let mut cmd = Command::new("bash");
    cmd.arg("-lc")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let child = crate::sandbox::confine(&mut cmd, &cwd).and_then(|_confined| cmd.spawn());
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            crate::ipc::counter::add(session, -1);
            let _ = std::fs::remove_file(&out_path);
            return Err(format!("cannot start bash: {e}"));
        }
    };
    let pid = child.id();
    let task_id = id.clone();
    let buf = session.notify_buf();
    let spawned = std::thread::Builder::new()
        .name(format!("bg-{id}"))
        .spawn(move || {
            let rc = match child.wait() {
                Ok(st) => st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
                Err(_) => -1,
            };
            let output = crate::sandbox::env::redact(&read_capped(&out_path)).into_owned();
            let _ = std::fs::remove_file(&out_path);
            let frame = Frame::async_task_result(&task_id, rc, &output);
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

fn temp_output(id: &str) -> std::io::Result<(PathBuf, File)> {
    let dir = std::env::temp_dir();
    for _ in 0..16 {
        let p = dir.join(format!(
            "bash-agent-{id}-{:08x}.out",
            crate::util::random_u64() as u32
        ));
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_CLOEXEC)
            .open(&p)
        {
            Ok(f) => return Ok((p, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free temp file name"))
}

/// The output as text (invalid UTF-8 replaced); above [`OUTPUT_CAP`] only the head and the
/// tail are kept, cut on character boundaries, with a marker in between.
pub fn read_capped(path: &Path) -> String {
    let mut f = match crate::util::fsx::open_read(path) {
        Ok(f) => f,
        Err(_) => return String::new(),
    };
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    if size <= OUTPUT_CAP {
        let mut b = Vec::new();
        let _ = f.read_to_end(&mut b);
        return String::from_utf8_lossy(&b).into_owned();
    }
    let half = OUTPUT_CAP / 2;
    let mut head = vec![0u8; half as usize];
    let mut tail = vec![0u8; half as usize];
    let ok = f.read_exact(&mut head).is_ok()
        && f.seek(SeekFrom::Start(size - half)).is_ok()
        && f.read_exact(&mut tail).is_ok();
    if !ok {
        return String::new();
    }
    let is_cont = |b: u8| b & 0xC0 == 0x80;
    // Cut before a multi-byte character that the head split.
    let mut h_end = head.len();
    for k in 1..=3.min(head.len()) {
        let b = head[head.len() - k];
        if is_cont(b) {
            continue;
        }
        let need = match b {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        if need > k {
            h_end = head.len() - k;
        }
        break;
    }
    let mut t_start = 0;
    while t_start < tail.len() && is_cont(tail[t_start]) {
        t_start += 1;
    }
    let omitted = size - h_end as u64 - (tail.len() - t_start) as u64;
    format!(
        "{}\n... [{omitted} bytes of output omitted] ...\n{}",
        String::from_utf8_lossy(&head[..h_end]),
        String::from_utf8_lossy(&tail[t_start..])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_keeps_head_and_tail_on_char_boundaries() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("o");
        let mut s = String::from("START");
        while s.len() < 300_000 {
            s.push('é');
        }
        s.push_str("END");
        std::fs::write(&p, &s).unwrap();
        let out = read_capped(&p);
        assert!(out.starts_with("START"));
        assert!(out.ends_with("END"));
        assert!(out.contains("bytes of output omitted"));
        assert!(!out.contains('\u{fffd}'));
        assert!(out.len() < 100_200);
        std::fs::write(&p, b"ok\xff\n").unwrap();
        assert_eq!(read_capped(&p), "ok\u{fffd}\n");
    }
}
