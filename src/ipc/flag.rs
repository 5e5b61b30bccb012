//! agent_running.flag (docs/sessions.md): exists exactly while a turn runs; content
//! `<pid> <start epoch secs>\n`, written atomically, removed when the guard drops (every
//! exit path of a turn: normal end, error, interrupt, panic unwinding).
use crate::session::Session;
use std::path::PathBuf;

/// Guard for the running flag.
#[derive(Debug)]
pub struct RunningFlag {
    path: PathBuf,
}

impl RunningFlag {
    /// Write the flag. A write failure is reported on stderr; the turn still runs.
    pub fn set(session: &Session) -> RunningFlag {
        let path = session.running_flag();
        let line = format!("{} {}\n", std::process::id(), crate::util::time::now_secs());
        if let Err(e) = crate::util::fsx::write_atomic_nosync(&path, line.as_bytes()) {
            eprintln!("bash-agent: cannot write {}: {e}", path.display());
        }
        RunningFlag { path }
    }
}

impl Drop for RunningFlag {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn present_while_alive() {
        let d = tempfile::tempdir().unwrap();
        let s = Session::new(d.path(), "s");
        s.create_dir().unwrap();
        {
            let _f = RunningFlag::set(&s);
            let t = std::fs::read_to_string(s.running_flag()).unwrap();
            let mut it = t.split_whitespace();
            assert_eq!(it.next().unwrap(), std::process::id().to_string());
            assert!(it.next().unwrap().parse::<i64>().unwrap() > 1_600_000_000);
            assert!(t.ends_with('\n'));
        }
        assert!(!s.running_flag().exists());
        let r = std::panic::catch_unwind(|| {
            let _f = RunningFlag::set(&s);
            panic!("boom");
        });
        assert!(r.is_err());
        assert!(!s.running_flag().exists());
    }
}
