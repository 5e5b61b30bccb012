//! Torn tails: a process killed in the middle of a large append (a multi-megabyte
//! tool_call event or assistant line) leaves a last line without its newline. When a run
//! opens the session, that tail is moved to a side file next to the log
//! (`<name>.torn-<timestamp>`) and the log is cut at its last newline, so every line
//! left is whole and the next append starts on a clean line. Nothing is thrown away:
//! the side file keeps the bytes for inspection.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// What [`repair_tail`] did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailFix {
    /// The tail was not a whole JSON object: moved to `side`, the file cut before it.
    Moved { side: PathBuf, bytes: u64 },
    /// The tail was a whole JSON object that only lacked its newline: the newline added.
    Terminated,
}

impl TailFix {
    /// The `error` event text for `path`.
    pub fn message(&self, path: &Path) -> String {
        let name = file_name(path);
        match self {
            TailFix::Moved { side, bytes } => format!(
                "{name} ended with a torn line ({bytes} bytes, an interrupted write): \
                 moved to {} and the file cut at its last whole line",
                file_name(side)
            ),
            TailFix::Terminated => {
                format!("{name} ended without a newline after its last line: newline added")
            }
        }
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Offset just past the last `\n` of `f` (0 when there is none), reading backwards.
fn end_of_last_line(f: &mut File, len: u64) -> io::Result<u64> {
    const CHUNK: u64 = 64 * 1024;
    let mut end = len;
    let mut buf = vec![0u8; CHUNK as usize];
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(&mut buf[..n])?;
        if let Some(i) = buf[..n].iter().rposition(|b| *b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// A side-file name that does not exist yet.
fn side_path(path: &Path) -> PathBuf {
    let stamp = crate::util::time::local_compact(crate::util::time::now_secs());
    let base = format!("{}.torn-{stamp}", file_name(path));
    let mut p = path.with_file_name(&base);
    let mut n = 2;
    while fs::symlink_metadata(&p).is_ok() {
        p = path.with_file_name(format!("{base}-{n}"));
        n += 1;
    }
    p
}

/// Make `path` end on a whole line (see the module doc). `Ok(None)`: nothing to do (the
/// file is missing, empty or ends with a newline). The caller holds the session lock.
pub fn repair_tail(path: &Path) -> io::Result<Option<TailFix>> {
    let mut f = match OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let len = f.metadata()?.len();
    if len == 0 {
        return Ok(None);
    }
    let cut = end_of_last_line(&mut f, len)?;
    if cut == len {
        return Ok(None);
    }
    let mut tail = Vec::with_capacity((len - cut) as usize);
    f.seek(SeekFrom::Start(cut))?;
    (&mut f).take(len - cut).read_to_end(&mut tail)?;
    if matches!(
        serde_json::from_slice::<serde_json::Value>(&tail),
        Ok(serde_json::Value::Object(_))
    ) {
        std::os::unix::fs::FileExt::write_all_at(&f, b"\n", len)?;
        return Ok(Some(TailFix::Terminated));
    }
    move_out(&f, path, cut, &tail).map(Some)
}

/// Move the bytes of `path` from offset `from` to its end into a side file and cut the
/// file there (a whole last line the loader must not keep, e.g. a tool call whose results
/// were never written). `from` must be the start of a line.
pub fn move_tail_from(path: &Path, from: u64) -> io::Result<TailFix> {
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)?;
    let len = f.metadata()?.len();
    let mut tail = Vec::new();
    f.seek(SeekFrom::Start(from.min(len)))?;
    (&mut f)
        .take(len.saturating_sub(from))
        .read_to_end(&mut tail)?;
    move_out(&f, path, from.min(len), &tail)
}

fn move_out(f: &File, path: &Path, cut: u64, tail: &[u8]) -> io::Result<TailFix> {
    let side = side_path(path);
    // The side file is complete on disk before the log loses the bytes.
    crate::util::fsx::write_atomic(&side, tail)?;
    f.set_len(cut)?;
    f.sync_all()?;
    Ok(TailFix::Moved {
        side,
        bytes: tail.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_tail_moved_whole_tail_terminated() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("events.jsonl");
        assert_eq!(repair_tail(&p).unwrap(), None);
        fs::write(&p, "{\"a\":1}\n{\"b\":").unwrap();
        let fix = repair_tail(&p).unwrap().unwrap();
        let TailFix::Moved { side, bytes } = &fix else {
            panic!("{fix:?}")
        };
        assert_eq!(*bytes, 5);
        assert_eq!(fs::read(side).unwrap(), b"{\"b\":");
        assert!(side
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("events.jsonl.torn-"));
        assert_eq!(fs::read_to_string(&p).unwrap(), "{\"a\":1}\n");
        assert!(fix.message(&p).contains("moved to events.jsonl.torn-"));
        assert_eq!(repair_tail(&p).unwrap(), None);

        fs::write(&p, "{\"a\":1}\n{\"b\":2}").unwrap();
        assert_eq!(repair_tail(&p).unwrap(), Some(TailFix::Terminated));
        assert_eq!(fs::read_to_string(&p).unwrap(), "{\"a\":1}\n{\"b\":2}\n");

        let big = format!("{{\"x\":\"{}", "y".repeat(200_000));
        fs::write(&p, &big).unwrap();
        assert!(matches!(
            repair_tail(&p).unwrap(),
            Some(TailFix::Moved { .. })
        ));
        assert_eq!(fs::metadata(&p).unwrap().len(), 0);
    }
}
