//! `rewind --undo`: put the latest rewind's conversation lines and files back. Only while
//! the conversation is still exactly what that rewind left (a turn since would be lost),
//! and, without `force`, only over files nobody changed since.
use super::apply::{manifest_files, read_manifest};
use super::journal::{self, Action, ConvStep, Journal, LineStep};
use super::{files, joined, raw_lines, rewinds_dir, Report, RewindError};
use crate::session::Session;
use crate::util::crash::point;
use serde_json::Value;
use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;

/// The marker of an undone rewind (inside its folder).
pub(super) const UNDONE: &str = "undone";

/// The latest rewind not undone yet: its id and folder.
fn latest(session: &Session) -> Option<(u64, PathBuf)> {
    let root = rewinds_dir(session);
    let mut ids: Vec<u64> = fs::read_dir(&root)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u64>().ok()))
        .collect();
    ids.sort_unstable();
    ids.into_iter()
        .rev()
        .map(|id| (id, root.join(id.to_string())))
        .find(|(_, d)| d.join("manifest.json").is_file() && !d.join(UNDONE).exists())
}

fn failed(m: String) -> RewindError {
    RewindError::Failed(m)
}

/// Undo the latest rewind of `session`.
pub fn undo(session: &Session, force: bool) -> Result<Report, RewindError> {
    let Some((id, dir)) = latest(session) else {
        return Err(failed(format!(
            "nothing to undo: session {} has no rewind (or every rewind was undone)",
            session.id
        )));
    };
    let m: Value = read_manifest(&dir).map_err(failed)?;
    let num = |k: &str| m.get(k).and_then(Value::as_u64).unwrap_or(0);
    let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let current = match fs::read(session.conversation()) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(failed(format!("cannot read conversation.jsonl: {e}"))),
    };
    if crate::util::hash::hex(&current) != text("conversation_after") {
        return Err(failed(format!(
            "cannot undo rewind {id}: the conversation changed since (a turn was run or it was compacted), and putting the rewound turns back would lose that; nothing was changed. The rewound lines stay in {}",
            dir.join("conversation.jsonl").display()
        )));
    }
    let dropped = fs::read(dir.join("conversation.jsonl")).map_err(|e| {
        failed(format!(
            "cannot read the archived lines of rewind {id}: {e}"
        ))
    })?;
    let (head, _) = raw_lines(&current);
    let (tail, _) = raw_lines(&dropped);
    let mut restored = joined(&head);
    restored.extend_from_slice(&joined(&tail));
    if crate::util::hash::hex(&restored) != text("conversation_before") {
        return Err(failed(format!(
            "the archived lines of rewind {id} are damaged ({}); nothing was changed",
            dir.join("conversation.jsonl").display()
        )));
    }
    let kept = manifest_files(&dir).map_err(failed)?;
    let changes = files::saved_changes(&dir.join("files"), &kept).map_err(failed)?;
    let outside = files::outside_changes(&changes).map_err(failed)?;
    if !outside.is_empty() && !force {
        return Err(failed(files::refusal(
            &format!("undo rewind {id}"),
            &outside,
            "add --force",
        )));
    }
    let turns: Vec<u64> = m
        .get("history_turns")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    // The current versions are kept too (the way back should a step fail; with --force,
    // the outside changes it overwrites), then the journal goes in place.
    let copies = dir.join(journal::UNDO_FILES);
    let _ = fs::remove_dir_all(&copies);
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&copies)
        .map_err(|e| failed(format!("cannot create {}: {e}", copies.display())))?;
    let (_, from) = files::save_current(&copies, &copies, &changes).map_err(failed)?;
    point("undo-copies");
    let report = Report {
        id,
        to: num("to"),
        turns: num("turns"),
        lines: num("lines"),
        files: changes.iter().map(|c| c.path.clone()).collect(),
        overwritten: outside.into_iter().map(|(p, _)| p).collect(),
        undo: true,
    };
    let steps = journal::file_steps(&changes, from);
    let index = crate::history::files::index_path(session);
    let j = Journal {
        action: Action::Undo,
        id,
        back: false,
        history: (!turns.is_empty()).then(|| LineStep {
            len: journal::len_of(&index),
            line: crate::history::files::redo_line(&turns, &journal::states(&steps, true)),
            back: crate::history::files::op_line("undo", &turns, &journal::states(&steps, false)),
        }),
        files: steps,
        conversation: ConvStep {
            before: text("conversation_before"),
            after: text("conversation_after"),
            keep: head.len(),
            archive: dir
                .join("conversation.jsonl")
                .to_string_lossy()
                .into_owned(),
        },
        event: LineStep {
            len: journal::len_of(&session.events()),
            line: crate::session::events::ev::rewind(
                "undo",
                id,
                report.to,
                report.turns,
                report.lines,
                &report.file_names(),
            ),
            back: String::new(),
        },
        estimate: None,
    };
    j.write(&dir).map_err(failed)?;
    point("undo-journal");
    j.run_now(session, &dir, "undo").map_err(failed)?;
    Ok(report)
}
