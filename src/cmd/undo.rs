//! `bash-agent undo [--turns N] [--force]`: restore the files the agent changed.
use crate::cli::Opts;
use crate::error::{Error, Result};
use crate::history::undo::undo;
use crate::session::Session;

/// `bash-agent undo [--session NAME] [--turns N] [--force]`.
pub fn cmd_undo(o: &Opts, turns: u64, force: bool) -> Result {
    let project = crate::session::select::project_dir()?;
    let Some(id) = crate::session::select::named_or_latest(o, &project)? else {
        return Err(Error::runtime("no session to undo in this project"));
    };
    let session = Session::new(&project, &id);
    if !session.dir.is_dir() {
        return Err(Error::runtime(format!(
            "no session named {id} in this project"
        )));
    }
    // Hold the session's run lock: no agent may start a turn while files are restored.
    let _lock = match crate::session::lock::SessionLock::acquire(&session.dir, &id) {
        Ok(l) => l,
        Err(e) => {
            return Err(Error::runtime(format!("{e}; use /undo inside that agent")));
        }
    };
    // A rewind a kill left half done is finished first: it changes the same files.
    crate::cmd::rewind::recover(&session)?;
    match undo(&session, turns, force) {
        Ok(r) => {
            if o.json {
                let v = serde_json::json!({
                    "session": id,
                    "turns": r.turns,
                    "restored": r.restored.iter().map(|p| p.to_string_lossy()).collect::<Vec<_>>(),
                    "removed": r.removed.iter().map(|p| p.to_string_lossy()).collect::<Vec<_>>(),
                    "overwritten": r.overwritten.iter().map(|p| p.to_string_lossy()).collect::<Vec<_>>(),
                });
                println!("{v}");
            } else {
                println!("Session {id}: {r}");
            }
            Ok(())
        }
        Err(msg) => Err(Error::runtime(&msg)),
    }
}
