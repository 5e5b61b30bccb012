//! Recovery at the open of a session (docs/rewind.md, "Crashes"): every rewind or undo a
//! killed run left with its journal in place is run to its end ([`Journal::run`]), and what
//! a kill left of one being prepared (a `.partial` folder, nothing changed yet) is cleared.
use super::journal::{Journal, Ran, DISCARDED, PARTIAL, REWIND, UNDO, UNDO_FILES};
use crate::session::Session;
use std::fs;
use std::path::Path;

/// At the open of a session, under its lock: finish every rewind or undo a killed run left
/// in progress, and clear what a kill left of one being prepared. Returns one message per
/// operation it finished (for an `error` event and stderr). Err: one could not be
/// finished (its journal stays; nothing else was changed).
pub fn recover(session: &Session) -> Result<Vec<String>, String> {
    let root = super::rewinds_dir(session);
    let Ok(rd) = fs::read_dir(&root) else {
        return Ok(Vec::new());
    };
    let mut ids = Vec::new();
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(PARTIAL) || name.ends_with(DISCARDED) {
            // A rewind killed while being prepared changed nothing yet; a discarded one
            // was already rolled back.
            let _ = fs::remove_dir_all(e.path());
        } else if let Ok(id) = name.parse::<u64>() {
            ids.push(id);
        }
    }
    ids.sort_unstable();
    let mut notes = Vec::new();
    for id in ids {
        let dir = root.join(id.to_string());
        for (name, what) in [(REWIND, "rewind"), (UNDO, "undo of rewind")] {
            let p = dir.join(name);
            let text = match fs::read_to_string(&p) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(format!("cannot read {}: {e}", p.display())),
            };
            let j: Journal = serde_json::from_str(&text)
                .map_err(|e| format!("{} is damaged: {e}", p.display()))?;
            for f in &j.files {
                clear_temps(Path::new(&f.path));
            }
            clear_temps(&session.conversation());
            match j.run(session, &dir)? {
                Ran::Done(more) => {
                    notes.push(format!(
                        "the {what} {id} was interrupted (the process was killed); it was completed"
                    ));
                    notes.extend(more);
                }
                Ran::RolledBack(why, more) => {
                    notes.push(format!(
                        "the {what} {id} was interrupted ({why}); it was rolled back"
                    ));
                    notes.extend(more);
                }
            }
        }
        // Copies an undo kept before it was killed, ahead of its journal: nothing changed.
        let copies = dir.join(UNDO_FILES);
        if copies.is_dir() && !dir.join(UNDO).exists() && !dir.join(super::revert::UNDONE).exists()
        {
            let _ = fs::remove_dir_all(copies);
        }
    }
    Ok(notes)
}

/// Remove the temp files a killed atomic write of `path` left beside it
/// (`.<name>.tmp.<pid>.<hex>`, util/fsx.rs), when their writer is gone: a kill between the
/// temp file and its rename must not leave litter in the person's project.
fn clear_temps(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let prefix = format!(".{}.tmp.", name.to_string_lossy());
    let Ok(rd) = fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = n
            .strip_prefix(&prefix)
            .and_then(|r| r.split('.').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        let gone = pid as u32 != std::process::id()
            && nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
                == Err(nix::errno::Errno::ESRCH);
        if gone {
            let _ = fs::remove_file(e.path());
        }
    }
}
