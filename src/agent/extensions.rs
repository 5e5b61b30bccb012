//! The agent's side of MCP servers and user hooks: one small function per place the loop
//! touches them (turn start, the tools of a request, a tool call, a final stop, session
//! start and end, compaction), so the loop's own files only gain one-line calls. With
//! nothing configured every function here returns at its first line. The hook events
//! themselves are in [`super::hook_events`].
pub use super::hook_events::{
    notification, post_tool, pre_compact, pre_tool, session_start, stop, user_prompt, PreTool,
};
use crate::agent::context::AgentCtx;
use crate::hooks::Hooks;
use crate::mcp::Mcp;
use crate::tools::ToolOutput;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// MCP servers and hooks of one run.
#[derive(Default)]
pub struct Extensions {
    pub mcp: Option<Arc<Mcp>>,
    pub hooks: Option<Hooks>,
    /// SessionStart context waiting for the next user message.
    pub(super) pending_context: Mutex<Vec<String>>,
    /// A hook said `continue: false`: the turn ends after the current step.
    pub(super) halt: Mutex<Option<String>>,
    /// Stop-hook continuations in the current turn (bounded by [`MAX_STOP_CONTINUES`]).
    pub(super) stop_continues: std::sync::atomic::AtomicU32,
}

/// How often Stop hooks may make the agent continue in one turn. Claude Code leaves the
/// loop to the hook (`stop_hook_active`); a hook that ignores it would otherwise keep the
/// agent going until `--max-turns`.
pub const MAX_STOP_CONTINUES: u32 = 3;

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
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
        let mcp = Mcp::from_config(&ctx.cwd, ctx.cfg.tool_timeout).map(Arc::new);
        if let Some(m) = &mcp {
            // A server's questions reach a person only on a terminal, never in a sub-agent.
            m.elicit
                .set_interactive(ctx.permission.interactive() && ctx.depth == 0);
        }
        Extensions {
            mcp,
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
    let print = |t: &str| ctx.out.print(t);
    let ask = |t: &str| ctx.permission.ask_line(&print, t, &ctx.cancel);
    Some(match m.call(name, input, &ctx.cancel, &ask) {
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

/// `/mcp__server__prompt args`: Some(the prompt's text, or why not) when a running
/// server has that prompt (the servers' start is awaited first).
pub fn mcp_prompt(ctx: &AgentCtx, command: &str, args: &str) -> Option<Result<String, String>> {
    let m = ctx.ext.mcp.as_ref()?;
    for w in m.wait_ready() {
        ctx.out.warn(&w);
    }
    m.get_prompt(command, args, &ctx.cancel)
}

/// `@server:uri`: Some(the resource's text, or why not) when `server` is a running MCP
/// server that offers resources (their start is awaited first).
pub fn mcp_resource(ctx: &AgentCtx, server: &str, uri: &str) -> Option<Result<String, String>> {
    let m = ctx.ext.mcp.as_ref()?;
    for w in m.wait_ready() {
        ctx.out.warn(&w);
    }
    m.offers_resources(server)
        .then(|| m.read_resource(server, uri))
}

/// `/help`'s lines for the MCP prompts of the servers already running ("" for none; a
/// `/help` does not start servers).
pub fn mcp_prompts_help(ctx: &AgentCtx) -> String {
    let Some(m) = &ctx.ext.mcp else {
        return String::new();
    };
    let lines: Vec<String> = m
        .prompts()
        .into_iter()
        .map(|(cmd, desc, args)| {
            let args: String = args.iter().map(|a| format!(" <{a}>")).collect();
            format!("  {cmd}{args}  {desc}")
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let text = format!("\nMCP prompts:\n{}\n", lines.join("\n"));
    crate::mcp::shown(&text)
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

/// SessionEnd, then the MCP servers end with the run.
pub fn session_end(ctx: &AgentCtx, reason: &str) {
    super::hook_events::session_end(ctx, reason);
    if let Some(m) = &ctx.ext.mcp {
        m.shutdown();
    }
}
