//! The agent's side of MCP servers and user hooks: one small function per place the loop
//! touches them (turn start, the tools of a request, a tool call, a final stop, session
//! start and end, compaction), so the loop's own files only gain one-line calls. With
//! nothing configured every function here returns at its first line.
use crate::agent::context::AgentCtx;
use crate::hooks::{fields, HookEvent, Hooks, Outcome, Permission};
use crate::mcp::Mcp;
use crate::tools::ToolOutput;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// MCP servers and hooks of one run.
#[derive(Default)]
pub struct Extensions {
    pub mcp: Option<Arc<Mcp>>,
    pub hooks: Option<Hooks>,
    /// SessionStart context waiting for the next user message.
    pending_context: Mutex<Vec<String>>,
    /// A hook said `continue: false`: the turn ends after the current step.
    halt: Mutex<Option<String>>,
    /// Stop-hook continuations in the current turn (bounded by [`MAX_STOP_CONTINUES`]).
    stop_continues: std::sync::atomic::AtomicU32,
}

/// How often Stop hooks may make the agent continue in one turn. Claude Code leaves the
/// loop to the hook (`stop_hook_active`); a hook that ignores it would otherwise keep the
/// agent going until `--max-turns`.
pub const MAX_STOP_CONTINUES: u32 = 3;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Extensions {
    /// Read the configuration of `cwd` (cheap when nothing is configured); warnings go to `warn`.
    pub fn load(ctx: &AgentCtx, warn: &dyn Fn(&str)) -> Extensions {
        let (mut hooks, hw) = Hooks::load(&ctx.cwd, &ctx.session.id, ctx.session.conversation());
        if let Some(h) = hooks.as_mut() {
            h.cancel = ctx.cancel.clone();
        }
        for w in hw {
            warn(&w);
        }
        Extensions {
            mcp: Mcp::from_config(&ctx.cwd, ctx.cfg.tool_timeout).map(Arc::new),
            hooks,
            pending_context: Mutex::new(Vec::new()),
            halt: Mutex::new(None),
            stop_continues: Default::default(),
        }
    }

    /// A `continue: false` from a hook since the last call (taken).
    pub fn take_halt(&self) -> Option<String> {
        lock(&self.halt).take()
    }
}

fn show(ctx: &AgentCtx, o: &Outcome) {
    for m in &o.user_messages {
        ctx.out.warn(m);
    }
    if ctx.cfg.verbose {
        for v in &o.verbose {
            eprintln!("[verbose] hook: {v}");
        }
    }
    if let Some(r) = &o.stop {
        ctx.out.warn(&format!("stopped by a hook: {r}"));
        *lock(&ctx.ext.halt) = Some(r.clone());
    }
}

fn run(
    ctx: &AgentCtx,
    ev: HookEvent,
    subject: Option<&str>,
    f: &[(&str, Value)],
) -> Option<Outcome> {
    let h = ctx.ext.hooks.as_ref()?;
    if !h.has(ev) {
        return None;
    }
    let o = h.run(ev, subject, fields(f));
    show(ctx, &o);
    Some(o)
}

/// Turn start: the MCP servers start in the background while the request is built.
pub fn turn_start(ctx: &AgentCtx) {
    if let Some(m) = &ctx.ext.mcp {
        m.start();
    }
}

/// The tools of a request: the built-in ones plus the MCP servers' (their start is awaited
/// here, each bounded by its start timeout; failures are warnings).
pub fn tools_json(ctx: &AgentCtx) -> Cow<'static, str> {
    let Some(m) = &ctx.ext.mcp else {
        return Cow::Borrowed(crate::tools::TOOLS_JSON_COMPACT);
    };
    for w in m.wait_ready() {
        ctx.out.warn(&crate::util::shown::shown(&w));
    }
    Cow::Owned(m.tools_json(crate::tools::TOOLS_JSON_COMPACT))
}

/// UserPromptSubmit: Ok(text to add to the prompt) or Err(why the prompt was blocked).
pub fn user_prompt(ctx: &AgentCtx, prompt: &str) -> Result<String, String> {
    let mut extra: Vec<String> = std::mem::take(&mut *lock(&ctx.ext.pending_context));
    if let Some(o) = run(
        ctx,
        HookEvent::UserPromptSubmit,
        None,
        &[("prompt", json!(prompt))],
    ) {
        if let Some(b) = o.block {
            return Err(b);
        }
        extra.extend(o.context);
    }
    if extra.is_empty() {
        return Ok(String::new());
    }
    Ok(format!(
        "\n\n<hook-context>\n{}\n</hook-context>",
        extra.join("\n")
    ))
}

/// PreToolUse: Some(error text for the model) when a hook blocks the call.
pub fn pre_tool(ctx: &AgentCtx, name: &str, input: &Value) -> Option<String> {
    let o = run(
        ctx,
        HookEvent::PreToolUse,
        Some(name),
        &[("tool_name", json!(name)), ("tool_input", input.clone())],
    )?;
    if let Some(b) = o.block {
        return Some(format!("PreToolUse hook blocked {name}: {b}"));
    }
    if ctx.cancel.is_cancelled() {
        // Ctrl-C while the hooks ran: the call does not start.
        return Some(format!("{name} was not run: interrupted"));
    }
    if o.permission == Some(Permission::Ask) {
        // No confirmation prompt exists on this path: an "ask" is refused, never allowed.
        return Some(format!(
            "PreToolUse hook asked for confirmation of {name}; no confirmation is possible here, so the call was not run"
        ));
    }
    None
}

