//! Skill (docs/tools-and-policy.md): load `<root>/<name>/SKILL.md` from `$PWD/.claude/skills`,
//! `$PWD/skills`, `$HOME/.claude/skills` (the same lookup as the prompt's skill index,
//! `tools::skills`) with `${BASH_AGENT_SKILL_DIR}` replaced by the skill's folder and `${CLAUDE_SESSION_ID}`
//! by the session's id.
use super::common::arg;
use super::{ToolHost, ToolOutput};
use serde_json::Value;
use std::path::PathBuf;

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .unwrap_or_default()
}

pub fn run(ctx: &dyn ToolHost, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let name = arg(input, "name").trim().to_string();
    if name.is_empty() {
        return ToolOutput::error("no skill name provided", max);
    }
    match crate::tools::skills::load(ctx.cwd(), &home(), &name) {
        Some(s) => ToolOutput::text(
            true,
            &format!(
                "Skill: {name}\nBase directory: {}\n\n{}",
                s.dir.display(),
                // As Claude Code does in a skill's text.
                s.content
                    .replace("${CLAUDE_SESSION_ID}", &ctx.session().id)
                    .replace("${BASH_AGENT_SESSION_ID}", &ctx.session().id)
            ),
            max,
        ),
        None => ToolOutput::error(&format!("skill not found: {name}"), max),
    }
}
