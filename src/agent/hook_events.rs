//! The hook events at the places the loop reaches them, with Claude Code's input for each
//! (`session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`, and the
//! event's own fields; tools under Claude Code's names and field names: hooks::names).
use super::extensions::{lock, MAX_STOP_CONTINUES};
use crate::agent::context::AgentCtx;
use crate::hooks::{fields, names, HookEvent, Outcome, Permission};
use crate::tools::ToolOutput;
use serde_json::{json, Value};

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

fn run(ctx: &AgentCtx, ev: HookEvent, subjects: &[&str], f: &[(&str, Value)]) -> Option<Outcome> {
    let h = ctx.ext.hooks.as_ref()?;
    if !h.has(ev) {
        return None;
    }
    let mut all = fields(&[(
        "permission_mode",
        json!(names::cc_mode(ctx.permission.mode().name())),
    )]);
    all.extend(fields(f));
    let o = h.run(ev, subjects, all);
    show(ctx, &o);
    Some(o)
}

/// The tool fields of a tool event: Claude Code's tool name and input, the call's id.
fn tool_fields(ctx: &AgentCtx, name: &str, id: &str, input: &Value) -> Vec<(&'static str, Value)> {
    vec![
        ("tool_name", json!(names::cc_name(name))),
        ("tool_input", names::to_cc(name, input, &ctx.cwd)),
        ("tool_use_id", json!(id)),
    ]
}

