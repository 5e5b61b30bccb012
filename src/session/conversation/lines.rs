//! The line shapes of conversation.jsonl with the reference key order, and the appends:
//! an assistant line and its results in one write, large lines through a pending copy.
use crate::util::jsonl::Obj;
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

/// One reasoning block of an assistant message, kept as the server sent it so that it can
/// go back verbatim (Anthropic requires the current tool loop's thinking blocks complete,
/// unmodified and first in the assistant message; docs/providers.md#thinking-round-trip).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reasoning {
    /// A thinking block; `signature` is empty when the server signed nothing (local
    /// servers, other vendors): the line then has the shell version's exact shape.
    Thinking { text: String, signature: String },
    /// A `redacted_thinking` block's encrypted `data`.
    Redacted { data: String },
}

impl Reasoning {
    fn len(&self) -> usize {
        match self {
            Reasoning::Thinking { text, signature } => text.len() + signature.len(),
            Reasoning::Redacted { data } => data.len(),
        }
    }
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
    let r = [Reasoning::Thinking {
        text: thinking.to_string(),
        signature: String::new(),
    }];
    assistant_line_with(&r, text, tools)
}

/// [`assistant_line`] with the reasoning blocks as they came (signatures, redacted blocks).
pub fn assistant_line_with(reasoning: &[Reasoning], text: &str, tools: &[ToolUse]) -> String {
    let n: usize = reasoning.iter().map(Reasoning::len).sum();
    let mut out = Vec::with_capacity(n + text.len() + 96);
    let _ = write_assistant_line(&mut out, reasoning, text, tools); // ok: a Vec never fails
    String::from_utf8(out).unwrap_or_default()
}

/// [`assistant_line_with`] written straight into `w` (a huge answer is escaped into the
/// file, never copied into a line first). The same bytes. No reasoning at all is written
/// as the shell's empty thinking block; a signature is an extra key after `thinking`.
pub fn write_assistant_line(
    w: &mut dyn Write,
    reasoning: &[Reasoning],
    text: &str,
    tools: &[ToolUse],
) -> std::io::Result<()> {
    write_assistant_line_with(w, reasoning, "", text, tools)
}

/// [`write_assistant_line`] with extra members on the first thinking block: `extra` is
/// `"key":value,…` JSON text (empty for none), written after its `thinking` (and
/// `signature`). What a provider needs to replay that the shell format has no field for
/// lives there (the Responses API's encrypted reasoning items); readers of the shell
/// format ignore the extra keys.
pub fn write_assistant_line_with(
    w: &mut dyn Write,
    reasoning: &[Reasoning],
    extra: &str,
    text: &str,
    tools: &[ToolUse],
) -> std::io::Result<()> {
    w.write_all(br#"{"role":"assistant","content":["#)?;
    let mut extra_left = !extra.is_empty();
    let has_thinking = reasoning
        .iter()
        .any(|r| matches!(r, Reasoning::Thinking { .. }));
    if reasoning.is_empty() || (extra_left && !has_thinking) {
        w.write_all(br#"{"type":"thinking","thinking":"""#)?;
        if extra_left {
            w.write_all(b",")?;
            w.write_all(extra.as_bytes())?;
            extra_left = false;
        }
        w.write_all(b"}")?;
        if !reasoning.is_empty() {
            w.write_all(b",")?;
        }
    }
    for (i, r) in reasoning.iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        match r {
            Reasoning::Thinking { text, signature } => {
                w.write_all(br#"{"type":"thinking","thinking":"#)?;
                serde_json::to_writer(&mut *w, text)?;
                if !signature.is_empty() {
                    w.write_all(br#","signature":"#)?;
                    serde_json::to_writer(&mut *w, signature)?;
                }
                if extra_left {
                    w.write_all(b",")?;
                    w.write_all(extra.as_bytes())?;
                    extra_left = false;
                }
            }
            Reasoning::Redacted { data } => {
                w.write_all(br#"{"type":"redacted_thinking","data":"#)?;
                serde_json::to_writer(&mut *w, data)?;
            }
        }
        w.write_all(b"}")?;
    }
    w.write_all(br#",{"type":"text","text":"#)?;
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
    reasoning: &[Reasoning],
    text: &str,
    tools: &[ToolUse],
    results: &[(String, String)],
) -> std::io::Result<()> {
    append_call_with(path, reasoning, "", text, tools, results)
}

/// [`append_call`] with extra members on the first thinking block (see
/// [`write_assistant_line_with`]).
pub fn append_call_with(
    path: &Path,
    reasoning: &[Reasoning],
    extra: &str,
    text: &str,
    tools: &[ToolUse],
    results: &[(String, String)],
) -> std::io::Result<()> {
    let size = reasoning.iter().map(Reasoning::len).sum::<usize>()
        + extra.len()
        + text.len()
        + tools
            .iter()
            .map(|t| t.input_raw.len() + t.id.len() + t.name.len())
            .sum::<usize>()
        + results.iter().map(|r| r.0.len() + r.1.len()).sum::<usize>();
    crate::session::durable::append_with(path, size, |w| {
        write_assistant_line_with(w, reasoning, extra, text, tools)?;
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
