//! The JSON transcript, a stable shape (docs/export.md): `format` and `version` first, then
//! the session, the turns with their replies and tool calls, and the usage object of
//! `bash-agent usage --json`. New keys may be added in a later version; none is renamed.
use super::Transcript;
use serde_json::{json, Map, Value};

/// The `version` of the shape.
pub const VERSION: u64 = 1;

pub fn render(t: &Transcript) -> String {
    let turns: Vec<Value> = t
        .turns
        .iter()
        .map(|turn| {
            json!({
                "n": turn.n,
                "prompt": turn.prompt,
                "replies": turn.replies.iter().map(|r| json!({
                    "thinking": r.thinking,
                    "text": r.text,
                    "tool_calls": r.calls.iter().map(|c| json!({
                        "id": c.id,
                        "name": c.name,
                        "input": c.input,
                        "result": c.result,
                        "error": c.error,
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let out = json!({
        "format": "bash-agent-transcript",
        "version": VERSION,
        "session": t.session,
        "project": t.project,
        "exported_at": t.exported_at,
        "archived_messages": t.archived_messages,
        "skipped_lines": t.skipped_lines,
        "turns": turns,
        "usage": t.usage.json(Map::new()),
        "sub_sessions": t.sub_sessions,
    });
    let mut s = serde_json::to_string_pretty(&out).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}
