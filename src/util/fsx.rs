//! Crash-safe file helpers: whole-line appends and temp-file + rename replacement.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Append `line` (a `\n` is added if missing) with a single `write(2)` on an O_APPEND
/// descriptor, so concurrent appenders never interleave inside a line. The line and its
/// newline go out as one vectored write: a 50 MB line is never copied to add its newline.
pub fn append_line(path: &Path, line: &str) -> io::Result<()> {
    let nl: &[u8] = if line.ends_with('\n') { b"" } else { b"\n" };
    append_parts(path, &[line.as_bytes(), nl])
}

/// Append raw bytes in one write call on an O_APPEND descriptor (created 0600 if missing).
///
/// A short write (full disk, quota) is undone, so no half line stays behind; and when the
/// file ends in a torn line (from an older crash or a full disk), the new bytes start on a
/// fresh line instead of being glued to it.
pub fn append_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    append_parts(path, &[bytes])
}

/// [`append_bytes`] of the concatenation of `parts`, as one vectored write (no copy).
pub fn append_parts(path: &Path, parts: &[&[u8]]) -> io::Result<()> {
    let (mut f, start, glue) = open_append(path)?;
    let mut all: Vec<io::IoSlice> = Vec::with_capacity(parts.len() + 1);
    if glue {
        all.push(io::IoSlice::new(b"\n"));
    }
    all.extend(
        parts
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| io::IoSlice::new(p)),
    );
    let mut bufs = &mut all[..];
    while !bufs.is_empty() {
        match f.write_vectored(bufs) {
            Ok(0) => {
                let _ = f.set_len(start);
                return Err(io::ErrorKind::WriteZero.into());
            }
            Ok(n) => io::IoSlice::advance_slices(&mut bufs, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                let _ = f.set_len(start);
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Append what `write` produces, streamed through a 64 KiB buffer: a line that is too big
/// to copy (a 50 MB answer) is serialised straight into the file. Lines shorter than the
/// buffer still go out in one write. Only for files one writer appends to (the run holds
/// the session's lock): a long line takes several writes. On an error the file is cut
/// back, as in [`append_bytes`].
pub fn append_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let (f, start, glue) = open_append(path)?;
    let mut w = io::BufWriter::with_capacity(64 * 1024, f);
    let res = (|| {
        if glue {
            w.write_all(b"\n")?;
        }
        write(&mut w)?;
        w.flush()
    })();
    // Taken apart, not dropped: a drop would flush what is left after the cut.
    let (f, _unwritten) = w.into_parts();
    if let Err(e) = res {
        let _ = f.set_len(start);
        return Err(e);
    }
    Ok(())
}

/// Open for appending: the file, its length, and whether it ends in a torn line (the new
/// bytes must start with a newline).
fn open_append(path: &Path) -> io::Result<(File, u64, bool)> {
    use std::os::unix::fs::FileExt;
    let f = OpenOptions::new()
        .read(true)
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)?;
    let start = f.metadata()?.len();
    let mut last = [b'\n'];
    if start > 0 {
        let _ = f.read_at(&mut last, start - 1);
    }
    Ok((f, start, last[0] != b'\n'))
}

/// Replace `path` atomically: write a sibling temp file, fsync it, keep the old file's mode,
/// then rename over the target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_replace(path, bytes, true)
}

/// Like [`write_atomic`] without the data sync: for small counters rewritten on every model
/// call (stats.json, active_sub.count, the running flag), where a crash may lose the last
/// update but never leaves a torn file, and readers treat a missing or empty file as zeros.
pub fn write_atomic_nosync(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_replace(path, bytes, false)
}

fn write_replace(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    replace_with(path, sync, |w| w.write_all(bytes))
}

/// [`write_atomic`] of what `write` produces, streamed into the temp file through a 64 KiB
/// buffer (a 50 MB body is never held twice).
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    replace_with(path, true, write)
}

fn replace_with(
    path: &Path,
    sync: bool,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let tmp = dir.join(format!(
        ".{}.tmp.{}.{:x}",
        name,
        std::process::id(),
        crate::util::random_u64() & 0xffff_ffff
    ));
    let mode = fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o7777)
        .ok();
    let res = (|| {
        let f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode.unwrap_or(0o600))
            .custom_flags(libc::O_CLOEXEC)
            .open(&tmp)?;
        let mut w = io::BufWriter::with_capacity(64 * 1024, f);
        write(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        if sync {
            f.sync_data()?;
        }
        if let Some(m) = mode {
            f.set_permissions(fs::Permissions::from_mode(m))?;
        }
        drop(f);
        fs::rename(&tmp, path)
    })();
    if res.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    res
}

/// Create the file if missing (like `touch`, without changing mtime of existing files).
pub fn touch(path: &Path) -> io::Result<()> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map(|_| ())
}

/// Read a file to string; missing file → empty string. Invalid UTF-8 is replaced.
pub fn read_lossy(path: &Path) -> String {
    match fs::read(path) {
        Ok(b) => String::from_utf8(b)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        Err(_) => String::new(),
    }
}

/// True when the path exists and has a non-zero size.
pub fn non_empty(path: &Path) -> bool {
    fs::metadata(path).map(|m| m.len() > 0).unwrap_or(false)
}

/// Open a file read-only with close-on-exec.
pub fn open_read(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)
}
