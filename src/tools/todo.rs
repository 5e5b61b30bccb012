//! TodoWrite (docs/tools-and-policy.md): validate the list, render the `- [x]`/`- [ ]`
//! checklist and the `x/y` summary. Invalid input is a tool error, never a stream abort.
use super::{ToolHost, ToolOutput};
use serde_json::Value;

/// The checklist markdown and the `completed/total` summary, or the validation error
/// (without the `Error: ` prefix). The runtime may call this when it builds the TOOL_CALL
/// display (it carries `checklist` and `summary`).
pub fn checklist(input: &Value) -> Result<(String, String), String> {
    let todos = match input.get("todos") {
        Some(Value::Array(a)) => a.clone(),
        // Some models send the array JSON-encoded as a string.
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Array(a)) => a,
            _ => return Err("todos must be an array of {content, status} items".into()),
        },
        _ => return Err("todos must be an array of {content, status} items".into()),
    };
    let mut lines = Vec::with_capacity(todos.len());
    let (mut done, mut active) = (0usize, 0usize);
    for item in &todos {
        let content = item
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        if content.is_empty() {
            return Err("todo item content is required".into());
        }
        let status = item
            .get("status")
            .map(super::value_text)
            .unwrap_or_default();
        match status.as_str() {
            "completed" => {
                done += 1;
                lines.push(format!("- [x] {content}"));
            }
            "in_progress" | "pending" => {
                if status == "in_progress" {
                    active += 1;
                }
                lines.push(format!("- [ ] {content}"));
            }
            other => return Err(format!("invalid todo status: {other}")),
        }
    }
    if active > 1 {
        return Err("todo_write allows at most one in_progress item".into());
    }
    Ok((lines.join("\n"), format!("{done}/{}", todos.len())))
}

pub fn run(ctx: &dyn ToolHost, input: &Value) -> ToolOutput {
    match checklist(input) {
        Ok((md, summary)) => {
            let mut out = ToolOutput::text(true, &md, ctx.limits().max_result_bytes);
            out.checklist = Some((md, summary));
            out
        }
        Err(e) => ToolOutput::error(&e, ctx.limits().max_result_bytes),
    }
}
