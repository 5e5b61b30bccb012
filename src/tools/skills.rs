//! Skills (docs/prompt.md, the Skill tool): the search directories, the skill index shown in
//! the system prompt and loading one skill's SKILL.md.
//!
//! A skill is a directory `<root>/<name>/SKILL.md`. Roots, in order (existing ones only):
//! `<cwd>/.claude/skills`, `<cwd>/skills`, `<home>/.claude/skills`. The first root holding a
//! name wins.
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The literal placeholder replaced by the skill's directory in SKILL.md.
pub const SKILL_DIR_VAR: &str = "${BASH_AGENT_SKILL_DIR}";

/// One entry of the skill index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillEntry {
    pub name: String,
    /// May be empty.
    pub summary: String,
}

/// A loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedSkill {
    pub name: String,
    /// The skill's directory (as found under its root).
    pub dir: PathBuf,
    /// SKILL.md with trailing newlines stripped and `${BASH_AGENT_SKILL_DIR}` replaced.
    pub content: String,
}

/// The existing search roots, in lookup order.
pub fn search_dirs(cwd: &Path, home: &Path) -> Vec<PathBuf> {
    [
        cwd.join(".claude").join("skills"),
        cwd.join("skills"),
        home.join(".claude").join("skills"),
    ]
    .into_iter()
    .filter(|d| d.is_dir())
    .collect()
}

/// Whether `<root>/<name>/SKILL.md` may be read: a project's skill (a root under `cwd`) only
/// when the file, symlinks followed, is inside the working directory and holds no secrets,
/// so a cloned repository's `skills/x/SKILL.md -> /etc/passwd` never reaches the prompt
/// (docs/custom-commands.md, "Symlinks"). The user's own skills may link anywhere.
fn usable(cwd: &Path, root: &Path, file: &Path) -> bool {
    if !file.is_file() {
        return false;
    }
    if cwd.as_os_str().is_empty() || !root.starts_with(cwd) {
        return true;
    }
    let bound = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    std::fs::canonicalize(file).is_ok_and(|real| {
        real.starts_with(&bound) && !super::policy::is_sensitive(&real.to_string_lossy())
    })
}

/// Sub-directory names of `root` holding a usable SKILL.md, sorted bytewise (glob order).
fn skill_names(cwd: &Path, root: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(root) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .filter(|n| usable(cwd, root, &root.join(n).join("SKILL.md")))
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

/// The one-line summary of a SKILL.md: the value of the first `description:` line (quotes
/// removed), else the first non-empty line that is not a heading, `---` or a code fence.
pub fn summary_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("description:") {
            let v = unquote(rest.trim());
            // A YAML block scalar (`>`, `|-`, …): its text is the indented lines after it.
            if v.starts_with(['>', '|']) {
                let block: Vec<&str> = lines[i + 1..]
                    .iter()
                    .take_while(|l| l.starts_with([' ', '\t']) || l.trim().is_empty())
                    .map(|l| l.trim())
                    .filter(|l| !l.is_empty())
                    .collect();
                if !block.is_empty() {
                    return block.join(" ");
                }
                continue;
            }
            if !v.is_empty() {
                return v.to_string();
            }
        }
    }
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t == "---" || t.starts_with("```") {
            continue;
        }
        return t.to_string();
    }
    String::new()
}

fn unquote(s: &str) -> &str {
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

/// The skill index over all roots (first occurrence of a name wins).
pub fn index(cwd: &Path, home: &Path) -> Vec<SkillEntry> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for root in search_dirs(cwd, home) {
        for name in skill_names(cwd, &root) {
            if !seen.insert(name.clone()) {
                continue;
            }
            let text = crate::util::fsx::read_lossy(&root.join(&name).join("SKILL.md"));
            out.push(SkillEntry {
                summary: summary_of(&text),
                name,
            });
        }
    }
    out
}

