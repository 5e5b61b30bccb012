//! Large lines made durable before they become lines. A line of 64 KiB or more (a
//! multi-megabyte tool call, a huge answer) takes many page copies, or many writes when it
//! is streamed, and a `kill -9` in between leaves a torn line whose content the loader can
//! only set aside. So such a line is first written whole to a side file beside the log,
//! `<log>.pending-<offset>-<n>` (temp file, fsync, rename: it exists only when complete), then
//! appended, then the side file is removed. When a run opens the session, [`recover`]
//! finishes or places every pending line: nothing that was handed to the store is lost,
//! whatever byte the kill came at. Smaller lines go out in one `write(2)` as before.
//!
//! `<offset>` is the log's length when the append began: the line starts there, or one
//! byte later when a newline was glued onto a torn tail first. The run that holds the
//! session lock is the only writer of large lines, so nothing else lands in between.
use crate::util::fsx;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Lines from this size on go through a pending file.
pub const LARGE: usize = 64 * 1024;

fn pending_prefix(log: &Path) -> String {
    let name = log
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{name}.pending-")
}

/// `<log>.pending-<offset>-<n>`: `n` keeps two threads that begin large lines at the same
/// length (the turn and a notify reader) apart.
fn pending_path(log: &Path) -> PathBuf {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let start = fs::metadata(log).map(|m| m.len()).unwrap_or(0);
    log.with_file_name(format!("{}{start}-{n}", pending_prefix(log)))
}

