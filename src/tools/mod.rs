//! The model's tools (docs/tools-and-policy.md): registry, dispatch, result truncation and the
//! permission policy. Every tool returns a [`ToolOutput`]; no tool may panic the agent.
pub mod bash;
mod common;
pub mod compact_json;
pub mod diff;
pub mod edit;
pub mod glob;
pub mod grep;
pub mod plan;
pub mod policy;
pub mod preview;
pub mod read;
pub mod skill;
pub mod skills;
pub mod snapshot;
pub mod subagent;
pub mod tasks;
pub mod todo;
pub mod truncate;
pub mod webfetch;
pub mod write;

use crate::session::Session;
use crate::util::cancel::Cancel;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Tool schemas shipped to the model (embedded).
pub const TOOLS_JSON: &str = include_str!("../../assets/tools.json");
pub use compact_json::TOOLS_JSON_COMPACT;

/// Limits a tool call runs under (from the run's configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `--tool-timeout` seconds (foreground Bash default).
    pub tool_timeout: u64,
    /// TOOL_RESULT_MAX_BYTES.
    pub max_result_bytes: usize,
    /// BASH_AGENT_BASH_MODE as parsed bits (0 when invalid = fail closed).
    pub bash_mode: u32,
}

/// What a tool may read of the running agent and ask of it. The agent's context implements
/// it (`agent::context::AgentCtx`); tests and `bash-agent tool` use [`LocalHost`]. Defining
/// it here keeps `tools` independent of `agent`.
pub trait ToolHost: Send + Sync {
    /// The session the call belongs to (plan files, file history).
    fn session(&self) -> &Session;
    /// The agent's working directory (physical).
    fn cwd(&self) -> &Path;
    fn limits(&self) -> Limits;
    /// Sub-agent depth (0 = the main agent).
    fn depth(&self) -> u32;
    /// Set when the user interrupts the turn.
    fn cancel(&self) -> &Cancel;
    /// Start a sub-agent; returns the tool text `Sub-agent started: session_id=<sid>, pid=<pid>`
    /// or an error message (without the `Error: ` prefix).
    fn spawn_sub_agent(
        &self,
        prompt: &str,
        description: &str,
        fork: bool,
    ) -> Result<String, String>;
    /// [`ToolHost::spawn_sub_agent`] as the custom agent `agent` (its tools, model and
    /// instructions; "" is the general helper). Hosts without custom agents refuse a name.
    fn spawn_named_sub_agent(
        &self,
        prompt: &str,
        description: &str,
        fork: bool,
        agent: &str,
    ) -> Result<String, String> {
        if agent.is_empty() {
            self.spawn_sub_agent(prompt, description, fork)
        } else {
            Err(format!(
                "unknown subagent_type {agent:?}: no custom agents here"
            ))
        }
    }
    /// Start a background Bash task; returns `Async task started: task_id=<id>, pid=<pid>`.
    fn spawn_background(&self, command: &str) -> Result<String, String>;
    /// Ask for a compaction with the given trigger (`plan_confirm`, `plan_clear`); the loop
    /// runs it after this call's assistant line is stored.
    fn request_compaction(&self, trigger: &str);
    /// Called before a tool modifies `path` (file history for undo). `tool_use_id` names the call.
    fn before_file_change(&self, path: &Path, tool_use_id: &str);
    /// BashOutput: a running background task's state and output so far (`id` "" = the
    /// newest task).
    fn task_output(&self, _id: &str) -> Result<String, String> {
        Err("background tasks are not available here".into())
    }
    /// KillShell: stop a running background task or sub-agent.
    fn stop_child(&self, _id: &str) -> Result<String, String> {
        Err("background tasks are not available here".into())
    }
    /// Output of a running tool as it arrives (Bash streams its child's output here, for the
    /// interactive live view); the result still carries all of it.
    fn tool_output(&self, _chunk: &[u8]) {}
    /// The permission rules' check of each redirect hop of a WebFetch call that started at
    /// `start` (docs/sandbox.md, "Rules on URLs and paths"). A host without rules follows.
    fn web_hop_check(&self, _start: &url::Url) -> webfetch::redirect::HopCheck {
        webfetch::redirect::follow_all()
    }
}

/// A host outside a running agent: the tools run, sub-agents and background tasks are not
/// available, nothing is recorded.
pub struct LocalHost {
    pub session: Session,
    pub cwd: PathBuf,
    pub limits: Limits,
    pub depth: u32,
    pub cancel: Cancel,
}

