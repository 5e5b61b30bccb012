//! The journal that makes a rewind (and its undo) crash-safe: before the first change, a
//! file describing every step is in place (written atomically), each step is idempotent
//! (it looks at what is on disk and does only what is missing), and the journal is removed
//! after the last step. A kill at any point leaves the journal; the next open of the
//! session (the agent's start, any `bash-agent rewind`) runs it again with [`recover`], so
//! the session ends up after the operation (rolled forward) or, when a step failed and the
//! run was rolling back, before it. Modelled on the large-line pending copies
//! (src/session/durable.rs).
//!
//! The steps, in order: the files (each from its `from` state to its `to` state, from a
//! kept copy), the file history line, conversation.jsonl (one atomic replace), the event,
//! then the rewind's stats estimate or the undo's `undone` marker. Done steps are recognised
//! by their result: a file already in its `to` state, the conversation with the `to` hash,
//! a history or event line already present after the length the journal recorded. A file
//! or conversation found in neither state (changed by someone else after the crash) is left
//! as it is and reported, never overwritten.
use super::{joined, raw_lines};
use crate::history::files::FileState;
use crate::session::Session;
use crate::util::crash::point;
use crate::util::fsx;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The rewind's journal, in `rewinds/<id>/` (present while the rewind is in progress).
pub const REWIND: &str = "journal.json";
/// The undo's journal, in the undone rewind's folder.
pub const UNDO: &str = "undo-journal.json";
/// The undo's copies of the files it overwrites (the way back should a step fail).
pub const UNDO_FILES: &str = "undo-files";
/// A rewind folder being prepared (before its journal is in place): removed by recovery.
pub const PARTIAL: &str = ".partial";
/// A rolled-back rewind's folder on its way out.
pub const DISCARDED: &str = ".discarded";

/// One side of a file step: the file absent, or present with this content (a verified
/// copy at `copy`) and mode.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Side {
    pub exists: bool,
    pub size: u64,
    pub hash: String,
    pub mode: u32,
    pub copy: String,
}

impl Side {
    pub fn state(&self) -> FileState {
        FileState {
            exists: self.exists,
            size: self.size,
            hash: self.hash.clone(),
        }
    }
    /// The side of `bytes` kept at `copy`, or of an absent file (`None`).
    pub fn of(content: Option<(&[u8], u32)>, copy: &Path) -> Side {
        match content {
            None => Side {
                exists: false,
                size: 0,
                hash: String::new(),
                mode: 0,
                copy: String::new(),
            },
            Some((b, mode)) => Side {
                exists: true,
                size: b.len() as u64,
                hash: crate::util::hash::hex(b),
                mode,
                copy: copy.to_string_lossy().into_owned(),
            },
        }
    }
}

/// A file taken from `from` to `to`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileStep {
    pub path: String,
    pub from: Side,
    pub to: Side,
}

/// conversation.jsonl before the rewind (`before`) and after it (`after`: its first `keep`
/// lines); the lines in between are archived at `archive`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConvStep {
    pub before: String,
    pub after: String,
    pub keep: usize,
    pub archive: String,
}

/// A line appended to a log (file-history index, events.jsonl): present once the log holds
/// it after `len`, the log's length when the journal was written.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LineStep {
    pub len: u64,
    pub line: String,
    /// The line that cancels it when rolling back (the history's `redo` for an `undo`).
    #[serde(default)]
    pub back: String,
}

/// A step per change, from its current side (`from`, as kept) to its target.
pub fn file_steps(changes: &[super::files::Change], from: Vec<Side>) -> Vec<FileStep> {
    changes
        .iter()
        .zip(from)
        .map(|(c, from)| FileStep {
            path: c.path.to_string_lossy().into_owned(),
            from,
            to: c.target_side(),
        })
        .collect()
}

/// The files' states at the end (`to`) or the start of the steps (for history lines).
pub fn states(steps: &[FileStep], to: bool) -> Vec<(PathBuf, FileState)> {
    steps
        .iter()
        .map(|f| {
            let side = if to { &f.to } else { &f.from };
            (PathBuf::from(&f.path), side.state())
        })
        .collect()
}

/// What a journal does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// `rewind --to`: the conversation goes from `before` to `after`.
    Rewind,
    /// `rewind --undo`: from `after` to `before`.
    Undo,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Journal {
    pub action: Action,
    pub id: u64,
    /// A step failed: the run is putting everything back.
    #[serde(default)]
    pub back: bool,
    pub files: Vec<FileStep>,
    pub conversation: ConvStep,
    pub history: Option<LineStep>,
    pub event: LineStep,
    /// The rewind's context estimate for stats.json.
    #[serde(default)]
    pub estimate: Option<u64>,
}

