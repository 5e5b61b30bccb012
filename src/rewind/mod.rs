//! Rewind (docs/rewind.md): put the conversation back to just before user turn N and the
//! files the agent changed since then back to how they were, and undo that again.
//!
//! Nothing is lost. The dropped conversation lines are archived verbatim in
//! `<session>/rewinds/<id>/conversation.jsonl` (one write, before conversation.jsonl is
//! replaced atomically, as compaction archives its head), the current version of every
//! file it restores is kept next to them (`files/`), `manifest.json` describes both, and
//! events.jsonl gets a `rewind` event (nothing in it is removed). `rewind --undo` puts the
//! latest rewind's lines and files back, as long as the conversation has not moved on.
//! Both are journaled (journal.rs): a kill at any moment leaves a journal that the next
//! open of the session finishes (recover.rs), so the session is before or after, never in
//! between.
//!
//! The caller holds the session lock (the CLI takes it; an interactive run holds it for
//! its lifetime and runs slash commands between turns).
pub mod apply;
pub mod files;
pub mod journal;
#[cfg(test)]
mod journal_tests;
pub mod recover;
pub mod revert;
pub mod turns;

pub use apply::{list, rewind, Listing};
pub use recover::recover;
pub use revert::undo;

use crate::session::Session;
use std::path::PathBuf;

/// Why a rewind did not happen. Nothing was changed in either case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RewindError {
    /// A bad turn number (past the first or last turn, a compacted turn): exit 2.
    BadTurn(String),
    /// Anything else (outside changes, an unreadable copy, a changed conversation): exit 1.
    Failed(String),
}

impl std::fmt::Display for RewindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RewindError::BadTurn(m) | RewindError::Failed(m) => f.write_str(m),
        }
    }
}

/// What a rewind (or its undo) did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The rewind's id (its folder under `rewinds/`).
    pub id: u64,
    /// The turn rewound to (the conversation ends just before it).
    pub to: u64,
    /// User turns dropped (or put back by an undo).
    pub turns: u64,
    /// Conversation lines archived (or put back).
    pub lines: u64,
    /// Files written back or removed.
    pub files: Vec<PathBuf>,
    /// Files changed outside the agent that `force` overwrote.
    pub overwritten: Vec<PathBuf>,
    /// This was `rewind --undo`.
    pub undo: bool,
}

impl Report {
    pub fn file_names(&self) -> Vec<String> {
        self.files
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect()
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.undo {
            write!(
                f,
                "Undid rewind {}: turn {} onward is back ({} turn(s), {} line(s)), {} file(s) put back",
                self.id,
                self.to,
                self.turns,
                self.lines,
                self.files.len()
            )?;
        } else {
            write!(
                f,
                "Rewound to just before turn {}: {} turn(s) ({} line(s)) archived as rewind {}, {} file(s) restored",
                self.to,
                self.turns,
                self.lines,
                self.id,
                self.files.len()
            )?;
        }
        for p in &self.files {
            write!(f, "\n  {}", p.display())?;
        }
        for p in &self.overwritten {
            write!(f, "\n  (overwrote an outside change to {})", p.display())?;
        }
        if !self.undo {
            write!(f, "\nUndo with: bash-agent rewind --undo (or /rewind undo)")?;
        }
        Ok(())
    }
}

/// The folder of all rewinds of a session.
pub fn rewinds_dir(session: &Session) -> PathBuf {
    session.dir.join("rewinds")
}

/// Non-empty lines of a conversation file, byte for byte (a line's `\r` and invalid UTF-8
/// stay as they are), each with its lossy text for matching.
fn raw_lines(bytes: &[u8]) -> (Vec<Vec<u8>>, Vec<String>) {
    let mut raw = Vec::new();
    let mut text = Vec::new();
    for l in bytes.split(|&b| b == b'\n') {
        if l.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let t = String::from_utf8_lossy(l);
        text.push(t.strip_suffix('\r').unwrap_or(&t).to_string());
        raw.push(l.to_vec());
    }
    (raw, text)
}

/// Lines joined, each with its newline.
fn joined(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut s = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        s.extend_from_slice(l);
        s.push(b'\n');
    }
    s
}

/// The context estimate of lines (as compaction counts them) for stats.json.
fn estimate(lines: &[Vec<u8>]) -> u64 {
    lines.iter().map(|l| (l.len() as u64).div_ceil(4) + 1).sum()
}
