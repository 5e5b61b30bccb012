//! One tool call inside a turn: validate the model's raw input (invalid JSON becomes a
//! tool error, never an invalid JSONL line), run the tool, and emit TOOL_CALL/TOOL_RESULT.
use crate::agent::turn::TurnCtx;
use crate::ipc::resp::Frame;
use crate::session::conversation::ToolUse;
use crate::tools::{self, ToolCtx};
use serde_json::Value;

/// Validate the input, run the tool, emit TOOL_CALL/TOOL_RESULT; returns the conversation
/// tool_use block and its result.
pub fn run(
    ctx: &TurnCtx,
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
    let input: Value = serde_json::from_str(&raw).unwrap_or(Value::Object(Default::default()));
    let tctx = ToolCtx {
        session: ctx.session,
        cwd: ctx.cwd.clone(),
        tool_timeout: ctx.cfg.tool_timeout,
        max_result_bytes: ctx.cfg.max_result_bytes,
        mode: ctx.cfg.bash_mode,
        depth: ctx.depth,
        cancel: ctx.cancel.clone(),
        host: ctx.host,
        tool_use_id: id.clone(),
    };
    let mut out = match &parse_err {
        Some(m) => tools::ToolOutput {
            ok: false,
            conv: format!("Error: {m}"),
            display: format!("Error: {m}"),
            checklist: None,
        },
        None if name == "TodoWrite" => tools::run(&tctx, &name, &input),
        None => {
            emit_tool_call(ctx, &name, &id, &raw, &input, None);
            tools::run(&tctx, &name, &input)
        }
    };
    // Like the reference's `output=$(tool …)`: trailing newlines are not part of a result.
    for t in [&mut out.conv, &mut out.display] {
        let keep = t.trim_end_matches('\n').len();
        t.truncate(keep);
    }
    if parse_err.is_some() || name == "TodoWrite" {
        emit_tool_call(ctx, &name, &id, &raw, &input, out.checklist.as_ref());
    }
    let mut fields = vec![
        "TOOL_RESULT".to_string(),
        id.clone(),
        name.clone(),
        out.display.clone(),
    ];
    if let Some((md, summary)) = &out.checklist {
        fields.extend([
            "checklist".into(),
            md.clone(),
            "summary".into(),
            summary.clone(),
        ]);
    }
    ctx.emit.emit(&Frame::new(fields));
    (
        ToolUse {
            id: id.clone(),
            name,
            input_raw: raw,
        },
        (id, out.conv),
    )
}

/// TOOL_CALL name id input k1 v1 … (TodoWrite: checklist/summary pairs instead).
fn emit_tool_call(
    ctx: &TurnCtx,
    name: &str,
    id: &str,
    raw: &str,
    input: &Value,
    checklist: Option<&(String, String)>,
) {
    let mut fields = vec![
        "TOOL_CALL".to_string(),
        name.to_string(),
        id.to_string(),
        raw.to_string(),
    ];
    if let Some((md, summary)) = checklist {
        fields.extend([
            "checklist".into(),
            md.clone(),
            "summary".into(),
            summary.clone(),
        ]);
    } else if let Value::Object(m) = input {
        for (k, v) in m {
            fields.push(k.clone());
            fields.push(tools::value_text(v));
        }
    }
    ctx.emit.emit(&Frame::new(fields));
}
