//! Custom sub-agents (docs/custom-commands.md, "Custom sub-agents"): `<root>/**/<file>.md`
//! in Claude Code's format, sub-folders included (Claude Code reads them recursively; the
//! folder is not part of the name). Frontmatter: `name` (else the file name),
//! `description`, `tools` (a comma list of Claude Code's or our names, mapped by
//! [`cc_names`]; absent means every tool; a name we lack is dropped with one warning),
//! `model` (an alias through the model table; `inherit` or absent: the run's model). The
//! body is the agent's system prompt. The SubAgent tool starts one by name
//! (`subagent_type`); the main prompt lists them.
use super::cc_names;
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
    /// `disallowedTools` (our names): taken away even when `tools` is absent.
    pub disallowed: Vec<String>,
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

/// Read the agents of `roots` (the first file with a name wins).
pub fn load(roots: &[Root]) -> Agents {
    let mut out = Agents::default();
    let mut seen = files::Seen::default();
    for root in roots {
        let listing = files::markdown_files(root, true);
        out.warnings.extend(listing.warnings);
        for rel in listing.files {
            let path = root.dir.join(&rel);
            if !seen.first(&path) {
                continue;
            }
            match read(&path, &mut out.warnings) {
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

/// One agent file; what it holds that we cannot use goes to `warnings` (one per file and
/// kind) and the agent still loads.
fn read(path: &std::path::Path, warnings: &mut Vec<String>) -> Result<AgentDef, String> {
    let text = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let text = String::from_utf8(text).map_err(|_| "not UTF-8 text".to_string())?;
    let p = frontmatter::parse(&text);
    if let Some(w) = &p.warning {
        warnings.push(format!("{}: {w}", path.display()));
    }
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
            let mut names: Vec<String> = Vec::new();
            let mut unknown: Vec<String> = Vec::new();
            for t in split_list(list) {
                match cc_names::tool(&t) {
                    cc_names::Tool::Ours(n) if !names.contains(&n) => names.push(n),
                    cc_names::Tool::Ours(_) => {}
                    cc_names::Tool::Unknown(n) => unknown.push(n),
                }
            }
            if !unknown.is_empty() {
                warnings.push(format!(
                    "{}: tools: {} not known here, left out (the agent loads with the rest; docs/claude-code.md lists the names)",
                    path.display(),
                    unknown.join(", ")
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
        model: p.get("model").and_then(cc_names::model),
        disallowed: cc_names::denied(&p),
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
        std::fs::create_dir_all(p.join("team/deep")).unwrap();
        std::fs::write(
            p.join("team/deep/cc.md"),
            "---\nname: cc\ndescription: >\n  Folded\n  text\ntools: Task, Agent, LS, MultiEdit, KillBash, Search, WebSearch, Bash\ndisallowedTools: [KillBash, EnterPlanMode]\nmodel: opus\nhooks:\n  Stop:\n    - hooks: []\n---\nGo.\n",
        )
        .unwrap();
        // A second name for the same file is read once.
        std::os::unix::fs::symlink("cc.md", p.join("team/deep/cc2.md")).unwrap();
        let a = load(&files::roots(
            d.path(),
            std::path::Path::new("/none"),
            "agents",
        ));
        let names: Vec<&str> = a.agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, vec!["all", "bad", "badtool", "reviewer", "cc"]);
        let cc = a.find("cc").unwrap();
        assert_eq!(
            cc.tools.as_ref().unwrap().join(","),
            "SubAgent,Glob,Edit,KillShell,Grep,WebSearch,Bash"
        );
        assert_eq!(cc.description, "Folded text");
        assert_eq!(cc.model, cc_names::model("opus"));
        assert_eq!(cc.disallowed, vec!["KillShell"]);
        assert_eq!(
            a.find("badtool").unwrap().tools.as_ref().unwrap().join(","),
            "Read"
        );
        let r = a.find("reviewer").unwrap();
        assert_eq!(
            r.tools.as_deref(),
            Some(&["Read".to_string(), "Grep".to_string()][..])
        );
        assert_eq!(r.model.as_deref(), Some("small"));
        assert_eq!(a.find("all").unwrap().model, None);
        assert_eq!(a.warnings.len(), 2, "{:?}", a.warnings);
        assert!(a.warnings[0]
            .contains("bad.md: line 1: the frontmatter opened with --- is never closed"));
        assert!(a.warnings[1].contains("badtool.md: tools: Nope not known here, left out"));
        assert!(a
            .unknown("zz")
            .contains("known agents are: all, bad, badtool, reviewer, cc"));
        let idx = index_text(&a);
        assert!(idx.contains("\n- reviewer: Reviews diffs (tools: Read, Grep)"));
        assert!(idx.contains("\n- all: Do anything. (tools: all)"));
    }
}
