//! `undo`: restore the files the agent changed in the last N turns that have file history
//! (see `history.rs` for the on-disk format), log an `undo` event and leave a note for the
//! model's next turn.
use super::files::{index_path, read_index, undo_line, FileState, Record};
use crate::session::Session;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What an undo did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UndoReport {
    /// The turns undone, most recent first.
    pub turns: Vec<u64>,
    /// Files written back to their earlier content.
    pub restored: Vec<PathBuf>,
    /// Files the agent had created, now removed.
    pub removed: Vec<PathBuf>,
    /// Files changed outside the agent that `force` overwrote.
    pub overwritten: Vec<PathBuf>,
}

impl UndoReport {
    /// Every path touched, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .restored
            .iter()
            .chain(&self.removed)
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// The note the model gets on its next turn.
    pub fn note(&self) -> String {
        let turns: Vec<String> = self.turns.iter().map(u64::to_string).collect();
        let mut s = format!(
            "[undo] The user undid your file changes of the last {} turn(s) (turn {}).",
            self.turns.len(),
            turns.join(", ")
        );
        if !self.restored.is_empty() {
            let v: Vec<String> = self
                .restored
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            s.push_str(&format!(
                " Restored to their earlier content: {}.",
                v.join(", ")
            ));
        }
        if !self.removed.is_empty() {
            let v: Vec<String> = self
                .removed
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            s.push_str(&format!(
                " Removed (you had created them): {}.",
                v.join(", ")
            ));
        }
        s.push_str(" Re-read these files before changing them again.");
        s
    }
}

impl std::fmt::Display for UndoReport {
    /// The human report: `Undid turn 4, 3:` then one line per file.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t: Vec<String> = self.turns.iter().map(u64::to_string).collect();
        write!(f, "Undid turn {}:", t.join(", "))?;
        for p in &self.restored {
            write!(f, "\n  restored {}", p.display())?;
        }
        for p in &self.removed {
            write!(f, "\n  removed  {}", p.display())?;
        }
        for p in &self.overwritten {
            write!(f, "\n  (overwrote an outside change to {})", p.display())?;
        }
        Ok(())
    }
}

/// The path of the pending note.
fn pending_path(session: &Session) -> PathBuf {
    session.dir.join("undo.pending")
}

