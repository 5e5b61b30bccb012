//! conversation.jsonl (docs/sessions.md): line shapes with the reference key order,
//! whole-line appends, and a reader that skips corrupt lines and repairs a dangling
//! tool_use (a crash between an assistant line and its results) when building messages.
use super::line_meta::{self, LineMeta};
use crate::util::jsonl::{quote, Obj};
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// One tool call of an assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolUse {
    pub id: String,
    pub name: String,
    /// Raw JSON object text (validated).
    pub input_raw: String,
}

/// `{"role":"user","content":"…"}`
pub fn user_text_line(content: &str) -> String {
    Obj::new()
        .str("role", "user")
        .str("content", content)
        .finish()
}

/// `{"role":"assistant","content":[thinking, text, tool_use…]}` (thinking and text always present).
pub fn assistant_line(thinking: &str, text: &str, tools: &[ToolUse]) -> String {
    let mut out = Vec::with_capacity(thinking.len() + text.len() + 96);
    let _ = write_assistant_line(&mut out, thinking, text, tools); // ok: a Vec never fails
    String::from_utf8(out).unwrap_or_default()
}

/// [`assistant_line`] written straight into `w` (a huge answer is escaped into the file,
/// never copied into a line first). The same bytes.
pub fn write_assistant_line(
    w: &mut dyn Write,
    thinking: &str,
    text: &str,
    tools: &[ToolUse],
) -> std::io::Result<()> {
    w.write_all(br#"{"role":"assistant","content":[{"type":"thinking","thinking":"#)?;
    serde_json::to_writer(&mut *w, thinking)?;
    w.write_all(br#"},{"type":"text","text":"#)?;
    serde_json::to_writer(&mut *w, text)?;
    w.write_all(b"}")?;
    for t in tools {
        w.write_all(br#",{"type":"tool_use","id":"#)?;
        serde_json::to_writer(&mut *w, &t.id)?;
        w.write_all(br#","name":"#)?;
        serde_json::to_writer(&mut *w, &t.name)?;
        w.write_all(br#","input":"#)?;
        w.write_all(t.input_raw.as_bytes())?;
        w.write_all(b"}")?;
    }
    w.write_all(b"]}")
}

/// `{"role":"user","content":[{"type":"tool_result","tool_use_id":"…","content":"…"},…]}`
pub fn tool_results_line(results: &[(String, String)]) -> String {
    let mut out = Vec::with_capacity(results.iter().map(|r| r.1.len() + 64).sum::<usize>() + 32);
    let _ = write_tool_results_line(&mut out, results); // ok: a Vec never fails
    String::from_utf8(out).unwrap_or_default()
}

/// [`tool_results_line`] written straight into `w`. The same bytes.
pub fn write_tool_results_line(
    w: &mut dyn Write,
    results: &[(String, String)],
) -> std::io::Result<()> {
    w.write_all(br#"{"role":"user","content":["#)?;
    for (i, (id, content)) in results.iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        w.write_all(br#"{"type":"tool_result","tool_use_id":"#)?;
        serde_json::to_writer(&mut *w, id)?;
        w.write_all(br#","content":"#)?;
        serde_json::to_writer(&mut *w, content)?;
        w.write_all(b"}")?;
    }
    w.write_all(b"]}")
}

/// Append one model call: its assistant line and, when it called tools, the results line,
/// streamed into the file in one append (see [`crate::util::fsx::append_with`]); a large
/// call goes through a pending copy first ([`crate::session::durable`]).
pub fn append_call(
    path: &Path,
    thinking: &str,
    text: &str,
    tools: &[ToolUse],
    results: &[(String, String)],
) -> std::io::Result<()> {
    let size = thinking.len()
        + text.len()
        + tools
            .iter()
            .map(|t| t.input_raw.len() + t.id.len() + t.name.len())
            .sum::<usize>()
        + results.iter().map(|r| r.0.len() + r.1.len()).sum::<usize>();
    crate::session::durable::append_with(path, size, |w| {
        write_assistant_line(w, thinking, text, tools)?;
        w.write_all(b"\n")?;
        if !tools.is_empty() {
            write_tool_results_line(w, results)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })
}

/// Append lines with one write so an assistant line and its results land together.
pub fn append_lines(path: &Path, lines: &[String]) -> std::io::Result<()> {
    let size: usize = lines.iter().map(|l| l.len() + 1).sum();
    if size >= crate::session::durable::LARGE {
        return crate::session::durable::append_with(path, size, |w| {
            for l in lines {
                w.write_all(l.as_bytes())?;
                w.write_all(b"\n")?;
            }
            Ok(())
        });
    }
    let mut parts: Vec<&[u8]> = Vec::with_capacity(lines.len() * 2);
    for l in lines {
        parts.push(l.as_bytes());
        parts.push(b"\n");
    }
    crate::util::fsx::append_parts(path, &parts)
}

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
fn last_line(path: &Path) -> Option<(u64, String)> {
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
fn repair_with(lines: Vec<String>, metas: Vec<LineMeta>) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(user_text_line("hi"), r#"{"role":"user","content":"hi"}"#);
        let t = ToolUse {
            id: "toolu_1_2".into(),
            name: "Read".into(),
            input_raw: r#"{"path": "notes.txt"}"#.into(),
        };
        assert_eq!(
            assistant_line(
                "I should look at the notes first.",
                "Reading the notes.",
                &[t]
            ),
            r#"{"role":"assistant","content":[{"type":"thinking","thinking":"I should look at the notes first."},{"type":"text","text":"Reading the notes."},{"type":"tool_use","id":"toolu_1_2","name":"Read","input":{"path": "notes.txt"}}]}"#
        );
        assert_eq!(
            tool_results_line(&[("toolu_1_2".into(), "alpha\nbeta".into())]),
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1_2","content":"alpha\nbeta"}]}"#
        );
    }

    #[test]
    fn repair_adds_missing_results() {
        let t = ToolUse {
            id: "a".into(),
            name: "Bash".into(),
            input_raw: "{}".into(),
        };
        let lines = vec![
            user_text_line("x"),
            assistant_line("", "", &[t]),
            user_text_line("y"),
        ];
        let fixed = repair(lines);
        assert_eq!(fixed.len(), 4);
        assert!(fixed[2].contains("\"tool_use_id\":\"a\""));
        assert!(is_user_turn_line(&fixed[3]));
        assert!(!is_user_turn_line(&fixed[2]));
    }

    #[test]
    fn load_drops_dangling_tail_and_merges_user_turns() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("conversation.jsonl");
        let t = ToolUse {
            id: "w1".into(),
            name: "Write".into(),
            input_raw: "{}".into(),
        };
        let a = assistant_line("", "ok", &[]);
        append_lines(
            &p,
            &[
                user_text_line("first"),
                a.clone(),
                user_text_line("second"),
                assistant_line("", "", &[t]),
            ],
        )
        .unwrap();
        append_lines(&p, &[user_text_line("third")]).unwrap();
        let got = message_lines(&p);
        assert_eq!(
            got,
            vec![
                user_text_line("first"),
                a,
                user_text_line("second\n\nthird")
            ]
        );
        // One user turn at the end stays as it is.
        let one = vec![user_text_line("x")];
        assert_eq!(merge_trailing_user_turns(one.clone()), one);
    }

    #[test]
    fn last_line_reads_from_the_end() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c.jsonl");
        assert_eq!(last_line(&p), None);
        std::fs::write(&p, "").unwrap();
        assert_eq!(last_line(&p), None);
        std::fs::write(&p, "\n\n").unwrap();
        assert_eq!(last_line(&p), None);
        std::fs::write(&p, "only\n").unwrap();
        assert_eq!(last_line(&p), Some((0, "only".into())));
        let long = "x".repeat(200_000);
        std::fs::write(&p, format!("a\n{long}\n\n")).unwrap();
        assert_eq!(last_line(&p), Some((2, long.clone())));
        let pad = "\n".repeat(70_000);
        std::fs::write(&p, format!("{long}\nlast{pad}")).unwrap();
        assert_eq!(last_line(&p), Some((200_001, "last".into())));
    }

    #[test]
    fn last_output() {
        let lines = vec![assistant_line("t1", "a", &[]), assistant_line("", "b", &[])];
        assert_eq!(last_assistant_output(&lines), (String::new(), "b".into()));
    }
}
