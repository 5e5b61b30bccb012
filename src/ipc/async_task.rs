//! The two forms of a task result's 4th field: the path of the task's `.log` file in the
//! session folder (what Bash with `async` sends, like the shell agent whose layout we keep)
//! or the output text itself (the later form). The reader turns the first into the second
//! before anything is buffered or injected, so the rest of the notify path sees text only.
use crate::ipc::resp::Frame;
use crate::session::events::{ev, EventLog};
use crate::session::Session;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Most bytes of a `.log` file taken as the result (its end: the last lines matter most).
pub const LOG_TAIL: u64 = 8192;

/// The `.log` file `field` names, when it is one: an absolute path to an existing regular
/// file ending in `.log` directly inside `dir` (symlinks resolved first). Anything else is
/// output text. The narrow rule keeps an output that happens to be a path (say, of
/// events.jsonl) from being read and deleted.
pub fn log_file(dir: &Path, field: &str) -> Option<PathBuf> {
    let p = Path::new(field);
    if !p.is_absolute() || !field.ends_with(".log") {
        return None;
    }
    let real = std::fs::canonicalize(p).ok()?;
    let home = std::fs::canonicalize(dir).ok()?;
    let meta = std::fs::metadata(&real).ok()?;
    (meta.is_file() && real.parent() == Some(home.as_path())).then_some(real)
}

/// The last [`LOG_TAIL`] bytes of `path` as text: a character the cut split is dropped,
/// invalid UTF-8 becomes U+FFFD. Unreadable → empty.
pub fn read_tail(path: &Path) -> String {
    let Ok(mut f) = crate::util::fsx::open_read(path) else {
        return String::new();
    };
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = size.saturating_sub(LOG_TAIL);
    let mut b = Vec::new();
    if f.seek(SeekFrom::Start(start)).is_err() || f.read_to_end(&mut b).is_err() {
        return String::new();
    }
    if start > 0 {
        let skip = b.iter().take(3).take_while(|&&c| c & 0xC0 == 0x80).count();
        b.drain(..skip);
    }
    // A key the command printed goes no further (the tool results' choke point does the
    // same for foreground calls).
    crate::sandbox::env::redact(&String::from_utf8_lossy(&b)).into_owned()
}

/// Take a path-form result: its `.log` file's tail, the file deleted. `None` when the
/// field is output text.
pub fn take_log(dir: &Path, field: &str) -> Option<String> {
    let p = log_file(dir, field)?;
    let out = read_tail(&p);
    let _ = std::fs::remove_file(&p);
    Some(out)
}

/// The frame with its 4th field as output text (a path form's file read and deleted).
pub fn inline(dir: &Path, f: &Frame) -> (Frame, bool) {
    match take_log(dir, &f.field(3)) {
        Some(out) => (
            Frame::new(["ASYNC_TASK_RESULT".to_string(), f.field(1), f.field(2), out]),
            true,
        ),
        None => (f.clone(), false),
    }
}

/// The exit code field as a number (garbage → -1, as a failure).
pub fn exit_code(f: &Frame) -> i64 {
    f.field(2).trim().parse().unwrap_or(-1)
}

/// Log the two events of a read result: `async_task_result`, then `async_task_end`.
pub fn log_result(events: &EventLog, quiet: bool, f: &Frame) {
    let (id, rc) = (f.field(1), exit_code(f));
    let lines = [
        ev::async_task_result(&id, rc, &f.field(3)),
        ev::async_task_end(&id, rc, &crate::util::time::utc_iso_now()),
    ];
    for l in lines {
        let _ = if quiet {
            events.append_quiet(&l)
        } else {
            events.append(&l)
        };
    }
}

/// Record a task's result that no reader takes (the agent has stopped reading, or is gone):
/// into notify.buf under its lock with the output inline (the `.log` removed), its two
/// events logged and the counter down, as the notify reader would have done, so the next
/// run shows it. `dir` is the session folder holding `buf`.
pub fn record_unread(dir: &Path, buf: &Path, frame: &Frame) -> std::io::Result<()> {
    let session = Session {
        id: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        dir: dir.to_path_buf(),
    };
    let (g, _) = inline(dir, frame);
    crate::ipc::notify::append_to_buf(buf, &g)?;
    log_result(&EventLog::new(session.events(), None), true, &g);
    // Never below 0 (a run that is gone left a count the next one resets).
    crate::ipc::counter::add(&session, -1);
    Ok(())
}

/// Path-form results found in notify.buf (sent while no reader ran, or moved there from a
/// stray regular notify.fifo): read them now, delete their files and log their events,
/// which no reader did.
pub fn resolve_buffered(session: &Session, frames: Vec<Frame>) -> Vec<Frame> {
    let events = EventLog::new(session.events(), None);
    frames
        .into_iter()
        .map(|f| {
            if f.kind() != "ASYNC_TASK_RESULT" {
                return f;
            }
            let (g, was_path) = inline(&session.dir, &f);
            if was_path {
                log_result(&events, true, &g);
            }
            g
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_log_files_directly_in_the_folder_are_paths() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("s");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.log"), "x").unwrap();
        std::fs::write(dir.join("events.jsonl"), "x").unwrap();
        std::fs::write(dir.join("sub/b.log"), "x").unwrap();
        std::fs::write(d.path().join("out.log"), "x").unwrap();
        std::os::unix::fs::symlink(d.path().join("out.log"), dir.join("link.log")).unwrap();
        let s = |p: &Path| p.to_string_lossy().into_owned();
        assert!(log_file(&dir, &s(&dir.join("a.log"))).is_some());
        for p in [
            dir.join("events.jsonl"),
            dir.join("sub/b.log"),
            d.path().join("out.log"),
            dir.join("link.log"),
            dir.join("missing.log"),
            dir.join("sub"),
        ] {
            assert_eq!(log_file(&dir, &s(&p)), None, "{}", p.display());
        }
        assert_eq!(log_file(&dir, "a.log"), None);
        assert_eq!(log_file(&dir, "ok\n"), None);
    }

    #[test]
    fn tail_is_8192_bytes_on_a_character_boundary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.log");
        let mut s = String::from("HEAD");
        while s.len() < 20_000 {
            s.push('é');
        }
        s.push_str("END");
        std::fs::write(&p, &s).unwrap();
        let t = read_tail(&p);
        assert!(t.ends_with("END") && !t.contains("HEAD") && !t.contains('\u{fffd}'));
        assert!(t.len() <= 8192 && t.len() >= 8190, "{}", t.len());
        std::fs::write(&p, b"ok\xff\n").unwrap();
        assert_eq!(read_tail(&p), "ok\u{fffd}\n");
        assert_eq!(
            take_log(d.path(), &p.to_string_lossy()).unwrap(),
            "ok\u{fffd}\n"
        );
        assert!(!p.exists());
    }
}
