//! Skill (model-tools.md §5.11): find `<root>/<name>/SKILL.md` in `$PWD/.claude/skills`,
//! `$PWD/skills`, `$HOME/.claude/skills` and return it with `${BASH_AGENT_SKILL_DIR}`
//! replaced by the skill's folder.
use super::common::arg;
use super::{ToolCtx, ToolOutput};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The folders searched, in order.
pub fn search_dirs(cwd: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![cwd.join(".claude/skills"), cwd.join("skills")];
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        dirs.push(PathBuf::from(home).join(".claude/skills"));
    }
    dirs
}

/// The folder of skill `name`, if any (names with `/` or `..` never match).
pub fn find(cwd: &Path, name: &str) -> Option<PathBuf> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." || name.contains('\0') {
        return None;
    }
    search_dirs(cwd)
        .into_iter()
        .map(|d| d.join(name))
        .find(|d| d.join("SKILL.md").is_file())
}

pub fn run(ctx: &ToolCtx, input: &Value) -> ToolOutput {
    let max = ctx.max_result_bytes;
    let name = arg(input, "name").trim().to_string();
    if name.is_empty() {
        return ToolOutput::error("no skill name provided", max);
    }
    let dir = match find(&ctx.cwd, &name) {
        Some(d) => d,
        None => return ToolOutput::error(&format!("skill not found: {name}"), max),
    };
    let body = match std::fs::read(dir.join("SKILL.md")) {
        Ok(b) => super::common::lossy(b),
        Err(e) => return ToolOutput::error(&format!("cannot read skill {name}: {e}"), max),
    };
    let d = dir.to_string_lossy();
    let body = body.replace("${BASH_AGENT_SKILL_DIR}", &d);
    ToolOutput::text(
        true,
        &format!("Skill: {name}\nBase directory: {d}\n\n{body}"),
        max,
    )
}
