//! Session transcripts (docs/export.md): `bash-agent export` and `/export` read a session's
//! messages (conversation-archive.jsonl, then conversation.jsonl: together every message,
//! compacted or not) and its usage ledger, and write them as markdown, one self-contained
//! HTML file or JSON of a documented shape. Reading only: the session is never changed.
mod html;
mod json;
mod markdown;
mod md_escape;

use crate::session::Session;
use crate::usage::prices::Overrides;
use crate::usage::report::{session_entries, sub_sessions, Totals};
use serde_json::Value;

/// Tool results longer than this many lines or bytes are collapsed (`<details>`).
pub const COLLAPSE_LINES: usize = 12;
pub const COLLAPSE_BYTES: usize = 1200;

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Html,
    Json,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s.trim().to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(Format::Markdown),
            "html" | "htm" => Some(Format::Html),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
    /// The file extension (`/export` names its file with it).
    pub fn ext(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Json => "json",
        }
    }
    /// The format a file name asks for (`-o x.html`), when no `--format` is given.
    pub fn from_path(p: &std::path::Path) -> Option<Format> {
        p.extension()
            .and_then(|e| e.to_str())
            .and_then(Format::parse)
    }
}

/// One tool call with its result.
#[derive(Debug, Clone, Default)]
pub struct Call {
    pub id: String,
    pub name: String,
    pub input: Value,
    /// None: no result was stored (the run was interrupted).
    pub result: Option<String>,
    pub error: bool,
}

/// One assistant message.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    pub thinking: String,
    pub text: String,
    pub calls: Vec<Call>,
}

/// A user turn and what the agent did for it.
#[derive(Debug, Clone, Default)]
pub struct Turn {
    /// 1-based, as `sessions show` counts user turns (0: messages before the first one).
    pub n: usize,
    pub prompt: String,
    pub replies: Vec<Reply>,
}

/// A whole session.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    pub session: String,
    /// The project folder's name (the encoded working directory).
    pub project: String,
    pub exported_at: String,
    pub turns: Vec<Turn>,
    /// Messages that were compacted out of the context (read from the archive).
    pub archived_messages: usize,
    pub usage: Totals,
    /// Sub-agent sessions whose usage is included.
    pub sub_sessions: Vec<String>,
    /// Corrupt lines skipped while reading.
    pub skipped_lines: usize,
}

/// Read `s` into a transcript.
pub fn load(s: &Session) -> Transcript {
    let (archived, bad_a) = crate::session::conversation::read_lines(&s.archive());
    let (current, bad_c) = crate::session::conversation::read_lines(&s.conversation());
    let mut t = Transcript {
        session: s.id.clone(),
        project: crate::usage::report::name_of(&s.project_dir()),
        exported_at: crate::util::time::utc_iso_now(),
        archived_messages: archived.len(),
        skipped_lines: bad_a + bad_c,
        ..Transcript::default()
    };
    for line in archived.iter().chain(current.iter()) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            t.skipped_lines += 1;
            continue;
        };
        add_message(&mut t.turns, &v);
    }
    let ov = Overrides::load_checked().unwrap_or_default();
    let mut dirs = vec![s.dir.clone()];
    let project = s.project_dir();
    for sub in sub_sessions(&s.dir) {
        let p = project.join(&sub);
        if p.is_dir() && !dirs.contains(&p) {
            dirs.push(p);
            t.sub_sessions.push(sub);
        }
    }
    for d in &dirs {
        let (entries, _, bad) = session_entries(d, None);
        t.skipped_lines += bad;
        for e in &entries {
            t.usage.add(e, &ov);
        }
    }
    t
}

fn current_turn(turns: &mut Vec<Turn>) -> &mut Turn {
    if turns.is_empty() {
        turns.push(Turn::default());
    }
    let last = turns.len() - 1;
    &mut turns[last]
}