/// How a journal run ended.
#[derive(Debug)]
pub enum Ran {
    /// Every step done (with notes on what was left as it was).
    Done(Vec<String>),
    /// A step failed (the error) and everything was put back (with notes).
    RolledBack(String, Vec<String>),
}

impl Journal {
    fn file(&self, dir: &Path) -> PathBuf {
        dir.join(match self.action {
            Action::Rewind => REWIND,
            Action::Undo => UNDO,
        })
    }

    /// Put the journal in place (atomically: it exists only whole).
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let text = serde_json::to_string(self).map_err(|e| e.to_string())?;
        fsx::write_atomic(&self.file(dir), format!("{text}\n").as_bytes())
            .map_err(|e| format!("cannot write the rewind journal: {e}"))
    }

    /// Run a journal just put in place by this process (`what`: "rewind", "undo"), as a
    /// command's result: a roll-back or a failure is the command's error.
    pub fn run_now(self, session: &Session, dir: &Path, what: &str) -> Result<(), String> {
        match self.run(session, dir) {
            Ok(Ran::Done(_)) => Ok(()),
            Ok(Ran::RolledBack(why, _)) => Err(format!(
                "{why}; the files changed before it were put back, the conversation is unchanged"
            )),
            Err(e) => Err(format!(
                "{e}; the {what} is half done: it is finished or rolled back the next time the session is opened (or `bash-agent rewind` runs)"
            )),
        }
    }

    /// Run the journal of rewind folder `dir` to its end: forward, or back when a step fails
    /// (or a run before was already going back). Err: going back failed too; the journal
    /// stays for the next open.
    pub fn run(mut self, session: &Session, dir: &Path) -> Result<Ran, String> {
        let mut notes = Vec::new();
        let mut failure = None;
        if !self.back {
            match self.forward(session, dir, &mut notes) {
                Ok(()) => {
                    self.finish(dir)?;
                    return Ok(Ran::Done(notes));
                }
                Err(e) => {
                    self.back = true;
                    self.write(dir)?;
                    point("journal-back");
                    failure = Some(e);
                }
            }
        }
        self.backward(session, &mut notes)?;
        match self.action {
            Action::Rewind => discard(dir)?,
            Action::Undo => {
                let _ = fs::remove_dir_all(dir.join(UNDO_FILES));
                self.finish(dir)?;
            }
        }
        let why = failure.unwrap_or_else(|| "a step failed before the crash".into());
        Ok(Ran::RolledBack(why, notes))
    }

    /// The conversation's hash after the operation (`to`) and before it (`from`).
    fn conv_ends(&self) -> (&str, &str) {
        let c = &self.conversation;
        match self.action {
            Action::Rewind => (&c.before, &c.after),
            Action::Undo => (&c.after, &c.before),
        }
    }

    fn forward(
        &self,
        session: &Session,
        dir: &Path,
        notes: &mut Vec<String>,
    ) -> Result<(), String> {
        for f in &self.files {
            file_to(f, &f.from, &f.to, notes)?;
            point("journal-file");
        }
        if let Some(h) = &self.history {
            let index = crate::history::files::index_path(session);
            if !present(&index, h.len, &h.line) {
                fsx::append_line(&index, &h.line)
                    .map_err(|e| format!("cannot update the file history: {e}"))?;
            }
            point("journal-history");
        }
        let (from, to) = self.conv_ends();
        conversation_to(session, &self.conversation, from, to, notes)?;
        point("journal-conversation");
        if !present(&session.events(), self.event.len, &self.event.line) {
            fsx::append_line(&session.events(), &self.event.line)
                .map_err(|e| format!("cannot append the rewind event: {e}"))?;
        }
        point("journal-event");
        match self.action {
            Action::Rewind => {
                if let Some(est) = self.estimate {
                    let _ = crate::session::stats::update(&session.stats(), |st| {
                        st.current_context_tokens = est;
                    });
                }
            }
            Action::Undo => {
                let marker = dir.join(super::revert::UNDONE);
                if !marker.exists() {
                    fsx::write_atomic(
                        &marker,
                        format!("{}\n", crate::util::time::utc_iso_now()).as_bytes(),
                    )
                    .map_err(|e| format!("cannot mark the rewind undone: {e}"))?;
                }
            }
        }
        point("journal-marker");
        Ok(())
    }

    /// Put back what [`forward`] did, in reverse order (the event is never appended before
    /// the conversation step succeeded, so it is not among them).
    fn backward(&self, session: &Session, notes: &mut Vec<String>) -> Result<(), String> {
        let (from, to) = self.conv_ends();
        conversation_to(session, &self.conversation, to, from, notes)?;
        point("journal-back-conversation");
        if let Some(h) = &self.history {
            let index = crate::history::files::index_path(session);
            if present(&index, h.len, &h.line) && !present(&index, h.len, &h.back) {
                fsx::append_line(&index, &h.back)
                    .map_err(|e| format!("cannot update the file history: {e}"))?;
            }
            point("journal-back-history");
        }
        for f in self.files.iter().rev() {
            file_to(f, &f.to, &f.from, notes)?;
            point("journal-back-file");
        }
        Ok(())
    }

    /// Remove the journal: the operation is complete.
    fn finish(&self, dir: &Path) -> Result<(), String> {
        match fs::remove_file(self.file(dir)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(format!("cannot remove the rewind journal: {e}"))
            }
            _ => {
                sync_dir(dir);
                Ok(())
            }
        }
    }
}

