//! Repairs: what a crash leaves at the end of conversation.jsonl (an assistant line whose
//! results were never written, trailing user turns of an answer never stored), fixed on
//! open or when the messages of a request are built.
use super::{tool_results_line, tool_use_ids, user_text_line};
use crate::session::line_meta::{self, LineMeta};
use serde_json::Value;
use std::path::Path;

/// Remove the last assistant line when it has tool_use blocks and only user turns (no
/// results line) follow it.
pub fn drop_dangling_tail(lines: &mut Vec<String>) {
    let turns = lines
        .iter()
        .rev()
        .take_while(|l| user_turn_text(l).is_some())
        .count();
    let Some(at) = lines.len().checked_sub(turns + 1) else {
        return;
    };
    if serde_json::from_str::<Value>(&lines[at]).is_ok_and(|v| !tool_use_ids(&v).is_empty()) {
        lines.remove(at);
    }
}

/// On open: when the file's last line is an assistant line with tool calls (the run died
/// before their results were written), move that line to a side file so the file stays
/// consistent. Returns the `error` event text when it did.
pub fn repair_file_tail(path: &Path) -> std::io::Result<Option<String>> {
    let Some((start, last)) = last_line(path) else {
        return Ok(None);
    };
    let v: Value = match serde_json::from_str(&last) {
        Ok(v) => v,
        Err(_) => return Ok(None),
    };
    if tool_use_ids(&v).is_empty() {
        return Ok(None);
    }
    let fix = crate::session::torn::move_tail_from(path, start)?;
    let side = match &fix {
        crate::session::torn::TailFix::Moved { side, .. } => side
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        crate::session::torn::TailFix::Terminated => String::new(),
    };
    Ok(Some(format!(
        "conversation.jsonl ended with tool calls whose results were never written: \
         that assistant line was moved to {side}"
    )))
}

/// The last line of the file (trailing newlines ignored) and its offset, read from the end
/// in growing steps: a long session is not read whole to look at its last line.
pub(super) fn last_line(path: &Path) -> Option<(u64, String)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).ok()?;
    let len = f.metadata().ok()?.len();
    let mut step: u64 = 64 * 1024;
    loop {
        let from = len.saturating_sub(step);
        f.seek(SeekFrom::Start(from)).ok()?;
        let mut buf = Vec::with_capacity((len - from) as usize);
        (&mut f).take(len - from).read_to_end(&mut buf).ok()?;
        let body = match buf.iter().rposition(|&b| b != b'\n') {
            Some(i) => &buf[..=i],
            None if from == 0 => return None,
            None => &buf[..0],
        };
        match body.iter().rposition(|&b| b == b'\n') {
            Some(i) => {
                let text = String::from_utf8_lossy(&body[i + 1..]).into_owned();
                return Some((from + i as u64 + 1, text));
            }
            None if from == 0 => {
                return (!body.is_empty()).then(|| (0, String::from_utf8_lossy(body).into_owned()));
            }
            None => step = step.saturating_mul(4),
        }
    }
}

/// The text of a user turn (`"role":"user"` with string content), if `line` is one.
fn user_turn_text(line: &str) -> Option<String> {
    let v: Value = serde_json::from_str(line).ok()?;
    if v.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    v.get("content").and_then(Value::as_str).map(String::from)
}

/// Merge the trailing run of user-turn lines into one user turn (texts joined by a blank
/// line, oldest first), so a request never ends with two user messages in a row.
pub fn merge_trailing_user_turns(mut lines: Vec<String>) -> Vec<String> {
    let mut texts = Vec::new();
    while let Some(t) = lines.last().and_then(|l| user_turn_text(l)) {
        texts.push(t);
        lines.pop();
    }
    if texts.is_empty() {
        return lines;
    }
    texts.reverse();
    lines.push(user_text_line(&texts.join("\n\n")));
    lines
}

/// See [`message_lines`].
pub fn repair(lines: Vec<String>) -> Vec<String> {
    let metas = lines
        .iter()
        .map(|l| line_meta::meta(l).unwrap_or_default())
        .collect();
    repair_with(lines, metas)
}

/// [`repair`] over lines whose facts are known.
pub(super) fn repair_with(lines: Vec<String>, metas: Vec<LineMeta>) -> Vec<String> {
    let lost = |ids: Vec<String>| {
        let r: Vec<(String, String)> = ids
            .into_iter()
            .map(|id| {
                (
                    id,
                    "Error: tool result lost (the run was interrupted)".into(),
                )
            })
            .collect();
        tool_results_line(&r)
    };
    let mut out = Vec::with_capacity(lines.len());
    let mut pending: Vec<String> = Vec::new();
    for (l, m) in lines.into_iter().zip(metas) {
        if !pending.is_empty() {
            let missing: Vec<String> = pending
                .iter()
                .filter(|id| !m.tool_results.contains(id))
                .cloned()
                .collect();
            if !missing.is_empty() && m.tool_results.is_empty() {
                out.push(lost(missing));
            }
        }
        pending = m.tool_uses;
        out.push(l);
    }
    if !pending.is_empty() {
        out.push(lost(pending));
    }
    out
}
