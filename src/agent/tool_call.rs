//! One tool call inside a turn: validate the model's raw input (invalid JSON becomes a
//! tool error, never an invalid JSONL line), run the tool, and emit its call and result.
use crate::agent::context::AgentCtx;
use crate::agent::extensions::PreTool;
use crate::protocol::{Checklist, Event};
use crate::session::conversation::ToolUse;
use crate::tools;
use serde_json::Value;

/// Validate the input, run the tool, emit the call and its result; returns the conversation
/// tool_use block and its result.
pub fn run(
    ctx: &AgentCtx,
    name: String,
    id: String,
    input_raw: String,
) -> (ToolUse, (String, String)) {
    let (raw, parse_err) = match crate::util::jsonl::normalize_raw_object(&input_raw) {
        Some(r) => (r, None),
        None => (
            "{}".to_string(),
            Some(format!(
                "invalid JSON in tool arguments: {}",
                input_raw.chars().take(200).collect::<String>()
            )),
        ),
    };
    let mut input: Value = serde_json::from_str(&raw).unwrap_or(Value::Object(Default::default()));
    // TodoWrite's call is shown with its checklist, known only after it ran.
    let call_first = parse_err.is_none() && name != "TodoWrite";
    if call_first {
        ctx.emit(Event::tool_call(&name, &id, &raw, None));
    }
    let mut structured = None;
    let mut out = match &parse_err {
        Some(m) => tools::ToolOutput {
            ok: false,
            conv: format!("Error: {m}"),
            display: format!("Error: {m}"),
            checklist: None,
        },
        // PreToolUse hooks first (they may change the input or say allow/ask/deny), then
        // the permission gate on the input that will run, as in Claude Code; `mcp__*` tools
        // go to their server. A tool outside a custom command's or agent's set is refused
        // like a denied one.
        None => match ctx.custom.allows(&name).and_then(|()| {
            match crate::agent::extensions::pre_tool(ctx, &name, &id, &input) {
                PreTool::Refuse(why) => Err(why),
                PreTool::Run {
                    input: run_input,
                    decision,
                } => permission_check_with(ctx, &name, &run_input, decision),
            }
        }) {
            Err(refusal) => tools::ToolOutput {
                ok: false,
                conv: format!("Error: {refusal}"),
                display: format!("Error: {refusal}"),
                checklist: None,
            },
            Ok(run_input) => {
                let out = match crate::agent::extensions::mcp_call(ctx, &name, &run_input) {
                    Some((o, s)) => {
                        structured = s;
                        o
                    }
                    None => tools::run(ctx, &id, &name, &run_input),
                };
                ctx.permission.after(&name, out.ok);
                input = run_input;
                out
            }
        },
    };
    // Extensions: PostToolUse hooks may add feedback for the model.
    if parse_err.is_none() {
        if let Some(add) = crate::agent::extensions::post_tool(ctx, &name, &id, &input, &out) {
            out.conv = format!("{}\n\n{add}", out.conv.trim_end_matches('\n'));
            out.display = format!("{}\n\n{add}", out.display.trim_end_matches('\n'));
        }
    }
    // A path-scoped rule (.claude/rules with `paths:`) comes with the first file it fits.
    if out.ok && parse_err.is_none() {
        if let Some(rule) = crate::agent::prompt::touched::for_touched(&ctx.cwd, &name, &input) {
            out.conv = format!("{}\n\n{rule}", out.conv.trim_end_matches('\n'));
        }
    }
    // Like the reference's `output=$(tool …)`: trailing newlines are not part of a result.
    for t in [&mut out.conv, &mut out.display] {
        let keep = t.trim_end_matches('\n').len();
        t.truncate(keep);
    }
    let checklist = out.checklist.as_ref().map(|(md, summary)| Checklist {
        markdown: md.clone(),
        summary: summary.clone(),
    });
    if !call_first {
        ctx.emit(Event::tool_call(&name, &id, &raw, checklist.clone()));
    }
    ctx.emit(Event::ToolResult {
        tool_use_id: id.clone(),
        name: name.clone(),
        content: out.display,
        structured: structured.and_then(|v| serde_json::value::to_raw_value(&v).ok()),
        checklist,
    });
    (
        ToolUse {
            id: id.clone(),
            name,
            input_raw: raw,
        },
        (id, out.conv),
    )
}

/// The permission gate, before the tool runs: Ok(the input to run). A question goes through
/// the line editor; the decision is logged as a `permission` event line (kept off the
/// stream-json echo).
pub fn permission_check(ctx: &AgentCtx, name: &str, input: &Value) -> Result<Value, String> {
    permission_check_with(ctx, name, input, None)
}

/// [`permission_check`] with what the PreToolUse hooks said of the call. A
/// PermissionRequest hook's allow with an `updatedInput` is checked again as rewritten
/// (as PreToolUse's is), so a deny rule still holds for the new input; a second rewrite of
/// that input is refused rather than followed.
pub fn permission_check_with(
    ctx: &AgentCtx,
    name: &str,
    input: &Value,
    hook: Option<crate::hooks::Permission>,
) -> Result<Value, String> {
    let Some(rewritten) = gate_once(ctx, name, input, hook)? else {
        return Ok(input.clone());
    };
    match gate_once(ctx, name, &rewritten, None)? {
        None => Ok(rewritten),
        Some(_) => Err(format!(
            "a PermissionRequest hook rewrote the {name} call again after its first rewrite; refused"
        )),
    }
}

/// One pass of the gate: Ok(Some(input)) when a PermissionRequest hook allowed with a
/// rewritten input (to be checked again), Ok(None) when `input` may run as it is.
fn gate_once(
    ctx: &AgentCtx,
    name: &str,
    input: &Value,
    hook: Option<crate::hooks::Permission>,
) -> Result<Option<Value>, String> {
    let rewritten = std::cell::RefCell::new(None);
    let on_ask = |_why: &str| {
        let a = crate::agent::hook_events::permission_request(ctx, name, input)?;
        Some(a.map(|u| {
            if let Some(u) = u {
                *rewritten.borrow_mut() = Some(u);
            }
        }))
    };
    let draft = ctx.session.plan_draft();
    let root = crate::session::paths::projects_root();
    let print = |t: &str| ctx.out.print(t);
    let log = |line: &str| ctx.rec.quiet(line);
    let env = crate::permission::gate::CallEnv {
        cwd: &ctx.cwd,
        plan_draft: &draft,
        projects_root: &root,
        cancel: &ctx.cancel,
        print: &print,
        preview: &|| crate::tools::preview::change(ctx, name, input, ctx.out.color()),
        save_rules: &|to, rules| crate::agent::rule_save::save_rules(&ctx.cwd, to, rules),
        project_trust: &|| crate::agent::rule_save::project_trust(&ctx.cwd),
        log: &log,
        hook: hook.and_then(|p| match p {
            crate::hooks::Permission::Allow => Some(crate::permission::RuleKind::Allow),
            crate::hooks::Permission::Ask => Some(crate::permission::RuleKind::Ask),
            // A deny was a refusal before the gate.
            crate::hooks::Permission::Deny => None,
        }),
        on_ask: &on_ask,
    };
    ctx.permission.check(&env, name, input)?;
    Ok(rewritten.into_inner())
}
