//! `rewind --to N`: check everything first (the turn, the saved copies, outside changes),
//! then prepare the archive and the journal in `rewinds/<id>.partial/`, rename it into
//! place, and let the journal (journal.rs) restore the files, write the history line,
//! replace conversation.jsonl and append the event. A refusal changes nothing; a failed
//! step is rolled back; a kill is finished at the next open (recover.rs).
use super::files;
use super::journal::{self, Action, ConvStep, Journal, LineStep};
use super::turns::{starts, timeline};
use super::{estimate, joined, raw_lines, rewinds_dir, Report, RewindError};
use crate::session::Session;
use crate::util::crash::point;
use crate::util::fsx;
use crate::util::jsonl::Obj;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::DirBuilderExt;

/// The turns a rewind can pick from: number, input, and whether it is still in the
/// conversation (a compacted turn is not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub number: u64,
    pub input: String,
    pub in_conversation: bool,
}

/// The live turns of the session, oldest first.
pub fn list(session: &Session) -> Vec<Listing> {
    let t = timeline(&session.events());
    let bytes = fs::read(session.conversation()).unwrap_or_default();
    let (_, text) = raw_lines(&bytes);
    let at = starts(&t.inputs, &text);
    t.inputs
        .into_iter()
        .zip(at)
        .enumerate()
        .map(|(i, (input, at))| Listing {
            number: i as u64 + 1,
            input,
            in_conversation: at.is_some(),
        })
        .collect()
}

fn bad(m: String) -> RewindError {
    RewindError::BadTurn(m)
}
fn failed(m: String) -> RewindError {
    RewindError::Failed(m)
}

/// Rewind `session` to just before user turn `to` (see the module doc). `force` overwrites
/// files changed outside the agent since it last wrote them.
pub fn rewind(session: &Session, to: u64, force: bool) -> Result<Report, RewindError> {
    let t = timeline(&session.events());
    let count = t.inputs.len() as u64;
    if count == 0 {
        return Err(bad(format!(
            "session {} has no turns to rewind",
            session.id
        )));
    }
    if to == 0 {
        return Err(bad(format!(
            "there is no turn 0: turns are numbered from 1 (--to 1 goes back to before the first turn); session {} has turns 1 to {count}",
            session.id
        )));
    }
    if to > count {
        return Err(bad(format!(
            "session {} has no turn {to}: its turns are 1 to {count} (see `bash-agent rewind --session {}`)",
            session.id, session.id
        )));
    }
    let original = match fs::read(session.conversation()) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(failed(format!("cannot read conversation.jsonl: {e}"))),
    };
    let (raw, text) = raw_lines(&original);
    let at = starts(&t.inputs, &text);
    let Some(cut) = at[to as usize - 1] else {
        let first = at.iter().position(Option::is_some).map(|i| i + 1);
        return Err(bad(match first {
            Some(f) => format!(
                "turn {to} was compacted into the summary and is no longer in the conversation; the earliest turn you can rewind to is {f}"
            ),
            None => format!(
                "turn {to} is no longer in the conversation (compacted into the summary); there is no turn to rewind to"
            ),
        }));
    };
    let (head, tail) = raw.split_at(cut);
    let ids: BTreeSet<String> = text[cut..]
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .flat_map(|v| crate::session::conversation::tool_use_ids(&v))
        .collect();
    let plan = files::plan(session, &ids).map_err(failed)?;
    let outside = files::outside_changes(&plan.changes).map_err(failed)?;
    if !outside.is_empty() && !force {
        return Err(failed(files::refusal("rewind", &outside, "add --force")));
    }

    // Prepared in `<id>.partial/`: the dropped lines, the current files, the manifest and
    // the journal. Renamed to `<id>/` once whole: from then on the journal finishes it.
    let id = next_id(session, t.last_id);
    let root = rewinds_dir(session);
    let dir = root.join(id.to_string());
    let stage = root.join(format!("{id}{}", journal::PARTIAL));
    let _ = fs::remove_dir_all(&stage);
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(stage.join("files"))
        .map_err(|e| failed(format!("cannot create {}: {e}", stage.display())))?;
    let cleanup = |e: RewindError| {
        let _ = fs::remove_dir_all(&stage);
        e
    };
    fsx::write_atomic(&stage.join("conversation.jsonl"), &joined(tail))
        .map_err(|e| cleanup(failed(format!("cannot archive the dropped lines: {e}"))))?;
    point("rewind-archived");
    let (kept, from) = files::save_current(&stage.join("files"), &dir.join("files"), &plan.changes)
        .map_err(|e| cleanup(failed(e)))?;
    point("rewind-copies");
    let new_conv = joined(head);
    let before_hash = crate::util::hash::hex(&joined(&raw));
    let after_hash = crate::util::hash::hex(&new_conv);
    let turns_json: Vec<String> = plan.turns.iter().map(u64::to_string).collect();
    let manifest = Obj::new()
        .num("id", id as i64)
        .num("to", to as i64)
        .num("turns", (count - to + 1) as i64)
        .num("lines", tail.len() as i64)
        .raw("history_turns", &format!("[{}]", turns_json.join(",")))
        .str("conversation_before", &before_hash)
        .str("conversation_after", &after_hash)
        .raw("files", &format!("[{}]", kept.join(",")))
        .str("time", &crate::util::time::utc_iso_now())
        .finish();
    fsx::write_atomic(
        &stage.join("manifest.json"),
        format!("{manifest}\n").as_bytes(),
    )
    .map_err(|e| cleanup(failed(format!("cannot write the rewind manifest: {e}"))))?;
    point("rewind-manifest");

    let report = Report {
        id,
        to,
        turns: count - to + 1,
        lines: tail.len() as u64,
        files: plan.changes.iter().map(|c| c.path.clone()).collect(),
        overwritten: outside.into_iter().map(|(p, _)| p).collect(),
        undo: false,
    };
    let steps = journal::file_steps(&plan.changes, from);
    let index = crate::history::files::index_path(session);
    let j = Journal {
        action: Action::Rewind,
        id,
        back: false,
        history: (!plan.turns.is_empty()).then(|| LineStep {
            len: journal::len_of(&index),
            line: crate::history::files::op_line(
                "undo",
                &plan.turns,
                &journal::states(&steps, true),
            ),
            back: crate::history::files::redo_line(&plan.turns, &journal::states(&steps, false)),
        }),
        files: steps,
        conversation: ConvStep {
            before: before_hash,
            after: after_hash,
            keep: head.len(),
            archive: dir
                .join("conversation.jsonl")
                .to_string_lossy()
                .into_owned(),
        },
        event: LineStep {
            len: journal::len_of(&session.events()),
            line: crate::session::events::ev::rewind(
                "rewind",
                id,
                to,
                report.turns,
                report.lines,
                &report.file_names(),
            ),
            back: String::new(),
        },
        estimate: Some(estimate(head)),
    };
    j.write(&stage).map_err(|e| cleanup(failed(e)))?;
    point("rewind-journal");
    fs::rename(&stage, &dir).map_err(|e| {
        cleanup(failed(format!(
            "cannot put the rewind in place ({}): {e}",
            dir.display()
        )))
    })?;
    journal::sync_dir(&root);
    point("rewind-committed");
    j.run_now(session, &dir, "rewind").map_err(failed)?;
    Ok(report)
}

