//! One exclusive lock per session for the lifetime of a run (`<session>/.lock`, fs2).
//! The holder's pid is written into the file so a second run can name it.
use fs2::FileExt;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Held while alive; the OS releases it when the process dies.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("session {id} is in use by pid {pid}")]
    InUse { id: String, pid: String },
    #[error("cannot lock session {id}: {source}")]
    Io {
        id: String,
        #[source]
        source: std::io::Error,
    },
}

pub fn lock_path(dir: &Path) -> std::path::PathBuf {
    dir.join(".lock")
}

impl SessionLock {
    /// Try to take the lock of the session folder `dir` (which must exist).
    pub fn acquire(dir: &Path, id: &str) -> Result<SessionLock, LockError> {
        let io = |source| LockError::Io {
            id: id.to_string(),
            source,
        };
        let mut f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_CLOEXEC)
            .open(lock_path(dir))
            .map_err(io)?;
        if f.try_lock_exclusive().is_err() {
            let mut pid = String::new();
            let _ = f.read_to_string(&mut pid);
            let pid = pid.split_whitespace().next().unwrap_or("?").to_string();
            return Err(LockError::InUse {
                id: id.to_string(),
                pid,
            });
        }
        f.set_len(0).map_err(io)?;
        f.seek(SeekFrom::Start(0)).map_err(io)?;
        writeln!(f, "{}", std::process::id()).map_err(io)?;
        Ok(SessionLock { _file: f })
    }
}

/// The pid holding the session's lock, if any (used by list --json and prune).
pub fn holder(dir: &Path) -> Option<u32> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(lock_path(dir))
        .ok()?;
    if f.try_lock_exclusive().is_ok() {
        let _ = fs2::FileExt::unlock(&f);
        return None;
    }
    let s = std::fs::read_to_string(lock_path(dir)).ok()?;
    s.trim().parse().ok().or(Some(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn second_lock_names_holder() {
        let d = tempfile::tempdir().unwrap();
        let l = SessionLock::acquire(d.path(), "s").unwrap();
        // fs2 locks are per open file description, so a second open in-process conflicts.
        let e = SessionLock::acquire(d.path(), "s").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("session s is in use by pid {}", std::process::id())
        );
        assert_eq!(holder(d.path()), Some(std::process::id()));
        drop(l);
        assert_eq!(holder(d.path()), None);
    }
}
