//! The model's tools (model-tools.md §5): registry, dispatch, result truncation and the
//! permission policy. Every tool returns a [`ToolOutput`]; no tool may panic the agent.
use crate::session::Session;
use crate::util::cancel::Cancel;
use serde_json::Value;
use std::path::PathBuf;

/// Tool schemas shipped to the model (embedded).
pub const TOOLS_JSON: &str = include_str!("../../assets/tools.json");

/// Services the runtime provides to tools (sub-agents, background tasks, compaction,
/// file history). Implemented by the agent runtime; tests use a stub.
pub trait ToolHost: Send + Sync {
    /// Start a sub-agent; returns the tool text `Sub-agent started: session_id=<sid>, pid=<pid>`
    /// or an error message (without the `Error: ` prefix).
    fn spawn_sub_agent(&self, prompt: &str, description: &str, fork: bool) -> Result<String, String>;
    /// Start a background Bash task; returns `Async task started: task_id=<id>, pid=<pid>`.
    fn spawn_background(&self, command: &str) -> Result<String, String>;
    /// Run a compaction with the given trigger (`plan_confirm`, `plan_clear`).
    fn compact(&self, trigger: &str);
    /// Called before a tool modifies `path` (file history for undo). `tool_use_id` names the call.
    fn before_file_change(&self, path: &std::path::Path, tool_use_id: &str);
}

/// A host that supports nothing (tests, sub-agents at the depth limit use their own).
pub struct NoHost;

impl ToolHost for NoHost {
    fn spawn_sub_agent(&self, _: &str, _: &str, _: bool) -> Result<String, String> {
        Err("sub-agents are not available here".into())
    }
    fn spawn_background(&self, _: &str) -> Result<String, String> {
        Err("background tasks are not available here".into())
    }
    fn compact(&self, _: &str) {}
    fn before_file_change(&self, _: &std::path::Path, _: &str) {}
}

/// Everything a tool call may need.
pub struct ToolCtx<'a> {
    pub session: &'a Session,
    /// The agent's working directory (physical).
    pub cwd: PathBuf,
    /// `--tool-timeout` seconds (foreground Bash default).
    pub tool_timeout: u64,
    /// TOOL_RESULT_MAX_BYTES.
    pub max_result_bytes: usize,
    /// BASH_AGENT_BASH_MODE as parsed bits (0 when invalid = fail closed).
    pub mode: u32,
    /// Sub-agent depth (0 = main agent).
    pub depth: u32,
    pub cancel: Cancel,
    pub host: &'a dyn ToolHost,
    /// `--skill` search roots etc. come from cwd/HOME.
    pub tool_use_id: String,
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// false → the conversation text is prefixed with `Error: `.
    pub ok: bool,
    /// Text stored in conversation.jsonl (truncated; Edit: first line only; errors `Error: …`).
    pub conv: String,
    /// Text for the display and the `tool_result` event (Read/Write: summary line first;
    /// Edit: success line + coloured diff).
    pub display: String,
    /// TodoWrite: the checklist markdown and `x/y` summary (TOOL_RESULT kv pairs).
    pub checklist: Option<(String, String)>,
}

/// Run tool `name` with the model's input object. Never panics.
pub fn run(ctx: &ToolCtx, name: &str, input: &Value) -> ToolOutput {
    let _ = (ctx, input);
    let msg = format!("unknown tool: {name}");
    ToolOutput {
        ok: false,
        conv: format!("Error: {msg}"),
        display: format!("Error: {msg}"),
        checklist: None,
    }
}

/// The `[tool] Name(label)` summary of a call (display, §5.1).
pub fn call_summary(name: &str, input: &Value) -> String {
    let s = |k: &str| input.get(k).map(value_text).unwrap_or_default();
    let label = match name {
        "Read" | "Write" | "Edit" => s("path"),
        "Bash" => {
            let c = s("command").replace('\n', " ");
            if c.chars().count() > 80 {
                format!("{}...", c.chars().take(77).collect::<String>())
            } else {
                c
            }
        }
        "Glob" | "Grep" => s("pattern"),
        "TodoWrite" => s("summary"),
        "Skill" => s("name"),
        "SubAgent" => s("description"),
        _ => String::new(),
    };
    format!("{name}({label})")
}

/// A top-level input member as the reference's positional text: strings decoded, other
/// values as compact JSON.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Hidden `tool` subcommand: run one tool in the current directory and print its display text.
pub fn cmd_tool(o: &crate::cli::Opts, name: &str, input: &str) -> anyhow::Result<i32> {
    let _ = (o, name, input);
    anyhow::bail!("tool subcommand not implemented")
}
