//! Claude Code's names in the files a Claude Code user brings (agents' `tools:`,
//! commands' `allowed-tools:`, `model:`), turned into this agent's (docs/claude-code.md,
//! "Tool names"). One table, so agents, commands and the docs agree.

/// Claude Code tool name → ours. Names that are the same on both sides are not listed.
pub const TOOL_MAP: &[(&str, &str)] = &[
    ("Task", "SubAgent"),
    ("Agent", "SubAgent"),
    ("KillBash", "KillShell"),
    // Our Edit takes one change; several changes are several Edit calls of one turn.
    ("MultiEdit", "Edit"),
    ("LS", "Glob"),
    ("Search", "Grep"),
    ("NotebookEdit", "Edit"),
    ("NotebookRead", "Read"),
    ("TodoRead", "TodoWrite"),
    ("ExitPlanMode", "PlanConfirm"),
    ("SlashCommand", "Skill"),
];

/// Tool names that exist only on some providers (the server-side search tool): an agent
/// may name them; a run whose provider has none simply does not offer them.
pub const PROVIDER_TOOLS: &[&str] = &["WebSearch"];

/// What one name in a tool list stands for here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tool {
    /// Our tool (or an MCP tool), possibly renamed from Claude Code's.
    Ours(String),
    /// A name we have nothing for: the caller warns once and drops it.
    Unknown(String),
}

/// Our name for `name` (`Task` → `SubAgent`, `mcp__x__y` and our own names as they are).
/// A Claude Code pattern (`Task(reviewer)`, `Bash(git:*)`) is cut to its tool.
pub fn tool(name: &str) -> Tool {
    let n = name.trim();
    let n = n.split('(').next().unwrap_or(n).trim();
    if n.starts_with("mcp__")
        || crate::tools::TOOL_NAMES.contains(&n)
        || PROVIDER_TOOLS.contains(&n)
    {
        return Tool::Ours(n.to_string());
    }
    match TOOL_MAP.iter().find(|(cc, _)| *cc == n) {
        Some((_, ours)) => Tool::Ours((*ours).to_string()),
        None => Tool::Unknown(n.to_string()),
    }
}

/// A permission rule of a command's `allowed-tools` with Claude Code's tool name mapped
/// (`Task` → `SubAgent`, `MultiEdit(src/**)` → `Edit(src/**)`); unknown names unchanged.
pub fn rule(text: &str) -> String {
    let t = text.trim();
    let (head, tail) = match t.find('(') {
        Some(i) => (&t[..i], &t[i..]),
        None => (t, ""),
    };
    match TOOL_MAP.iter().find(|(cc, _)| *cc == head.trim()) {
        // `Task(reviewer)` names an agent, not a pattern of the SubAgent tool's input.
        Some((_, "SubAgent")) => "SubAgent".to_string(),
        Some((_, ours)) => format!("{ours}{tail}"),
        None => t.to_string(),
    }
}

/// The tools a file takes away (`disallowedTools`, Claude Code's agent key, or
/// `disallowed-tools`), in our names; names we do not have are nothing to take away.
pub fn denied(p: &super::frontmatter::Parsed) -> Vec<String> {
    let list = p
        .get("disallowedTools")
        .or_else(|| p.get("disallowed-tools"))
        .unwrap_or("");
    let mut out: Vec<String> = Vec::new();
    for t in super::commands::split_list(list) {
        if let Tool::Ours(n) = tool(&t) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// A `model:` value: None for the run's own model (`inherit`, `default`, empty), else the
/// model an alias stands for through the model table (`opus` → the table's opus; Claude
/// Code's `opusplan` is opus, a `[1m]` context suffix is dropped); any other name as is.
pub fn model(value: &str) -> Option<String> {
    let v = value.trim();
    let v = match v.find('[') {
        Some(i) if v.ends_with(']') => &v[..i],
        _ => v,
    };
    if v.is_empty() || v.eq_ignore_ascii_case("inherit") || v.eq_ignore_ascii_case("default") {
        return None;
    }
    let v = if v.eq_ignore_ascii_case("opusplan") {
        "opus"
    } else {
        v
    };
    Some(crate::provider::models::resolve_alias(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map() {
        assert_eq!(tool("Task"), Tool::Ours("SubAgent".into()));
        assert_eq!(tool("Agent(reviewer)"), Tool::Ours("SubAgent".into()));
        assert_eq!(tool("KillBash"), Tool::Ours("KillShell".into()));
        assert_eq!(tool("LS"), Tool::Ours("Glob".into()));
        assert_eq!(tool("Read"), Tool::Ours("Read".into()));
        assert_eq!(tool("WebSearch"), Tool::Ours("WebSearch".into()));
        assert_eq!(tool("mcp__a__b"), Tool::Ours("mcp__a__b".into()));
        assert_eq!(tool("Nope"), Tool::Unknown("Nope".into()));
        assert_eq!(rule("Task"), "SubAgent");
        assert_eq!(rule("MultiEdit(src/**)"), "Edit(src/**)");
        assert_eq!(rule("Bash(git add:*)"), "Bash(git add:*)");
        assert_eq!(model("inherit"), None);
        assert_eq!(model(" "), None);
        let opus = crate::provider::models::resolve_alias("opus");
        assert_ne!(opus, "opus");
        assert_eq!(model("opus").as_deref(), Some(opus.as_str()));
        assert_eq!(model("opusplan").as_deref(), Some(opus.as_str()));
        assert_eq!(model("gpt-x").as_deref(), Some("gpt-x"));
    }
}
