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

/// PermissionRequest, where the gate would ask: Some(Ok) allows, Some(Err) refuses, None
/// leaves the question to the person (or the headless refusal). A question about to be put
/// is a `permission_prompt` Notification, as in Claude Code.
pub fn permission_request(ctx: &AgentCtx, name: &str, input: &Value) -> Option<Result<(), String>> {
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
        // An allow with an `updatedInput` is not taken: the input the gate checked is the
        // one that runs (docs/hooks.md).
        None => (o.permission == Some(Permission::Allow)).then_some(Ok(())),
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

/// SubagentStart, before the SubAgent tool starts its helper: a hook's
/// `additionalContext` goes into the helper's task.
pub fn subagent_start(ctx: &AgentCtx, id: &str, input: &mut Value) {
    let kind = input
        .get("subagent_type")
        .and_then(Value::as_str)
        .unwrap_or("general-purpose")
        .to_string();
    let Some(o) = run(
        ctx,
        HookEvent::SubagentStart,
        &[kind.as_str()],
        &[("agent_id", json!(id)), ("agent_type", json!(kind))],
    ) else {
        return;
    };
    if o.context.is_empty() {
        return;
    }
    if let Some(p) = input.get_mut("prompt") {
        let task = p.as_str().unwrap_or_default();
        *p = json!(format!(
            "{task}\n\n<hook-context>\n{}\n</hook-context>",
            o.context.join("\n")
        ));
    }
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
    if ctx.depth > 0 {
        f.push(("agent_id", json!(ctx.session.id)));
    }
    let o = run(ctx, ev, &[], &f)?;
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
        &[source],
        &[("source", json!(source))],
    ) {
        lock(&ctx.ext.pending_context).extend(o.context);
    }
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

/// PreCompact (`manual` or `auto`; the plan triggers count as auto), with the text of a
/// `/compact TEXT` as `custom_instructions`.
pub fn pre_compact(ctx: &AgentCtx, trigger: &str) {
    let t = if trigger == "manual" {
        "manual"
    } else {
        "auto"
    };
    run(
        ctx,
        HookEvent::PreCompact,
        &[t],
        &[("trigger", json!(t)), ("custom_instructions", json!(""))],
    );
}

/// PostCompact, with the summary that replaced the older messages.
pub fn post_compact(ctx: &AgentCtx, trigger: &str, summary: &str) {
    let t = if trigger == "manual" {
        "manual"
    } else {
        "auto"
    };
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
