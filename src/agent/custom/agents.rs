//! Custom sub-agents (docs/custom-commands.md, "Custom sub-agents"): `<root>/<file>.md` in
//! Claude Code's format. Frontmatter: `name` (else the file name), `description`, `tools`
//! (a comma list; absent means every tool), `model` (`inherit` or absent: the run's
//! model). The body is the agent's system prompt. The SubAgent tool starts one by name
//! (`subagent_type`); the main prompt lists them.
use super::commands::split_list;
use super::files::{self, Root};
use super::frontmatter;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDef {
    pub name: String,
    pub description: String,
    /// None: every tool the run has.
    pub tools: Option<Vec<String>>,
    pub model: Option<String>,
    /// The body: the agent's own instructions.
    pub prompt: String,
    pub path: PathBuf,
}

#[derive(Debug, Clone, Default)]
pub struct Agents {
    pub agents: Vec<AgentDef>,
    pub warnings: Vec<String>,
}

impl Agents {
    pub fn find(&self, name: &str) -> Option<&AgentDef> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// The refusal for an unknown name: it names the agents there are.
    pub fn unknown(&self, name: &str) -> String {
        if self.agents.is_empty() {
            return format!(
                "unknown subagent_type {name:?}: no custom agents are defined (.claude/agents/*.md or .bash-agent/agents/*.md); leave subagent_type out for a general helper"
            );
        }
        let known: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
        format!(
            "unknown subagent_type {name:?}; the known agents are: {}",
            known.join(", ")
        )
    }
}

/// A tool name an agent may list: a built-in tool or an MCP tool (`mcp__…`).
fn known_tool(t: &str) -> bool {
    crate::tools::TOOL_NAMES.contains(&t) || t.starts_with("mcp__")
}

/// Read the agents of `roots` (the first file with a name wins).
pub fn load(roots: &[Root]) -> Agents {
    let mut out = Agents::default();
    for root in roots {
        let listing = files::markdown_files(root, false);
        out.warnings.extend(listing.warnings);
        for rel in listing.files {
            let path = root.dir.join(&rel);
            match read(&path) {
                Ok(a) if out.find(&a.name).is_none() => out.agents.push(a),
                Ok(_) => {}
                Err(e) => out
                    .warnings
                    .push(format!("{}: skipped: {e}", path.display())),
            }
        }
    }
    out
}

/// The agents for a run in `cwd`.
pub fn load_here(cwd: &std::path::Path) -> Agents {
    load(&files::roots_here(cwd, "agents"))
}

fn read(path: &std::path::Path) -> Result<AgentDef, String> {
    let text = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let text = String::from_utf8(text).map_err(|_| "not UTF-8 text".to_string())?;
    let p = frontmatter::parse(&text).map_err(|e| format!("broken frontmatter: {e}"))?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = p.get("name").map(str::trim).unwrap_or(&stem).to_string();
    if !files::valid_part(&name) {
        return Err(format!(
            "bad agent name {name:?} (letters, digits, - and _ only)"
        ));
    }
    let tools = match p.get("tools") {
        None => None,
        Some(list) => {
            let names = split_list(list);
            if let Some(bad) = names.iter().find(|t| !known_tool(t)) {
                return Err(format!(
                    "unknown tool {bad:?} in tools (known: {})",
                    crate::tools::TOOL_NAMES.join(", ")
                ));
            }
            Some(names)
        }
    };
    let prompt = p.body.trim().to_string();
    Ok(AgentDef {
        description: p
            .get("description")
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| files::first_line(&prompt)),
        name,
        tools,
        model: p
            .get("model")
            .map(str::trim)
            .filter(|m| !m.is_empty() && *m != "inherit")
            .map(str::to_string),
        prompt,
        path: path.to_path_buf(),
    })
}

/// The main prompt's list: one `- name: description (tools: …)` line per agent.
pub fn index_text(a: &Agents) -> String {
    if a.agents.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "Named helpers defined for this project. Start one with SubAgent and subagent_type set to its name when a task fits its description; it runs with its own instructions and only the tools listed.",
    );
    for d in &a.agents {
        let tools = match &d.tools {
            Some(t) => t.join(", "),
            None => "all".into(),
        };
        s.push_str(&format!(
            "\n- {}: {} (tools: {tools})",
            d.name, d.description
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_load_and_bad_ones_are_reported() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(".claude/agents");
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(
            p.join("rev.md"),
            "---\nname: reviewer\ndescription: Reviews diffs\ntools: Read, Grep\nmodel: small\n---\nYou review.\n",
        )
        .unwrap();
        std::fs::write(p.join("all.md"), "---\nmodel: inherit\n---\nDo anything.\n").unwrap();
        std::fs::write(p.join("bad.md"), "---\nname: x\n").unwrap();
        std::fs::write(p.join("badtool.md"), "---\ntools: Read, Nope\n---\nx").unwrap();
        let a = load(&files::roots(
            d.path(),
            std::path::Path::new("/none"),
            "agents",
        ));
        let names: Vec<&str> = a.agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, vec!["all", "reviewer"]);
        let r = a.find("reviewer").unwrap();
        assert_eq!(
            r.tools.as_deref(),
            Some(&["Read".to_string(), "Grep".to_string()][..])
        );
        assert_eq!(r.model.as_deref(), Some("small"));
        assert_eq!(a.find("all").unwrap().model, None);
        assert_eq!(a.warnings.len(), 2, "{:?}", a.warnings);
        assert!(a.warnings[0].contains("bad.md: skipped: broken frontmatter"));
        assert!(a.warnings[1].contains("unknown tool \"Nope\""));
        assert!(a.unknown("zz").contains("known agents are: all, reviewer"));
        let idx = index_text(&a);
        assert!(idx.contains("\n- reviewer: Reviews diffs (tools: Read, Grep)"));
        assert!(idx.contains("\n- all: Do anything. (tools: all)"));
    }
}