/// An id after every rewind in events.jsonl and every folder under `rewinds/`.
fn next_id(session: &Session, last: u64) -> u64 {
    let on_disk = fs::read_dir(rewinds_dir(session))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u64>().ok()))
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0);
    last.max(on_disk) + 1
}

/// The `files` of a rewind's manifest.
pub(super) fn manifest_files(dir: &std::path::Path) -> Result<Vec<serde_json::Value>, String> {
    let m = read_manifest(dir)?;
    Ok(m.get("files")
        .and_then(serde_json::Value::as_array)
        .cloned()
        .unwrap_or_default())
}

/// A rewind's manifest.
pub(super) fn read_manifest(dir: &std::path::Path) -> Result<serde_json::Value, String> {
    let p = dir.join("manifest.json");
    let text = fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is damaged: {e}", p.display()))
}

/// The numbered list of turns (`bash-agent rewind`, `/rewind`): one line each, a compacted
/// turn marked, the first line of the input cut to 70 characters.
pub fn render_list(session_id: &str, turns: &[Listing]) -> String {
    if turns.is_empty() {
        return format!("Session {session_id} has no turns to rewind.\n");
    }
    let mut s =
        format!("Turns of session {session_id} (rewind --to N goes back to just before N):\n");
    for t in turns {
        let first = t.input.lines().next().unwrap_or("");
        let mut preview: String = first.chars().take(70).collect();
        if first.chars().count() > 70 || t.input.lines().nth(1).is_some() {
            preview.push('…');
        }
        let mark = if t.in_conversation {
            ""
        } else {
            "  (compacted)"
        };
        s.push_str(&format!("  {:>3}. {preview}{mark}\n", t.number));
    }
    s
}