fn block_text(b: &Value) -> String {
    match b.get("content") {
        Some(Value::String(s)) => s.clone(),
        // A result given as blocks: its text blocks joined.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn add_message(turns: &mut Vec<Turn>, v: &Value) {
    let content = v.get("content");
    match v.get("role").and_then(Value::as_str) {
        Some("user") => match content {
            Some(Value::String(text)) => {
                let n = turns.iter().filter(|t| t.n > 0).count() + 1;
                turns.push(Turn {
                    n,
                    prompt: text.clone(),
                    replies: Vec::new(),
                });
            }
            Some(Value::Array(blocks)) => {
                let turn = current_turn(turns);
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("tool_result") => {
                            let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                            let text = block_text(b);
                            let error = b.get("is_error").and_then(Value::as_bool).unwrap_or(false)
                                || text.starts_with("Error: ");
                            let call = turn
                                .replies
                                .iter_mut()
                                .rev()
                                .flat_map(|r| r.calls.iter_mut())
                                .find(|c| c.id == id && c.result.is_none());
                            if let Some(c) = call {
                                c.result = Some(text);
                                c.error = error;
                            }
                        }
                        Some("text") => {
                            let text = b.get("text").and_then(Value::as_str).unwrap_or("");
                            if !text.is_empty() {
                                if !turn.prompt.is_empty() {
                                    turn.prompt.push_str("\n\n");
                                }
                                turn.prompt.push_str(text);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        },
        Some("assistant") => {
            let mut r = Reply::default();
            match content {
                Some(Value::String(s)) => r.text = s.clone(),
                Some(Value::Array(blocks)) => {
                    for b in blocks {
                        let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("");
                        match s("type") {
                            "thinking" => r.thinking.push_str(s("thinking")),
                            "text" => r.text.push_str(s("text")),
                            "tool_use" => r.calls.push(Call {
                                id: s("id").to_string(),
                                name: s("name").to_string(),
                                input: b.get("input").cloned().unwrap_or(Value::Null),
                                result: None,
                                error: false,
                            }),
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            current_turn(turns).replies.push(r);
        }
        _ => {}
    }
}

/// The transcript in `f`.
pub fn render(t: &Transcript, f: Format) -> String {
    match f {
        Format::Markdown => markdown::render(t),
        Format::Html => html::render(t),
        Format::Json => json::render(t),
    }
}

/// How a call's result is shown, whatever the format.
pub struct ResultView<'a> {
    /// "Error" or "Result".
    pub what: &'static str,
    /// Lines and bytes, when the result is long enough to be collapsed.
    pub collapsed: Option<(usize, usize)>,
    pub text: &'a str,
}

/// The result of `c` as the renderers show it; `None` when none was recorded.
pub fn result_view(c: &Call) -> Option<ResultView<'_>> {
    let r = c.result.as_deref()?;
    let lines = r.lines().count();
    let long = r.len() > COLLAPSE_BYTES || lines > COLLAPSE_LINES;
    Some(ResultView {
        what: if c.error { "Error" } else { "Result" },
        collapsed: long.then_some((lines, r.len())),
        text: r,
    })
}

/// The cost line of the usage: `$0.0123`, `-` when no model of the session has a price.
pub fn cost_text(u: &Totals) -> String {
    if u.priced_calls == 0 {
        "unknown (no price known for the model; see docs/features.md, usage)".into()
    } else if u.priced_calls < u.calls {
        format!(
            "${:.4} ({} of {} calls priced)",
            u.cost, u.priced_calls, u.calls
        )
    } else {
        format!("${:.4}", u.cost)
    }
}

/// Why a transcript could not be written.
#[derive(Debug)]
pub enum WriteError {
    IsDir(std::path::PathBuf),
    Io(std::path::PathBuf, std::io::Error),
}

/// Write `text` to `path` (relative paths from the process's cwd) atomically (temp + rename:
/// a reader never sees half a transcript); returns the absolute path written.
pub fn write_to(path: &std::path::Path, text: &str) -> Result<std::path::PathBuf, WriteError> {
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match std::env::current_dir() {
            Ok(d) => d.join(path),
            Err(e) => return Err(WriteError::Io(path.to_path_buf(), e)),
        }
    };
    if full.is_dir() {
        return Err(WriteError::IsDir(full));
    }
    crate::util::fsx::write_atomic(&full, text.as_bytes())
        .map_err(|e| WriteError::Io(full.clone(), e))?;
    Ok(full)
}

/// One compact line naming a call: `Bash(ls -la)`.
pub fn call_label(c: &Call) -> String {
    crate::tools::call_summary(&c.name, &c.input)
}

#[cfg(test)]
mod tests;