/// Make the directory entry changes in `dir` (a rename, a removal) durable.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Take a rolled-back rewind's folder away: renamed first (atomic: it no longer counts as
/// a rewind), then removed.
fn discard(dir: &Path) -> Result<(), String> {
    let mut gone = dir.as_os_str().to_owned();
    gone.push(DISCARDED);
    let gone = PathBuf::from(gone);
    fs::rename(dir, &gone).map_err(|e| format!("cannot discard {}: {e}", dir.display()))?;
    if let Some(p) = dir.parent() {
        sync_dir(p);
    }
    point("journal-discarded");
    let _ = fs::remove_dir_all(&gone);
    Ok(())
}

/// Bring file `f` from side `from` to side `to`; a file in neither state is left alone.
fn file_to(f: &FileStep, from: &Side, to: &Side, notes: &mut Vec<String>) -> Result<(), String> {
    let path = Path::new(&f.path);
    let now = FileState::of(path).map_err(|e| format!("cannot read {}: {e}", f.path))?;
    if now == to.state() {
        return Ok(());
    }
    if now != from.state() {
        notes.push(format!(
            "{} was changed by something else meanwhile; left as it is",
            f.path
        ));
        return Ok(());
    }
    let res = if to.exists {
        let bytes = fs::read(&to.copy).map_err(|e| {
            format!(
                "the kept copy of {} is unreadable ({}): {e}",
                f.path, to.copy
            )
        })?;
        if crate::util::hash::hex(&bytes) != to.hash {
            return Err(format!(
                "the kept copy of {} is damaged ({})",
                f.path, to.copy
            ));
        }
        crate::history::undo::restore(path, &bytes, to.mode)
    } else {
        match fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    };
    res.map_err(|e| format!("restoring {} failed: {e}", f.path))
}

/// Bring conversation.jsonl from the state with hash `from` to the one with hash `to`.
fn conversation_to(
    session: &Session,
    c: &ConvStep,
    from: &str,
    to: &str,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let current = match fs::read(session.conversation()) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("cannot read conversation.jsonl: {e}")),
    };
    let (raw, _) = raw_lines(&current);
    let now = crate::util::hash::hex(&joined(&raw));
    if now == to {
        return Ok(());
    }
    if now != from {
        notes.push(
            "conversation.jsonl was changed by something else meanwhile; left as it is".into(),
        );
        return Ok(());
    }
    let want = if to == c.after {
        joined(&raw[..c.keep.min(raw.len())])
    } else {
        let archived = fs::read(&c.archive)
            .map_err(|e| format!("cannot read the archived lines ({}): {e}", c.archive))?;
        let mut all = joined(&raw);
        all.extend_from_slice(&joined(&raw_lines(&archived).0));
        all
    };
    if crate::util::hash::hex(&want) != to {
        return Err(format!(
            "the archived lines ({}) do not give the conversation back",
            c.archive
        ));
    }
    fsx::write_atomic(&session.conversation(), &want)
        .map_err(|e| format!("cannot replace conversation.jsonl: {e}"))
}

/// `line` is in `log` after byte `len`.
fn present(log: &Path, len: u64, line: &str) -> bool {
    if line.is_empty() {
        return false;
    }
    let Ok(mut f) = fsx::open_read(log) else {
        return false;
    };
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = f.seek(SeekFrom::Start(len.min(size)));
    let mut rest = Vec::new();
    if f.read_to_end(&mut rest).is_err() {
        return false;
    }
    let want = line.trim_end().as_bytes();
    rest.split(|&b| b == b'\n').any(|l| l == want)
}

/// The length of `log` now (0 when missing).
pub fn len_of(log: &Path) -> u64 {
    fs::metadata(log).map(|m| m.len()).unwrap_or(0)
}
