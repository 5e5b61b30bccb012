//! SubAgent (docs/tools-and-policy.md): validation here, the launch
//! itself belongs to the runtime (`ToolHost::spawn_sub_agent`).
use super::common::{arg, flag};
use super::{ToolHost, ToolOutput};
use serde_json::Value;

pub fn run(ctx: &dyn ToolHost, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let prompt = arg(input, "prompt");
    if prompt.trim().is_empty() {
        return ToolOutput::error("no prompt provided for sub-agent", max);
    }
    if ctx.depth() >= 1 {
        return ToolOutput::error(
            "sub-agent recursion limit reached; child agents cannot launch SubAgent",
            max,
        );
    }
    // `subagent_type`, as in Claude Code's Task tool: a custom agent's name.
    let agent = arg(input, "subagent_type");
    match ctx.spawn_named_sub_agent(
        &prompt,
        &arg(input, "description"),
        flag(input, "fork"),
        agent.trim(),
    ) {
        Ok(text) => ToolOutput::text(true, &text, max),
        Err(e) => ToolOutput::error(&e, max),
    }
}
