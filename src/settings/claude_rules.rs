//! Claude Code's permission rules as ours: its tool names mapped, and its path forms in
//! Read/Edit rules anchored where Claude Code anchors them (docs/claude-code.md, "Settings
//! and hooks"). Both syntaxes read `//abs` as absolute and `~/x` under the home folder,
//! and `x` / `./x` against the working directory; only `/x` differs: Claude Code reads it
//! against the settings file's own root (the folder holding its `.claude/`: the project
//! root for the project's files, the home folder for `~/.claude/settings.json`), where our
//! rules read it against the working directory. Such a rule is rewritten as an absolute
//! `//root/x`, so it means the same from any sub-folder.
use std::path::Path;

/// Claude Code's tool names in rules, as ours: its Task/Agent is our SubAgent, MultiEdit and
/// NotebookEdit edit files (an Edit rule covers them), LS lists a folder (a Read rule covers
/// Glob and Grep), KillBash is KillShell.
pub fn our_tool(name: &str) -> &str {
    match name {
        "Task" | "Agent" => "SubAgent",
        "MultiEdit" | "NotebookEdit" => "Edit",
        "LS" => "Read",
        "KillBash" => "KillShell",
        other => other,
    }
}

/// A rule text with its tool named as ours (`Task(x)` → `SubAgent(x)`).
pub fn translate_rule(text: &str) -> String {
    let t = text.trim();
    let end = t.find('(').unwrap_or(t.len());
    format!("{}{}", our_tool(&t[..end]), &t[end..])
}

/// A rule read from the settings file `file` as ours: the tool mapped, and a file rule's
/// `/x` made `//<root>/x` with `root` the folder holding the file's `.claude/`.
pub fn from_file(text: &str, file: &Path) -> String {
    let ours = translate_rule(text);
    let Some(open) = ours.find('(') else {
        return ours;
    };
    let (tool, rest) = ours.split_at(open);
    if !matches!(tool, "Read" | "Edit" | "Write" | "Glob" | "Grep") {
        return ours;
    }
    let inner = rest[1..].trim_start();
    if !inner.starts_with('/') || inner.starts_with("//") {
        return ours;
    }
    let Some(root) = file.parent().and_then(Path::parent) else {
        return ours;
    };
    // The root is literal text inside a glob: its own `*`, `[`, ... must not match.
    let root = globset::escape(&root.display().to_string());
    format!("{tool}(/{}{inner}", root.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_names_map_to_ours() {
        for (cc, ours) in [
            ("Task(review)", "SubAgent(review)"),
            ("Agent", "SubAgent"),
            ("MultiEdit(src/**)", "Edit(src/**)"),
            ("LS", "Read"),
            ("KillBash", "KillShell"),
            ("Bash(git diff:*)", "Bash(git diff:*)"),
            ("mcp__sentry__search_docs", "mcp__sentry__search_docs"),
        ] {
            assert_eq!(translate_rule(cc), ours);
        }
    }

    #[test]
    fn a_slash_path_is_anchored_at_the_settings_files_root() {
        let f = Path::new("/p/.claude/settings.json");
        assert_eq!(from_file("Edit(/src/**)", f), "Edit(//p/src/**)");
        assert_eq!(from_file("MultiEdit(/src/*.ts)", f), "Edit(//p/src/*.ts)");
        assert_eq!(from_file("Read(//etc/passwd)", f), "Read(//etc/passwd)");
        assert_eq!(from_file("Read(~/.ssh/**)", f), "Read(~/.ssh/**)");
        assert_eq!(from_file("Read(./.env)", f), "Read(./.env)");
        assert_eq!(from_file("Read(*.env)", f), "Read(*.env)");
        assert_eq!(from_file("Bash(/bin/ls)", f), "Bash(/bin/ls)");
        let user = Path::new("/home/u/.claude/settings.json");
        assert_eq!(
            from_file("Read(/notes/**)", user),
            "Read(//home/u/notes/**)"
        );
        let odd = Path::new("/w/a[1]/.claude/settings.local.json");
        assert_eq!(from_file("Edit(/x)", odd), "Edit(//w/a[[]1[]]/x)");
    }
}
