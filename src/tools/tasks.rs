//! BashOutput and KillShell (Claude Code's names): the model reads a running background
//! task's output so far, or stops a task or sub-agent it started. The agent keeps the
//! registry (agent/children.rs); a stopped task's exit code still arrives as its result.
use super::common::arg;
use super::{ToolHost, ToolOutput};
use serde_json::Value;

/// The id a call names: its own member, else the other tool's (models mix them up).
fn id(input: &Value, keys: &[&str]) -> String {
    keys.iter()
        .map(|k| arg(input, k))
        .find(|v| !v.trim().is_empty())
        .unwrap_or_default()
}

fn done(r: Result<String, String>, max: usize) -> ToolOutput {
    match r {
        Ok(text) => ToolOutput {
            ok: true,
            conv: super::truncate::truncate(&text, max),
            display: super::truncate::truncate(&text, max),
            checklist: None,
        },
        Err(e) => ToolOutput::error(&e, max),
    }
}

pub fn output(h: &dyn ToolHost, input: &Value) -> ToolOutput {
    let max = h.limits().max_result_bytes;
    done(
        h.task_output(&id(input, &["bash_id", "task_id", "shell_id"])),
        max,
    )
}

pub fn kill(h: &dyn ToolHost, input: &Value) -> ToolOutput {
    let max = h.limits().max_result_bytes;
    done(
        h.stop_child(&id(input, &["shell_id", "task_id", "bash_id"])),
        max,
    )
}