/// PostToolUse: text appended to the result the model sees (a block reason, context).
pub fn post_tool(ctx: &AgentCtx, name: &str, input: &Value, out: &ToolOutput) -> Option<String> {
    let o = run(
        ctx,
        HookEvent::PostToolUse,
        Some(name),
        &[
            ("tool_name", json!(name)),
            ("tool_input", input.clone()),
            (
                "tool_response",
                json!({"success": out.ok, "output": out.conv}),
            ),
        ],
    )?;
    let mut add = Vec::new();
    if let Some(b) = o.block {
        add.push(format!("PostToolUse hook: {b}"));
    }
    add.extend(o.context);
    (!add.is_empty()).then(|| add.join("\n"))
}

/// An MCP tool call: Some((result, structured content)) when `name` is an MCP tool.
pub fn mcp_call(ctx: &AgentCtx, name: &str, input: &Value) -> Option<(ToolOutput, Option<Value>)> {
    if !crate::mcp::is_mcp_name(name) {
        return None;
    }
    let max = ctx.cfg.max_result_bytes;
    let Some(m) = &ctx.ext.mcp else {
        return Some((
            ToolOutput::error(&format!("unknown tool: {name}"), max),
            None,
        ));
    };
    Some(match m.call(name, input, &ctx.cancel) {
        Ok(c) => {
            let mut text = c.output.text;
            if ctx.cfg.vision {
                text.push_str(&store_images(ctx, &c.output.images));
            }
            (
                ToolOutput::text(!c.output.is_error, &text, max),
                c.output.structured,
            )
        }
        Err(e) => (ToolOutput::error(&e, max), None),
    })
}

/// Under `--vision on`, a result's images are stored as the session's next `images/N.<ext>`
/// and named in an `<attached-images>` block, the shape the user's own images take, so
/// `provider::image` sends them as image blocks inside the tool result (and a resumed
/// session sends them again). Kinds it does not send stay placeholder text only.
fn store_images(ctx: &AgentCtx, images: &[(String, String)]) -> String {
    use base64::Engine;
    let dir = ctx.session.dir.join("images");
    let mut lines = Vec::new();
    for (mime, data) in images {
        let ext = match mime.as_str() {
            "image/png" => "png",
            "image/jpeg" => "jpg",
            "image/gif" => "gif",
            "image/webp" => "webp",
            _ => continue,
        };
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data.trim()) else {
            continue;
        };
        match crate::ui::clipboard::store_image_as(&dir, &bytes, ext) {
            Ok(tag) => {
                let n = tag.trim_start_matches("[Image #").trim_end_matches(']');
                lines.push(format!(
                    "{tag} => {}",
                    dir.join(format!("{n}.{ext}")).display()
                ));
            }
            Err(e) => ctx.out.warn(&format!("cannot store an MCP image: {e}")),
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "\n\n<attached-images>\n{}\n</attached-images>",
        lines.join("\n")
    )
}

/// Stop (SubagentStop in a sub-agent): Some(reason) when a hook makes the agent go on.
/// `active` tells the hook it already made the agent continue in this turn; after
/// [`MAX_STOP_CONTINUES`] continuations the agent stops whatever the hooks say.
pub fn stop(ctx: &AgentCtx, active: bool) -> Option<String> {
    use std::sync::atomic::Ordering;
    let ev = if ctx.depth > 0 {
        HookEvent::SubagentStop
    } else {
        HookEvent::Stop
    };
    if !active {
        ctx.ext.stop_continues.store(0, Ordering::SeqCst);
    }
    let o = run(ctx, ev, None, &[("stop_hook_active", json!(active))])?;
    if o.stop.is_some() {
        return None;
    }
    let why = o.block?;
    if ctx.ext.stop_continues.fetch_add(1, Ordering::SeqCst) >= MAX_STOP_CONTINUES {
        ctx.out.warn(&format!(
            "{} hook asked to continue again; stopping after {MAX_STOP_CONTINUES} continuations in this turn",
            ev.name()
        ));
        return None;
    }
    Some(why)
}

/// SessionStart (`startup` or `resume`): its output becomes context of the next prompt.
pub fn session_start(ctx: &AgentCtx, source: &str) {
    if let Some(o) = run(
        ctx,
        HookEvent::SessionStart,
        Some(source),
        &[("source", json!(source))],
    ) {
        lock(&ctx.ext.pending_context).extend(o.context);
    }
}

/// SessionEnd, then the MCP servers end with the run.
pub fn session_end(ctx: &AgentCtx, reason: &str) {
    run(
        ctx,
        HookEvent::SessionEnd,
        None,
        &[("reason", json!(reason))],
    );
    if let Some(m) = &ctx.ext.mcp {
        m.shutdown();
    }
}

/// PreCompact (`manual` or `auto`; the plan triggers count as auto).
pub fn pre_compact(ctx: &AgentCtx, trigger: &str) {
    let t = if trigger == "manual" {
        "manual"
    } else {
        "auto"
    };
    run(
        ctx,
        HookEvent::PreCompact,
        Some(t),
        &[("trigger", json!(t)), ("custom_instructions", json!(""))],
    );
}

/// Notification: the agent waits for the user.
pub fn notification(ctx: &AgentCtx, message: &str) {
    run(
        ctx,
        HookEvent::Notification,
        None,
        &[("message", json!(message))],
    );
}
