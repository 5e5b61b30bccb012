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

/// The file read once, in 256 KiB blocks (no copy of the whole file, no per-line
/// buffer: a line is copied once, from the read buffer into its `String`), each valid
/// line with what [`message_lines`] needs to know of it (`line_meta.rs`: one scan, no
/// value tree). The scans of a long session run on two threads (they are most of a
/// long turn's own time before the request can go out).
fn read_with_meta(path: &Path) -> (Vec<String>, Vec<LineMeta>, usize) {
    let Ok(f) = std::fs::File::open(path) else {
        return (Vec::new(), Vec::new(), 0);
    };
    let mut lines = Vec::new();
    let mut bytes = 0usize;
    for_each_line(f, |l| {
        // As `str::lines` splits: without the `\n` and one `\r` before it.
        let l = match l.strip_suffix(b"\n") {
            Some(l) => l.strip_suffix(b"\r").unwrap_or(l),
            None => l,
        };
        if l.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let l = match std::str::from_utf8(l) {
            Ok(l) => l.to_string(),
            Err(_) => String::from_utf8_lossy(l).into_owned(),
        };
        if l.trim().is_empty() {
            return;
        }
        bytes += l.len();
        lines.push(l);
    });
    let metas = scan_all(&lines, bytes);
    // Invalid lines are rare: drop them in place (no second list of a long session).
    let bad = metas.iter().filter(|m| m.is_none()).count();
    if bad > 0 {
        let mut valid = metas.iter().map(Option::is_some);
        lines.retain(|_| valid.next().unwrap_or(false));
    }
    // Without a bad line every entry is `Some`: mapped in place, so a long session's list
    // is not copied into a second one (which was the turn's peak of memory).
    let metas = if bad == 0 {
        metas.into_iter().map(Option::unwrap_or_default).collect()
    } else {
        metas.into_iter().flatten().collect()
    };
    (lines, metas, bad)
}

/// Calls `each` with every line of `r` (with its `\n`, the last one perhaps without),
/// read in 256 KiB blocks; a read error ends the lines there, as the end of the file would.
fn for_each_line(mut r: impl std::io::Read, mut each: impl FnMut(&[u8])) {
    let mut buf = vec![0u8; 256 * 1024];
    // Bytes of `buf` not yet taken: [from, to).
    let (mut from, mut to) = (0usize, 0usize);
    loop {
        let n = match r.read(&mut buf[to..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let mut at = to;
        to += n;
        while let Some(i) = memchr::memchr(b'\n', &buf[at..to]) {
            each(&buf[from..=at + i]);
            from = at + i + 1;
            at = from;
        }
        if from > 0 {
            // Move the partial line to the front.
            buf.copy_within(from..to, 0);
            to -= from;
            from = 0;
        }
        if to == buf.len() {
            // A line longer than the buffer: grow it.
            buf.resize(buf.len() * 2, 0);
        }
    }
    if to > from {
        each(&buf[from..to]);
    }
}

/// The facts of every line, on two threads when there is enough to scan.
fn scan_all(lines: &[String], bytes: usize) -> Vec<Option<LineMeta>> {
    const PARALLEL_FROM: usize = 1 << 20;
    let two = std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2);
    if bytes < PARALLEL_FROM || !two || lines.len() < 2 {
        return lines.iter().map(|l| line_meta::meta(l)).collect();
    }
    // Split where half the bytes are behind.
    let (mut acc, mut mid) = (0usize, lines.len() / 2);
    for (i, l) in lines.iter().enumerate() {
        acc += l.len();
        if acc >= bytes / 2 {
            mid = i + 1;
            break;
        }
    }
    let (a, b) = lines.split_at(mid.min(lines.len()));
    // Each thread fills its own half of one list (no list per thread to join).
    let mut out: Vec<Option<LineMeta>> = vec![None; lines.len()];
    let (oa, ob) = out.split_at_mut(a.len());
    let scan = |part: &[String], into: &mut [Option<LineMeta>]| {
        for (l, m) in part.iter().zip(into.iter_mut()) {
            *m = line_meta::meta(l);
        }
    };
    let joined = std::thread::scope(|s| {
        let second = std::thread::Builder::new().spawn_scoped(s, move || scan(b, ob));
        scan(a, oa);
        matches!(second.map(|h| h.join()), Ok(Ok(())))
    });
    if !joined {
        // No thread (or it panicked): scan the second half here.
        scan(b, &mut out[a.len()..]);
    }
    out
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
