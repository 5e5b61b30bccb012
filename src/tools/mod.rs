//! The model's tools (model-tools.md §5): registry, dispatch, result truncation and the
//! permission policy. Every tool returns a [`ToolOutput`]; no tool may panic the agent.
pub mod bash;
mod common;
pub mod diff;
pub mod edit;
pub mod glob;
pub mod grep;
pub mod plan;
pub mod policy;
pub mod read;
pub mod skill;
pub mod subagent;
pub mod todo;
pub mod truncate;
pub mod write;

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
    fn spawn_sub_agent(
        &self,
        prompt: &str,
        description: &str,
        fork: bool,
    ) -> Result<String, String>;
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

/// The 11 tool names offered to the model, in tools.json order.
pub const TOOL_NAMES: [&str; 11] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Glob",
    "Grep",
    "TodoWrite",
    "PlanConfirm",
    "PlanClear",
    "Skill",
    "SubAgent",
];

/// The native file guard (§5.13) for Read/Write/Edit/Glob/Grep.
fn guard(ctx: &ToolCtx, name: &str, input: &Value) -> Result<(), String> {
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
    let root = crate::session::paths::projects_root();
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let places = policy::Places::new(&ctx.cwd, &root, &home);
    policy::check_file(&target, access, &places, ctx.mode)?;
    if access == Access::Write {
        // The file tools run in the agent itself, outside the kernel sandbox: they keep
        // its promise by the same rule, on the path the kernel would reach.
        let real = policy::physical_target(&target, &places);
        if !crate::sandbox::may_write(&real, &ctx.cwd) {
            let mode = crate::sandbox::settings().mode.name();
            return Err(format!(
                "{target} resolves to {}, outside the folders the sandbox lets the agent write (--sandbox {mode}); allow its folder with --add-dir DIR",
                real.display()
            ));
        }
    }
    Ok(())
}

fn dispatch(ctx: &ToolCtx, name: &str, input: &Value) -> ToolOutput {
    let max = ctx.max_result_bytes;
    if !TOOL_NAMES.contains(&name) {
        return ToolOutput::error(&format!("unknown tool: {name}"), max);
    }
    if let Err(e) = guard(ctx, name, input) {
        return ToolOutput::error(&e, max);
    }
    match name {
        "Read" => read::run(ctx, input),
        "Write" => write::run(ctx, input),
        "Edit" => edit::run(ctx, input),
        "Bash" => bash::run(ctx, input),
        "Glob" => glob::run(ctx, input),
        "Grep" => grep::run(ctx, input),
        "TodoWrite" => todo::run(ctx, input),
        "PlanConfirm" => plan::confirm(ctx),
        "PlanClear" => plan::clear(ctx),
        "Skill" => skill::run(ctx, input),
        _ => subagent::run(ctx, input),
    }
}

/// Run tool `name` with the model's input object. Never panics: a panic inside a tool
/// becomes `Error: internal error in <tool>`.
pub fn run(ctx: &ToolCtx, name: &str, input: &Value) -> ToolOutput {
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| dispatch(ctx, name, input)));
    let mut out = match res {
        Ok(out) => out,
        Err(_) => ToolOutput::error(&format!("internal error in {name}"), ctx.max_result_bytes),
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

/// Hidden `tool` subcommand: run one tool in the current directory (NoHost, a throw-away
/// session folder under the temp dir) and print its display text. Exit 0 on success, 1 on
/// a tool error; a bad JSON input is an error (exit 1 through the caller).
pub fn cmd_tool(o: &crate::cli::Opts, name: &str, input: &str) -> anyhow::Result<i32> {
    use std::io::Write;
    let cfg = crate::config::resolve(o, false)?;
    let input: Value =
        serde_json::from_str(input).map_err(|e| anyhow::anyhow!("invalid tool input JSON: {e}"))?;
    let cwd = crate::session::paths::physical_cwd()?;
    let tmp = std::env::temp_dir().join(format!(
        "bash-agent-tool-{}-{:08x}",
        std::process::id(),
        crate::util::random_u64() & 0xffff_ffff
    ));
    let session = Session::new(&tmp, "tool");
    std::fs::create_dir_all(&session.dir)?;
    let _ = crate::util::fsx::touch(&session.plan_draft());
    let ctx = ToolCtx {
        session: &session,
        cwd,
        tool_timeout: cfg.tool_timeout,
        max_result_bytes: cfg.max_result_bytes,
        mode: cfg.bash_mode,
        depth: 0,
        cancel: Cancel::new(),
        host: &NoHost,
        tool_use_id: "toolu_cli".into(),
    };
    crate::sandbox::configure(cfg.sandbox.clone(), Some(&session.dir));
    let out = run(&ctx, name, &input);
    let _ = std::fs::remove_dir_all(&tmp);
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.display.as_bytes())?;
    if !out.display.is_empty() && !out.display.ends_with('\n') {
        stdout.write_all(b"\n")?;
    }
    stdout.flush()?;
    Ok(if out.ok { 0 } else { 1 })
}