impl ToolHost for LocalHost {
    fn session(&self) -> &Session {
        &self.session
    }
    fn cwd(&self) -> &Path {
        &self.cwd
    }
    fn limits(&self) -> Limits {
        self.limits
    }
    fn depth(&self) -> u32 {
        self.depth
    }
    fn cancel(&self) -> &Cancel {
        &self.cancel
    }
    fn spawn_sub_agent(&self, _: &str, _: &str, _: bool) -> Result<String, String> {
        Err("sub-agents are not available here".into())
    }
    fn spawn_background(&self, _: &str) -> Result<String, String> {
        Err("background tasks are not available here".into())
    }
    fn request_compaction(&self, _: &str) {}
    fn before_file_change(&self, _: &Path, _: &str) {}
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

/// A tool's handler: the host, the call's id and the model's input object.
pub type Handler = fn(&dyn ToolHost, &str, &Value) -> ToolOutput;

/// One entry of the tool table.
pub struct Tool {
    pub name: &'static str,
    /// The input member shown as the label of `[tool] Name(label)` (none: no label).
    pub label_key: Option<&'static str>,
    pub handler: Handler,
}

/// Every tool offered to the model, in tools.json order: dispatch, the display's labels and
/// the schemas sent to the model all follow this table (a test checks it against tools.json).
pub const TABLE: [Tool; 14] = [
    Tool {
        name: "Read",
        label_key: Some("path"),
        handler: |h, _, i| read::run(h, i),
    },
    Tool {
        name: "Write",
        label_key: Some("path"),
        handler: write::run,
    },
    Tool {
        name: "Edit",
        label_key: Some("path"),
        handler: edit::run,
    },
    Tool {
        name: "Bash",
        label_key: Some("command"),
        handler: |h, _, i| bash::run(h, i),
    },
    Tool {
        name: "Glob",
        label_key: Some("pattern"),
        handler: |h, _, i| glob::run(h, i),
    },
    Tool {
        name: "Grep",
        label_key: Some("pattern"),
        handler: |h, _, i| grep::run(h, i),
    },
    Tool {
        name: "TodoWrite",
        label_key: Some("summary"),
        handler: |h, _, i| todo::run(h, i),
    },
    Tool {
        name: "PlanConfirm",
        label_key: None,
        handler: |h, _, _| plan::confirm(h),
    },
    Tool {
        name: "PlanClear",
        label_key: None,
        handler: |h, _, _| plan::clear(h),
    },
    Tool {
        name: "Skill",
        label_key: Some("name"),
        handler: |h, _, i| skill::run(h, i),
    },
    Tool {
        name: "SubAgent",
        label_key: Some("description"),
        handler: |h, _, i| subagent::run(h, i),
    },
    Tool {
        name: "WebFetch",
        label_key: Some("url"),
        handler: |h, _, i| webfetch::run(h, i),
    },
    Tool {
        name: "BashOutput",
        label_key: Some("bash_id"),
        handler: |h, _, i| tasks::output(h, i),
    },
    Tool {
        name: "KillShell",
        label_key: Some("shell_id"),
        handler: |h, _, i| tasks::kill(h, i),
    },
];

/// The tool names in table order.
pub const TOOL_NAMES: [&str; 14] = {
    let mut names = [""; 14];
    let mut i = 0;
    while i < TABLE.len() {
        names[i] = TABLE[i].name;
        i += 1;
    }
    names
};

/// The table entry for a tool name.
pub fn lookup(name: &str) -> Option<&'static Tool> {
    TABLE.iter().find(|t| t.name == name)
}

/// The native file guard (`policy::file_required`) for Read/Write/Edit/Glob/Grep.
fn guard(ctx: &dyn ToolHost, name: &str, input: &Value) -> Result<(), String> {
    use policy::Access;
    let path = input.get("path").map(value_text).unwrap_or_default();
    let (target, access) = match name {
        "Read" => (path, Access::Read),
        "Write" | "Edit" => (path, Access::Write),
        "Grep" => (path, Access::Read),
        "Glob" => {
            let pat = input.get("pattern").map(value_text).unwrap_or_default();
            if path.is_empty() && (pat.starts_with('/') || pat.contains("..")) {
                ("/".to_string(), Access::Read)
            } else {
                (path, Access::Read)
            }
        }
        _ => return Ok(()),
    };
    if target.is_empty() && matches!(name, "Read" | "Write" | "Edit") {
        return Ok(()); // the tool itself reports `no path provided`
    }
    let places = policy::places_of_run(ctx.cwd());
    policy::check_file(&target, access, &places, ctx.limits().bash_mode)?;
    if access == Access::Write {
        // The file tools run in the agent itself, outside the kernel sandbox: they keep
        // its promise by the same rule, on the path the kernel would reach.
        let real = policy::physical_target(&target, &places);
        if !crate::sandbox::may_write(&real, ctx.cwd()) {
            let mode = crate::sandbox::settings().mode.name();
            return Err(format!(
                "{target} resolves to {}, outside the folders the sandbox lets the agent write (--sandbox {mode}); allow its folder with --add-dir DIR",
                real.display()
            ));
        }
    }
    Ok(())
}

fn dispatch(ctx: &dyn ToolHost, id: &str, name: &str, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let Some(tool) = lookup(name) else {
        return ToolOutput::error(&format!("unknown tool: {name}"), max);
    };
    if let Err(e) = guard(ctx, name, input) {
        return ToolOutput::error(&e, max);
    }
    (tool.handler)(ctx, id, input)
}

/// Run tool `name` (call `id`) with the model's input object. Never panics: a panic inside a
/// tool becomes `Error: internal error in <tool>`.
pub fn run(ctx: &dyn ToolHost, id: &str, name: &str, input: &Value) -> ToolOutput {
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        dispatch(ctx, id, name, input)
    }));
    let mut out = match res {
        Ok(out) => out,
        Err(_) => ToolOutput::error(
            &format!("internal error in {name}"),
            ctx.limits().max_result_bytes,
        ),
    };
    // The one place every tool result passes before it is displayed, stored or sent: a
    // key the model printed (`cat .env`) goes no further.
    for t in [&mut out.conv, &mut out.display] {
        if let std::borrow::Cow::Owned(r) = crate::sandbox::env::redact(t) {
            *t = r;
        }
    }
    out
}

/// The label of a call: the table's label member (Bash commands on one line, cut at 80).
pub fn label(name: &str, input: &Value) -> String {
    let Some(key) = lookup(name).and_then(|t| t.label_key) else {
        return String::new();
    };
    let v = input.get(key).map(value_text).unwrap_or_default();
    if key == "command" {
        let c = v.replace('\n', " ");
        if c.chars().count() > 80 {
            return format!("{}...", c.chars().take(77).collect::<String>());
        }
        return c;
    }
    v
}

/// The `[tool] Name(label)` summary of a call (display and replay).
pub fn call_summary(name: &str, input: &Value) -> String {
    format!("{name}({})", label(name, input))
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
