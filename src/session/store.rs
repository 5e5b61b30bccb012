//! The session folder (docs/sessions.md): paths of every file, init, fork,
//! `--continue` selection (latest events.jsonl, `sub_*` skipped).
use crate::util::fsx;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A session folder.
#[derive(Debug, Clone)]
pub struct Session {
    pub id: String,
    pub dir: PathBuf,
}

impl Session {
    pub fn new(project_dir: &Path, id: &str) -> Session {
        Session {
            id: id.to_string(),
            dir: project_dir.join(id),
        }
    }

    /// The project folder holding this session.
    pub fn project_dir(&self) -> PathBuf {
        self.dir
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.dir.clone())
    }

    pub fn conversation(&self) -> PathBuf {
        self.dir.join("conversation.jsonl")
    }
    pub fn archive(&self) -> PathBuf {
        self.dir.join("conversation-archive.jsonl")
    }
    pub fn events(&self) -> PathBuf {
        self.dir.join("events.jsonl")
    }
    pub fn summary(&self) -> PathBuf {
        self.dir.join("summary.txt")
    }
    pub fn plan(&self) -> PathBuf {
        self.dir.join("plan.md")
    }
    pub fn plan_draft(&self) -> PathBuf {
        self.dir.join("plan.draft")
    }
    pub fn stats(&self) -> PathBuf {
        self.dir.join("stats.json")
    }
    pub fn images(&self) -> PathBuf {
        self.dir.join("images")
    }
    pub fn input_fifo(&self) -> PathBuf {
        self.dir.join("input.fifo")
    }
    pub fn notify_fifo(&self) -> PathBuf {
        self.dir.join("notify.fifo")
    }
    pub fn notify_buf(&self) -> PathBuf {
        self.dir.join("notify.buf")
    }
    pub fn active_count(&self) -> PathBuf {
        self.dir.join("active_sub.count")
    }
    pub fn running_flag(&self) -> PathBuf {
        self.dir.join("agent_running.flag")
    }
    pub fn usage_ledger(&self) -> PathBuf {
        self.dir.join("usage.jsonl")
    }
    pub fn file_history(&self) -> PathBuf {
        self.dir.join("file-history")
    }

    /// Create the folder (0700) and its parents; nothing else.
    pub fn create_dir(&self) -> std::io::Result<()> {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)?;
        let _ = fs::set_permissions(&self.dir, fs::Permissions::from_mode(0o700));
        Ok(())
    }

    /// `store_session_init`: files, images/, FIFOs (0600), `session_start` on a new
    /// session, `active_sub.count` reset to `0`. Returns true when the session is new.
    /// The caller holds the session lock.
    pub fn init(&self, events: &crate::session::events::EventLog) -> std::io::Result<bool> {
        self.create_dir()?;
        // Before anything is appended: a tail torn by a crash is set aside first, so the
        // new lines start clean and the session-start check sees only whole lines.
        let mut fixes = Vec::new();
        for p in [self.events(), self.conversation()] {
            // A large line a killed run left pending is completed before anything else.
            fixes.extend(crate::session::durable::recover(&p)?);
            if let Some(fix) = crate::session::torn::repair_tail(&p)? {
                fixes.push(fix.message(&p));
            }
        }
        // The usage ledger's lines are small whole-line appends, but a write that crosses
        // a page boundary can still be cut by kill -9: its torn tail is set aside the same
        // way, so the run's first ledger line starts clean.
        if let Some(fix) = crate::session::torn::repair_tail(&self.usage_ledger())? {
            fixes.push(fix.message(&self.usage_ledger()));
        }
        if let Some(m) = crate::session::conversation::repair_file_tail(&self.conversation())? {
            fixes.push(m);
        }
        let new_session = !fsx::non_empty(&self.events());
        for p in [
            self.conversation(),
            self.events(),
            self.summary(),
            self.plan(),
            self.plan_draft(),
            self.stats(),
        ] {
            fsx::touch(&p)?;
        }
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(self.images())?;
        if new_session {
            events.append(&crate::session::events::ev::session_start(&self.id))?;
        }
        for m in fixes {
            events.append(&crate::session::events::ev::error(&m))?;
        }
        make_fifo(&self.input_fifo())?;
        make_fifo(&self.notify_fifo())?;
        fsx::write_atomic_nosync(&self.active_count(), b"0\n")?;
        Ok(new_session)
    }

    /// Copy conversation, archive, summary and plan from `src` (fork; not events or stats).
    pub fn fork_from(&self, src: &Session) -> std::io::Result<()> {
        self.create_dir()?;
        for name in [
            "conversation.jsonl",
            "conversation-archive.jsonl",
            "summary.txt",
            "plan.md",
        ] {
            let from = src.dir.join(name);
            if from.is_file() {
                let bytes = fs::read(&from)?;
                fsx::write_atomic(&self.dir.join(name), &bytes)?;
            }
        }
        Ok(())
    }

    /// Remove the runtime files at a clean exit (FIFOs; the buffer only when empty).
    pub fn cleanup_runtime(&self) {
        let _ = fs::remove_file(self.input_fifo());
        let _ = fs::remove_file(self.notify_fifo());
        if !fsx::non_empty(&self.notify_buf()) {
            let _ = fs::remove_file(self.notify_buf());
        }
        let _ = fs::remove_file(self.running_flag());
    }
}