/// LOOP: the undo note(s) left since the model's last turn, removed as they are taken.
pub fn take_pending_note(session: &Session) -> Option<String> {
    let p = pending_path(session);
    let taking = session.dir.join(format!(
        ".undo.pending.{}.{:x}",
        std::process::id(),
        crate::util::random_u64() & 0xffff_ffff
    ));
    fs::rename(&p, &taking).ok()?;
    let text = crate::util::fsx::read_lossy(&taking);
    let _ = fs::remove_file(&taking);
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Per path: the state to restore (the first `before` in the chosen turns) and where it is.
struct Target {
    existed: bool,
    mode: u32,
    hash: String,
    blob: PathBuf,
}

/// Restore the files changed in the last `turns` turns that have history (most recent
/// first). Refuses (listing them) when files changed outside the agent since, unless
/// `force`. The caller must make sure no turn is running on the session.
pub fn undo(session: &Session, turns: u64, force: bool) -> Result<UndoReport, String> {
    if turns == 0 {
        return Err("--turns must be at least 1".into());
    }
    let (records, _bad) = read_index(session);
    let mut undone: BTreeSet<u64> = BTreeSet::new();
    let mut have: BTreeSet<u64> = BTreeSet::new();
    // The last known state of each path (after the agent's write, or after an undo).
    let mut known: HashMap<PathBuf, FileState> = HashMap::new();
    for r in &records {
        match r {
            Record::Before { turn, .. } => {
                have.insert(*turn);
            }
            Record::After { path, state, .. } => {
                known.insert(path.clone(), state.clone());
            }
            Record::Undo { turns, files } => {
                undone.extend(turns.iter().copied());
                for (p, s) in files {
                    known.insert(p.clone(), s.clone());
                }
            }
            Record::Redo { turns, files } => {
                for t in turns {
                    undone.remove(t);
                }
                for (p, s) in files {
                    known.insert(p.clone(), s.clone());
                }
            }
        }
    }
    let chosen: Vec<u64> = have
        .iter()
        .rev()
        .filter(|t| !undone.contains(t))
        .take(turns as usize)
        .copied()
        .collect();
    if chosen.is_empty() {
        return Err(format!(
            "nothing to undo: no file changes recorded in session {} (or all already undone)",
            session.id
        ));
    }
    let mut targets: BTreeMap<PathBuf, Target> = BTreeMap::new();
    // Records are in time order, so the first `before` of a path in the chosen turns, taken
    // from the oldest chosen turn, is the state before all of them.
    let mut by_turn: Vec<&Record> = records
        .iter()
        .filter(|r| matches!(r, Record::Before { turn, .. } if chosen.contains(turn)))
        .collect();
    by_turn.sort_by_key(|r| match r {
        Record::Before { turn, .. } => *turn,
        _ => 0,
    });
    for r in by_turn {
        if let Record::Before {
            path,
            existed,
            mode,
            hash,
            blob,
            ..
        } = r
        {
            targets.entry(path.clone()).or_insert_with(|| Target {
                existed: *existed,
                mode: *mode,
                hash: hash.clone(),
                blob: session.file_history().join(blob),
            });
        }
    }

    // Check outside changes and the saved copies before touching anything.
    let mut outside = Vec::new();
    let mut contents: HashMap<PathBuf, Vec<u8>> = HashMap::new();
    for (path, t) in &targets {
        let now =
            FileState::of(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if let Some(exp) = known.get(path) {
            if *exp != now {
                outside.push((path.clone(), describe(exp, &now)));
            }
        }
        if t.existed {
            let bytes = fs::read(&t.blob).map_err(|e| {
                format!(
                    "saved copy of {} is unreadable ({}): {e}",
                    path.display(),
                    t.blob.display()
                )
            })?;
            if crate::util::hash::hex(&bytes) != t.hash {
                return Err(format!(
                    "saved copy of {} is damaged ({}); nothing was restored",
                    path.display(),
                    t.blob.display()
                ));
            }
            contents.insert(path.clone(), bytes);
        }
    }
    if !outside.is_empty() && !force {
        let mut msg = format!(
            "refusing to undo: {} file(s) changed outside the agent since it last wrote them:",
            outside.len()
        );
        for (p, why) in &outside {
            msg.push_str(&format!("\n  {} ({why})", p.display()));
        }
        msg.push_str("\nuse --force to restore them anyway (their current content is lost)");
        return Err(msg);
    }

    let mut report = UndoReport {
        turns: chosen.clone(),
        overwritten: outside.into_iter().map(|(p, _)| p).collect(),
        ..Default::default()
    };
    let mut states = Vec::new();
    for (path, t) in &targets {
        if t.existed {
            let bytes = contents.get(path).map(Vec::as_slice).unwrap_or(&[]);
            restore(path, bytes, t.mode).map_err(|e| {
                format!(
                    "restoring {} failed: {e} (files before it were restored)",
                    path.display()
                )
            })?;
            report.restored.push(path.clone());
        } else {
            match fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("removing {} failed: {e}", path.display())),
            }
            report.removed.push(path.clone());
        }
        states.push((
            path.clone(),
            FileState::of(path).unwrap_or_else(|_| FileState::absent()),
        ));
    }
    crate::util::fsx::append_line(&index_path(session), &undo_line(&chosen, &states))
        .map_err(|e| format!("files restored, but the history index could not be updated: {e}"))?;
    let _ = crate::util::fsx::append_line(
        &session.events(),
        &crate::session::events::ev::undo(chosen.len() as u64, &report.files()),
    );
    let _ = crate::util::fsx::append_line(&pending_path(session), &report.note());
    Ok(report)
}

fn describe(expected: &FileState, now: &FileState) -> &'static str {
    match (expected.exists, now.exists) {
        (true, false) => "deleted",
        (false, true) => "created",
        _ => "modified",
    }
}

/// Write `bytes` to `path` atomically (temp + rename) with `mode`.
pub fn restore(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    crate::util::fsx::write_atomic(path, bytes)?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o7777))
}