/// UserPromptSubmit: Ok(text to add to the prompt) or Err(why the prompt was blocked).
pub fn user_prompt(ctx: &AgentCtx, prompt: &str) -> Result<String, String> {
    let mut extra: Vec<String> = std::mem::take(&mut *lock(&ctx.ext.pending_context));
    if let Some(o) = run(
        ctx,
        HookEvent::UserPromptSubmit,
        &[],
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

/// What the PreToolUse hooks made of a call.
pub enum PreTool {
    /// Go on to the permission gate with this input (a hook's `updatedInput` applied) and
    /// the hooks' permission word (allow skips a question, ask puts one).
    Run {
        input: Value,
        decision: Option<Permission>,
    },
    /// Refused: the text for the model.
    Refuse(String),
}

/// PreToolUse, before the permission gate as in Claude Code.
pub fn pre_tool(ctx: &AgentCtx, name: &str, id: &str, input: &Value) -> PreTool {
    let subjects = names::subjects(name);
    let Some(o) = run(
        ctx,
        HookEvent::PreToolUse,
        &subjects,
        &tool_fields(ctx, name, id, input),
    ) else {
        return PreTool::Run {
            input: input.clone(),
            decision: None,
        };
    };
    if let Some(b) = o.block {
        return PreTool::Refuse(format!("PreToolUse hook blocked {name}: {b}"));
    }
    if ctx.cancel.is_cancelled() {
        // Ctrl-C while the hooks ran: the call does not start.
        return PreTool::Refuse(format!("{name} was not run: interrupted"));
    }
    let input = match &o.updated_input {
        Some(u) => names::from_cc(name, input, u),
        None => input.clone(),
    };
    PreTool::Run {
        input,
        decision: o.permission,
    }
}

/// PermissionRequest, where the gate would ask: Some(Ok(None)) allows, Some(Ok(Some(input)))
/// allows with the hook's `updatedInput` (our field names; the gate checks it again),
/// Some(Err) refuses, None leaves the question to the person (or the headless refusal).
/// An allow's `updatedPermissions` apply for the rest of the session
/// ([`super::hook_permissions`]). A question about to be put is a `permission_prompt`
/// Notification, as in Claude Code.
pub fn permission_request(
    ctx: &AgentCtx,
    name: &str,
    input: &Value,
) -> Option<Result<Option<Value>, String>> {
    let subjects = names::subjects(name);
    let answer = run(
        ctx,
        HookEvent::PermissionRequest,
        &subjects,
        &[
            ("tool_name", json!(names::cc_name(name))),
            ("tool_input", names::to_cc(name, input, &ctx.cwd)),
        ],
    )
    .and_then(|o| match o.block {
        Some(b) => Some(Err(format!("a PermissionRequest hook refused: {b}"))),
        None if o.permission == Some(Permission::Allow) => {
            super::hook_permissions::apply(ctx, &o.updated_permissions);
            Some(Ok(o
                .updated_input
                .map(|u| names::from_cc(name, input, &u))
                .filter(|u| u != input)))
        }
        None => None,
    });
    if answer.is_none() && ctx.permission.interactive() {
        notify(
            ctx,
            &format!("bash-agent needs your permission to use {name}"),
            "permission_prompt",
        );
    }
    answer
}

/// SubagentStart, once the helper's id is known and before it starts: Claude Code's
/// `agent_id` (the helper's session id, the one its SubagentStop names) and `agent_type`
/// (the custom agent, else `general-purpose`; the matcher's subject). Returns the task to
/// send: a hook's `additionalContext` goes into it.
pub fn subagent_start(ctx: &AgentCtx, id: &str, kind: &str, task: &str) -> String {
    let Some(o) = run(
        ctx,
        HookEvent::SubagentStart,
        &[kind],
        &[("agent_id", json!(id)), ("agent_type", json!(kind))],
    ) else {
        return task.to_string();
    };
    if o.context.is_empty() {
        return task.to_string();
    }
    format!(
        "{task}\n\n<hook-context>\n{}\n</hook-context>",
        o.context.join("\n")
    )
}

/// PostToolUse (PostToolUseFailure for a failed call): text appended to the result the
/// model sees (a block reason, context).
pub fn post_tool(
    ctx: &AgentCtx,
    name: &str,
    id: &str,
    input: &Value,
    out: &ToolOutput,
) -> Option<String> {
    let subjects = names::subjects(name);
    let mut f = tool_fields(ctx, name, id, input);
    let ev = if out.ok {
        f.push((
            "tool_response",
            names::response(name, input, out.ok, &out.conv),
        ));
        HookEvent::PostToolUse
    } else {
        f.push(("error", json!(out.conv)));
        f.push(("is_interrupt", json!(ctx.cancel.is_cancelled())));
        HookEvent::PostToolUseFailure
    };
    let o = run(ctx, ev, &subjects, &f)?;
    let mut add = Vec::new();
    if let Some(b) = o.block {
        add.push(format!("{} hook: {b}", ev.name()));
    }
    add.extend(o.context);
    (!add.is_empty()).then(|| add.join("\n"))
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
    let mut f = vec![("stop_hook_active", json!(active))];
    // A helper's hooks carry `agent_id`/`agent_type` already (Hooks::as_subagent); its
    // own conversation is `agent_transcript_path`, and its type the matcher's subject.
    let kind = ctx
        .ext
        .hooks
        .as_ref()
        .and_then(|h| h.extra.get("agent_type"))
        .and_then(Value::as_str)
        .unwrap_or("general-purpose")
        .to_string();
    let subjects: Vec<&str> = if ctx.depth > 0 { vec![&kind] } else { vec![] };
    if ctx.depth > 0 {
        f.push((
            "agent_transcript_path",
            json!(ctx.session.conversation().display().to_string()),
        ));
    }
    let o = run(ctx, ev, &subjects, &f)?;
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

/// SessionStart (`startup`, `resume`, `clear`): its output (plain stdout,
/// `additionalContext`) becomes context of the next prompt, as Claude Code adds it before
/// the first message.
pub fn session_start(ctx: &AgentCtx, source: &str) {
    let c = session_context(ctx, source);
    lock(&ctx.ext.pending_context).extend(c);
}

/// SessionStart with `source` (`compact` after a compaction): the context its hooks gave.
pub fn session_context(ctx: &AgentCtx, source: &str) -> Vec<String> {
    run(
        ctx,
        HookEvent::SessionStart,
        &[source],
        &[("source", json!(source))],
    )
    .map(|o| o.context)
    .unwrap_or_default()
}

/// Set by a `/clear` (`/new`) restart for the run it starts, whose SessionStart `source`
/// is then `clear`; read and removed at start, before any thread or child exists.
pub const CLEARED_ENV: &str = "BASH_AGENT_CLEARED";

static CLEARED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Take [`CLEARED_ENV`] out of the environment (called once at the start of the run).
pub fn take_cleared_from_env() {
    if std::env::var_os(CLEARED_ENV).is_some() {
        std::env::remove_var(CLEARED_ENV);
        CLEARED.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// SessionStart's `source` for the session this run opened: `resume` (`--continue`,
/// `--session` of an existing one, `/resume`), `clear` (the fresh session of `/clear` or
/// `/new`), else `startup`.
pub fn start_source(is_new: bool) -> &'static str {
    match (is_new, CLEARED.load(std::sync::atomic::Ordering::SeqCst)) {
        (false, _) => "resume",
        (true, true) => "clear",
        (true, false) => "startup",
    }
}

/// SessionEnd's `reason`: `clear` when `/clear` or `/new` ends the session, else
/// `prompt_input_exit` interactive and `other` elsewhere (Claude Code's words).
pub fn end_reason(ctx: &AgentCtx, interactive: bool) -> &'static str {
    use crate::agent::slash::Restart;
    match ctx.slash.restart() {
        Some(Restart::Fresh) => "clear",
        _ if interactive => "prompt_input_exit",
        _ => "other",
    }
}

/// A sub-agent's hooks (`--sub-agent-notify` names the parent's FIFO, in the parent's
/// session folder): the parent's session and transcript, this helper's id and type.
pub fn as_subagent(h: &mut crate::hooks::Hooks, notify: &str, agent: Option<&str>, id: &str) {
    let Some(parent) = std::path::Path::new(notify).parent() else {
        return;
    };
    let parent_id = parent
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let transcript =
        crate::session::Session::new(parent.parent().unwrap_or(parent), &parent_id).conversation();
    h.as_subagent(
        &parent_id,
        transcript,
        id,
        agent.unwrap_or("general-purpose"),
    );
}

/// SessionEnd.
pub fn session_end(ctx: &AgentCtx, reason: &str) {
    run(
        ctx,
        HookEvent::SessionEnd,
        &[],
        &[("reason", json!(reason))],
    );
}

/// The compaction hooks' `trigger`: `manual` or `auto` (the plan triggers count as auto).
fn compact_trigger(trigger: &str) -> &'static str {
    if trigger == "manual" {
        "manual"
    } else {
        "auto"
    }
}

/// PreCompact (`manual` or `auto`; the plan triggers count as auto), with the text of a
/// `/compact TEXT` as `custom_instructions`. Some(reason) when a hook blocks the
/// compaction (exit 2 or `decision: "block"`, as in Claude Code).
pub fn pre_compact(ctx: &AgentCtx, trigger: &str, instructions: &str) -> Option<String> {
    let t = compact_trigger(trigger);
    run(
        ctx,
        HookEvent::PreCompact,
        &[t],
        &[
            ("trigger", json!(t)),
            ("custom_instructions", json!(instructions)),
        ],
    )?
    .block
}

/// PostCompact, with the summary that replaced the older messages.
pub fn post_compact(ctx: &AgentCtx, trigger: &str, summary: &str) {
    let t = compact_trigger(trigger);
    run(
        ctx,
        HookEvent::PostCompact,
        &[t],
        &[("trigger", json!(t)), ("compact_summary", json!(summary))],
    );
}

/// Notification: the agent waits for the user (`idle_prompt`, Claude Code's type for it).
pub fn notification(ctx: &AgentCtx, message: &str) {
    notify(ctx, message, "idle_prompt");
}

/// Notification of a given Claude Code type (`idle_prompt`, `permission_prompt`).
fn notify(ctx: &AgentCtx, message: &str, kind: &str) {
    run(
        ctx,
        HookEvent::Notification,
        &[kind],
        &[
            ("message", json!(message)),
            ("notification_type", json!(kind)),
        ],
    );
}