/// Append `line` (and its newline) to `log`; a large line goes through a pending file.
pub fn append_line(log: &Path, line: &str) -> io::Result<()> {
    if line.len() < LARGE {
        return fsx::append_line(log, line);
    }
    let pending = pending_path(log);
    fsx::write_atomic_with(&pending, |w| {
        w.write_all(line.as_bytes())?;
        if !line.ends_with('\n') {
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    let res = fsx::append_line(log, line);
    finish(&pending, res)
}

/// Append what `write` produces (whole lines, newlines included). When `size` (an estimate
/// of the bytes) is large, the bytes are streamed into a pending file first and copied
/// from there, so a huge answer is never held in memory twice.
pub fn append_with(
    log: &Path,
    size: usize,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    if size < LARGE {
        return fsx::append_with(log, write);
    }
    let pending = pending_path(log);
    fsx::write_atomic_with(&pending, write)?;
    let res = fsx::append_with(log, |w| {
        let mut f = fsx::open_read(&pending)?;
        io::copy(&mut f, w).map(|_| ())
    });
    finish(&pending, res)
}

/// The append is done (or undone by the appender): the pending file goes either way. A
/// failed append left the log as it was, so the line was never handed over.
fn finish(pending: &Path, res: io::Result<()>) -> io::Result<()> {
    let _ = fs::remove_file(pending);
    res
}

/// At open, under the session lock: complete every line a killed run left pending in
/// `log`, in the order they were begun. Returns one message per line it had to repair (for
/// an `error` event); a pending line that had reached the log whole is just cleared.
pub fn recover(log: &Path) -> io::Result<Vec<String>> {
    let Some(dir) = log.parent() else {
        return Ok(Vec::new());
    };
    let prefix = pending_prefix(log);
    let mut pending: Vec<(u64, PathBuf)> = Vec::new();
    for e in fs::read_dir(dir)?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let start = name
            .strip_prefix(&prefix)
            .and_then(|n| n.split('-').next()?.parse::<u64>().ok());
        if let Some(start) = start {
            pending.push((start, e.path()));
        }
    }
    pending.sort();
    let mut notes = Vec::new();
    for (start, p) in pending {
        let want = fs::read(&p)?;
        if !want.is_empty() {
            if let Some(note) = place(log, start, &want)? {
                notes.push(note);
            }
        }
        fs::remove_file(&p)?;
    }
    Ok(notes)
}

/// Make the bytes `want`, begun at `start`, stand whole in `log`.
fn place(log: &Path, start: u64, want: &[u8]) -> io::Result<Option<String>> {
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(log)?;
    let len = f.metadata()?.len();
    let mut at = start.min(len);
    let mut first = [0u8];
    if at < len && f.read_at(&mut first, at)? == 1 && first[0] == b'\n' && want[0] != b'\n' {
        at += 1; // the newline glued onto a torn tail before the line
    }
    let mut got = Vec::with_capacity(want.len().min((len - at) as usize));
    f.seek(SeekFrom::Start(at))?;
    (&mut f).take(want.len() as u64).read_to_end(&mut got)?;
    let same = got.iter().zip(want).take_while(|(a, b)| a == b).count();
    let name = log
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let size = want.len();
    if same == want.len() {
        return Ok(None); // it had reached the log whole
    }
    if same == 0 {
        // It never began here: it goes at the end, on a line of its own.
        drop(f);
        fsx::append_bytes(log, want)?;
        return Ok(Some(format!(
            "{name}: a {size}-byte line a crash kept from the log was appended from its pending copy"
        )));
    }
    if same == got.len() && at + same as u64 == len {
        // Torn at the end: write the rest of the line where the kill stopped it.
        f.write_all_at(&want[same..], len)?;
        f.sync_data()?;
        return Ok(Some(format!(
            "{name}: a {size}-byte line cut by a crash after {same} bytes was completed from its pending copy"
        )));
    }
    // A torn piece with other bytes after it: rewrite the log with the whole line in place.
    let mut all = Vec::with_capacity(len as usize + want.len());
    f.seek(SeekFrom::Start(0))?;
    f.read_to_end(&mut all)?;
    drop(f);
    let mut rest = at as usize + same;
    if all.get(rest) == Some(&b'\n') {
        rest += 1; // the newline the next writer glued on
    }
    let (head, tail) = (&all[..at as usize], &all[rest.min(all.len())..]);
    fsx::write_atomic_with(log, |w| {
        w.write_all(head)?;
        w.write_all(want)?;
        w.write_all(tail)
    })?;
    Ok(Some(format!(
        "{name}: a {size}-byte line torn by a crash was put back whole from its pending copy"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(c: char, n: usize) -> String {
        format!("{{\"x\":\"{}\"}}\n", c.to_string().repeat(n))
    }

    #[test]
    fn a_line_cut_at_any_point_is_completed() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("events.jsonl");
        let head = "{\"a\":1}\n";
        let big = line('y', LARGE);
        for cut in [0, 1, 4096, LARGE / 2, big.len() - 1, big.len()] {
            fs::write(&log, format!("{head}{}", &big[..cut])).unwrap();
            let pending = log.with_file_name(format!("events.jsonl.pending-{}", head.len()));
            fs::write(&pending, &big).unwrap();
            let notes = recover(&log).unwrap();
            assert_eq!(fs::read_to_string(&log).unwrap(), format!("{head}{big}"));
            assert_eq!(notes.len(), usize::from(cut < big.len()), "{cut}");
            assert!(!pending.exists());
        }
    }

    #[test]
    fn a_torn_piece_followed_by_other_lines_is_replaced_in_place() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("conversation.jsonl");
        let big = line('z', LARGE);
        fs::write(&log, format!("{{}}\n{}\n{{\"b\":2}}\n", &big[..100])).unwrap();
        fs::write(log.with_file_name("conversation.jsonl.pending-3"), &big).unwrap();
        assert_eq!(recover(&log).unwrap().len(), 1);
        assert_eq!(
            fs::read_to_string(&log).unwrap(),
            format!("{{}}\n{big}{{\"b\":2}}\n")
        );
        // A torn tail that got its glue newline before the line began.
        fs::write(&log, "{\"t\":").unwrap();
        fs::write(log.with_file_name("conversation.jsonl.pending-5"), &big).unwrap();
        fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .unwrap()
            .write_all(format!("\n{}", &big[..10]).as_bytes())
            .unwrap();
        recover(&log).unwrap();
        assert_eq!(
            fs::read_to_string(&log).unwrap(),
            format!("{{\"t\":\n{big}")
        );
    }

    #[test]
    fn appends_leave_no_pending_file() {
        let d = tempfile::tempdir().unwrap();
        let log = d.path().join("events.jsonl");
        let big = line('q', LARGE);
        append_line(&log, big.trim_end()).unwrap();
        append_with(&log, big.len(), |w| w.write_all(big.as_bytes())).unwrap();
        append_line(&log, "{\"s\":1}").unwrap();
        assert_eq!(
            fs::read_to_string(&log).unwrap(),
            format!("{big}{big}{{\"s\":1}}\n")
        );
        let names: Vec<_> = fs::read_dir(d.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
    }
}
