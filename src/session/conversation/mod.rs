//! conversation.jsonl (docs/sessions.md): line shapes with the reference key order
//! (`lines.rs`), whole-line appends, and a reader that skips corrupt lines and repairs a
//! dangling tool_use (a crash between an assistant line and its results) when building
//! messages (`repair.rs`).
mod lines;
mod repair;
#[cfg(test)]
mod tests;

use super::line_meta::{self, LineMeta};
use crate::util::jsonl::quote;
pub use lines::*;
pub use repair::*;
use serde_json::Value;
use std::path::Path;

/// The raw, valid lines of the file (blank and corrupt lines skipped; count of skipped).
pub fn read_lines(path: &Path) -> (Vec<String>, usize) {
    let (lines, _, bad) = read_with_meta(path);
    (lines, bad)
}

/// The file read once, line by line (no copy of the whole file), each valid line with
/// what [`message_lines`] needs to know of it (`line_meta.rs`: one scan, no value tree).
fn read_with_meta(path: &Path) -> (Vec<String>, Vec<LineMeta>, usize) {
    use std::io::BufRead;
    let (mut out, mut metas, mut bad) = (Vec::new(), Vec::new(), 0);
    let Ok(f) = std::fs::File::open(path) else {
        return (out, metas, bad);
    };
    let mut r = std::io::BufReader::with_capacity(256 * 1024, f);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        // As `str::lines` splits: without the `\n` and one `\r` before it.
        if buf.last() == Some(&b'\n') {
            buf.pop();
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
        }
        let l = match std::str::from_utf8(&buf) {
            Ok(l) => l.to_string(),
            Err(_) => String::from_utf8_lossy(&buf).into_owned(),
        };
        if l.trim().is_empty() {
            continue;
        }
        match line_meta::meta(&l) {
            Some(m) => {
                out.push(l);
                metas.push(m);
            }
            None => bad += 1,
        }
    }
    (out, metas, bad)
}

/// Message lines ready for a request: valid lines, plus a synthetic tool_result line
/// after any assistant line whose tool_use ids have no results (interrupted or crashed
/// runs), so the provider never sees an orphan tool_use. A last assistant line whose
/// results never reached the file (the run died between the two) is dropped: its calls
/// were never answered, so the model is asked again rather than told they ran. When the
/// list then ends with several user messages in a row (an answer that was never
/// stored), they are merged, in order, into one.
///
/// The file is read once and every line is scanned once; the lines go into the request
/// as they are stored (`provider/body.rs` splices them in).
pub fn message_lines(path: &Path) -> Vec<String> {
    let (mut lines, mut metas, _) = read_with_meta(path);
    let turns = metas.iter().rev().take_while(|m| m.user_turn).count();
    if let Some(at) = lines.len().checked_sub(turns + 1) {
        if !metas[at].tool_uses.is_empty() {
            lines.remove(at);
            metas.remove(at);
        }
    }
    merge_trailing_user_turns(repair_with(lines, metas))
}

fn blocks<'a>(v: &'a Value, ty: &str) -> impl Iterator<Item = &'a Value> + 'a {
    let ty = ty.to_string();
    v.get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(move |b| b.get("type").and_then(Value::as_str) == Some(ty.as_str()))
}

/// ids of tool_use blocks in an assistant line.
pub fn tool_use_ids(v: &Value) -> Vec<String> {
    if v.get("role").and_then(Value::as_str) != Some("assistant") {
        return Vec::new();
    }
    blocks(v, "tool_use")
        .filter_map(|b| b.get("id").and_then(Value::as_str).map(String::from))
        .collect()
}

/// ids of tool_result blocks in a user line.
pub fn tool_result_ids(v: &Value) -> Vec<String> {
    blocks(v, "tool_result")
        .filter_map(|b| {
            b.get("tool_use_id")
                .and_then(Value::as_str)
                .map(String::from)
        })
        .collect()
}

/// True for a real user-turn line: `"role":"user"` with string content.
pub fn is_user_turn_line(line: &str) -> bool {
    line.contains("\"role\":\"user\"") && !line.contains("\"content\":[")
}

/// The messages array text: lines joined with `,` inside `[...]`.
pub fn messages_array(lines: &[String]) -> String {
    let mut s = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum::<usize>() + 2);
    s.push('[');
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(l);
    }
    s.push(']');
    s
}

/// Last non-empty thinking and text of the last assistant line (sub-agent results).
pub fn last_assistant_output(lines: &[String]) -> (String, String) {
    for l in lines.iter().rev() {
        let v: Value = match serde_json::from_str(l) {
            Ok(v) => v,
            Err(_) => continue,
        };
        if v.get("role").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let last = |ty: &str, key: &str| {
            blocks(&v, ty)
                .filter_map(|b| b.get(key).and_then(Value::as_str))
                .filter(|s| !s.is_empty())
                .last()
                .unwrap_or("")
                .to_string()
        };
        return (last("thinking", "thinking"), last("text", "text"));
    }
    (String::new(), String::new())
}

/// Quote helper re-exported for callers building content by hand.
pub fn json_string(s: &str) -> String {
    quote(s)
}