/// `mkfifo` with mode 0600 unless a FIFO already exists there (anything else is replaced).
pub fn make_fifo(path: &Path) -> std::io::Result<()> {
    if let Ok(m) = fs::symlink_metadata(path) {
        if m.file_type().is_fifo() {
            let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o600));
            return Ok(());
        }
        fs::remove_file(path)?;
    }
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600))
        .map_err(std::io::Error::from)
}

/// Last activity of a session folder: events.jsonl mtime, else the folder's (epoch secs).
pub fn last_activity(dir: &Path) -> i64 {
    use std::os::unix::fs::MetadataExt;
    let ev = dir.join("events.jsonl");
    match fs::metadata(&ev) {
        Ok(m) if m.is_file() => m.mtime(),
        _ => fs::metadata(dir).map(|m| m.mtime()).unwrap_or(0),
    }
}

/// Last activity in epoch seconds and in nanoseconds, from one stat (the list needs both).
pub fn activity(dir: &Path) -> (i64, i128) {
    use std::os::unix::fs::MetadataExt;
    let m = match fs::metadata(dir.join("events.jsonl")) {
        Ok(m) if m.is_file() => m,
        _ => match fs::metadata(dir) {
            Ok(m) => m,
            Err(_) => return (0, 0),
        },
    };
    (
        m.mtime(),
        m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
    )
}

/// Last activity with nanosecond precision (ordering; ties within a second are common).
pub fn last_activity_ns(dir: &Path) -> i128 {
    use std::os::unix::fs::MetadataExt;
    let m = match fs::metadata(dir.join("events.jsonl")) {
        Ok(m) if m.is_file() => m,
        _ => match fs::metadata(dir) {
            Ok(m) => m,
            Err(_) => return 0,
        },
    };
    m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128
}

/// Visible sub-folders of `dir` (session folders of a project, or projects of the root),
/// sorted by path; a missing or unreadable folder gives none.
pub fn sub_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    // Siblings: the order of their paths is the byte order of their names (a component-wise
    // `Path` comparison costs a search of 1,000 sessions a third of its instructions).
    v.sort_unstable_by(|a, b| a.as_os_str().as_bytes().cmp(b.as_os_str().as_bytes()));
    v
}

/// `--continue`: the non-`sub_` session with the strictly greatest last activity
/// (ties: first in alphabetical order).
pub fn latest_session(project_dir: &Path) -> Option<String> {
    let names: Vec<String> = sub_dirs(project_dir)
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| !n.starts_with("sub_"))
        .collect();
    let mut best: Option<(i128, String)> = None;
    for n in names {
        let ts = last_activity_ns(&project_dir.join(&n));
        if ts > best.as_ref().map(|b| b.0).unwrap_or(0) {
            best = Some((ts, n));
        }
    }
    best.map(|b| b.1)
}

/// Read the active task counter (missing or garbage → 0).
pub fn read_count(path: &Path) -> i64 {
    fs::read_to_string(path)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::events::EventLog;

    #[test]
    fn init_layout_and_modes() {
        let d = tempfile::tempdir().unwrap();
        let s = Session::new(d.path(), "demo");
        let log = EventLog::new(s.events(), None);
        assert!(s.init(&log).unwrap());
        assert!(!s.init(&log).unwrap());
        let ev = fs::read_to_string(s.events()).unwrap();
        assert_eq!(ev, "{\"type\":\"session_start\",\"session_id\":\"demo\"}\n");
        let m = fs::metadata(&s.dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(m, 0o700);
        let f = fs::symlink_metadata(s.input_fifo()).unwrap();
        assert!(f.file_type().is_fifo());
        assert_eq!(f.permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::read_to_string(s.active_count()).unwrap(), "0\n");
        assert!(s.images().is_dir());
        assert_eq!(fs::metadata(s.stats()).unwrap().len(), 0);
    }

    #[test]
    fn latest_skips_sub_sessions() {
        let d = tempfile::tempdir().unwrap();
        for n in ["a", "sub_x", "b"] {
            fs::create_dir(d.path().join(n)).unwrap();
        }
        let set = |n: &str, t: i64| {
            let p = d.path().join(n).join("events.jsonl");
            fs::write(&p, "x\n").unwrap();
            let tv = nix::sys::time::TimeVal::new(t, 0);
            nix::sys::stat::utimes(&p, &tv, &tv).unwrap();
        };
        set("a", 1000);
        set("b", 2000);
        set("sub_x", 3000);
        assert_eq!(latest_session(d.path()).as_deref(), Some("b"));
    }
}
