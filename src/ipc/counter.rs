//! active_sub.count: running sub-agents and background tasks (docs/sessions.md). Every change is
//! a read-modify-write under an exclusive `flock` on `.active_sub.count.lock`, replaced
//! atomically (temp + rename), and never goes below zero.
use crate::session::Session;
use fs2::FileExt;
use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;

/// Add `delta` (negative to decrement, floor 0) and return the new value. Errors are
/// reported on stderr and the best known value is returned: a counter must never panic.
pub fn add(session: &Session, delta: i64) -> i64 {
    let path = session.active_count();
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_CLOEXEC)
        .open(session.dir.join(".active_sub.count.lock"));
    if let Ok(l) = &lock {
        let _ = l.lock_exclusive();
    }
    let new = (crate::session::store::read_count(&path) + delta).max(0);
    if let Err(e) = crate::util::fsx::write_atomic_nosync(&path, format!("{new}\n").as_bytes()) {
        eprintln!("bash-agent: cannot update {}: {e}", path.display());
    }
    new
}

/// The current value (missing or garbage → 0).
pub fn get(session: &Session) -> i64 {
    crate::session::store::read_count(&session.active_count()).max(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_get_floor() {
        let d = tempfile::tempdir().unwrap();
        let s = Session::new(d.path(), "s");
        s.create_dir().unwrap();
        assert_eq!(get(&s), 0);
        assert_eq!(add(&s, 2), 2);
        assert_eq!(add(&s, -1), 1);
        assert_eq!(add(&s, -5), 0);
        assert_eq!(std::fs::read_to_string(s.active_count()).unwrap(), "0\n");
    }

    #[test]
    fn concurrent_adds_lose_nothing() {
        let d = tempfile::tempdir().unwrap();
        let s = Session::new(d.path(), "s");
        s.create_dir().unwrap();
        let hs: Vec<_> = (0..8)
            .map(|_| {
                let s = s.clone();
                std::thread::spawn(move || {
                    for _ in 0..25 {
                        add(&s, 1);
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(get(&s), 200);
    }
}