/// The index as prompt lines: `- <name>` plus `: <summary>` when there is one.
pub fn index_text(entries: &[SkillEntry]) -> String {
    entries
        .iter()
        .map(|e| {
            if e.summary.is_empty() {
                format!("- {}", e.name)
            } else {
                format!("- {}: {}", e.name, e.summary)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Load skill `name` from the first root holding `<name>/SKILL.md`. Names with a path
/// separator or `..` are never found.
pub fn load(cwd: &Path, home: &Path, name: &str) -> Option<LoadedSkill> {
    let name = name.trim();
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return None;
    }
    for root in search_dirs(cwd, home) {
        let dir = root.join(name);
        let file = dir.join("SKILL.md");
        if !usable(cwd, &root, &file) {
            continue;
        }
        let bytes = std::fs::read(&file).ok()?;
        let text = String::from_utf8_lossy(&bytes);
        let dir_text = dir.to_string_lossy();
        // Claude Code's name for the same placeholder works too.
        let content = text
            .trim_end_matches('\n')
            .replace(SKILL_DIR_VAR, &dir_text)
            .replace("${CLAUDE_SKILL_DIR}", &dir_text);
        return Some(LoadedSkill {
            name: name.to_string(),
            dir,
            content,
        });
    }
    None
}

/// The message printed when a `--skill` cannot be found.
pub fn not_found_message(name: &str) -> String {
    format!(
        "Skill not found: {name} (expected .claude/skills/{name}/SKILL.md or ~/.claude/skills/{name}/SKILL.md)"
    )
}

static WARNED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// True the first time it is called for `name` in this process (warn once, not per request).
pub fn first_warning(name: &str) -> bool {
    let mut g = WARNED.lock().unwrap_or_else(|p| p.into_inner());
    g.get_or_insert_with(HashSet::new).insert(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn folded_descriptions_are_summaries() {
        assert_eq!(
            summary_of(
                "---\nname: d\ndescription: >-\n  Deploys the\n  service\nmodel: x\n---\nBody"
            ),
            "Deploys the service"
        );
        assert_eq!(summary_of("---\ndescription: \"Plain\"\n---\n"), "Plain");
    }

    fn skill(root: &Path, name: &str, body: &str) {
        fs::create_dir_all(root.join(name)).unwrap();
        fs::write(root.join(name).join("SKILL.md"), body).unwrap();
    }

    #[test]
    fn project_skills_do_not_link_out() {
        let d = tempfile::tempdir().unwrap();
        let cwd = std::fs::canonicalize(d.path()).unwrap().join("proj");
        let home = std::fs::canonicalize(d.path()).unwrap().join("home");
        let root = cwd.join("skills");
        fs::create_dir_all(root.join("pw")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("pw/SKILL.md")).unwrap();
        skill(&root, "ok", "description: fine");
        let h = home.join(".claude/skills");
        fs::create_dir_all(h.join("mine")).unwrap();
        fs::write(d.path().join("elsewhere.md"), "description: user's own").unwrap();
        std::os::unix::fs::symlink(d.path().join("elsewhere.md"), h.join("mine/SKILL.md")).unwrap();
        let names: Vec<String> = index(&cwd, &home).into_iter().map(|e| e.name).collect();
        assert_eq!(names, vec!["ok", "mine"]);
        assert!(load(&cwd, &home, "pw").is_none());
        assert!(load(&cwd, &home, "mine").is_some());
    }

    #[test]
    fn summaries() {
        assert_eq!(
            summary_of("---\nname: x\ndescription: \"Make PDFs\"\n---\n# T\nbody"),
            "Make PDFs"
        );
        assert_eq!(summary_of("# Title\n\n```\ncode\n```"), "code");
        assert_eq!(
            summary_of("---\n# Heading\n\n  First real line  \n"),
            "First real line"
        );
        assert_eq!(summary_of("description: 'q'"), "q");
        assert_eq!(summary_of(""), "");
    }

    #[test]
    fn index_order_and_shadowing() {
        let cwd = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let a = cwd.path().join(".claude/skills");
        let b = cwd.path().join("skills");
        let h = home.path().join(".claude/skills");
        skill(&a, "zeta", "description: first zeta");
        skill(&b, "zeta", "description: shadowed");
        skill(&b, "alpha", "Plain summary line");
        skill(&h, "beta", "# only heading");
        fs::create_dir_all(b.join("not-a-skill")).unwrap();
        let idx = index(cwd.path(), home.path());
        assert_eq!(
            index_text(&idx),
            "- zeta: first zeta\n- alpha: Plain summary line\n- beta"
        );
    }

    #[test]
    fn load_substitutes_dir() {
        let cwd = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let h = home.path().join(".claude/skills");
        skill(&h, "pdf", "Run ${BASH_AGENT_SKILL_DIR}/x.sh\n\n");
        let s = load(cwd.path(), home.path(), " pdf ").unwrap();
        assert_eq!(s.dir, h.join("pdf"));
        assert_eq!(s.content, format!("Run {}/x.sh", h.join("pdf").display()));
        assert!(load(cwd.path(), home.path(), "../pdf").is_none());
        assert!(load(cwd.path(), home.path(), "nope").is_none());
    }

    #[test]
    fn warn_once() {
        assert!(first_warning("unit-test-skill-x"));
        assert!(!first_warning("unit-test-skill-x"));
    }
}
