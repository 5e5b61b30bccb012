//! Crash-safe file helpers: whole-line appends and temp-file + rename replacement.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Append `line` (a `\n` is added if missing) with a single `write(2)` on an O_APPEND
/// descriptor, so concurrent appenders never interleave inside a line.
pub fn append_line(path: &Path, line: &str) -> io::Result<()> {
    let mut buf = Vec::with_capacity(line.len() + 1);
    buf.extend_from_slice(line.as_bytes());
    if !buf.ends_with(b"\n") {
        buf.push(b'\n');
    }
    append_bytes(path, &buf)
}

/// Append raw bytes in one write call on an O_APPEND descriptor (created 0600 if missing).
pub fn append_bytes(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)?;
    f.write_all(bytes)
}

/// Replace `path` atomically: write a sibling temp file, fsync it, keep the old file's mode,
/// then rename over the target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
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
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode.unwrap_or(0o600))
            .custom_flags(libc::O_CLOEXEC)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_data()?;
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
