//! `.claude/rules/**/*.md` as Claude Code loads them (docs/prompt.md, "Rules"): in the
//! user's `~/.claude/rules` and in every folder of the instruction chain (git root down to
//! the working directory), sub-folders included, read in path order. A rule without
//! `paths:` frontmatter is always on, like a CLAUDE.md (instructions.rs puts it in the
//! prompt). A rule with `paths:` (a glob or a list of globs) is path-scoped: as in Claude
//! Code it comes when the model touches a matching file (`touched.rs`). A project's rule
//! linked out of the project is skipped with a warning, as for commands.
use crate::agent::custom::{files, frontmatter};
use std::path::{Path, PathBuf};

/// One rule file: its path, its globs and its text (the body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub path: PathBuf,
    /// The globs of `paths:` (empty: always on).
    pub paths: Vec<String>,
    pub text: String,
}

/// The rules in `dir` (a `.claude/rules` folder); `project` bounds symlinks (None: the
/// user's own folder). Warnings go to stderr once per run by the caller.
pub fn load(dir: &Path, project: Option<&Path>, warnings: &mut Vec<String>) -> Vec<Rule> {
    let root = files::Root {
        dir: dir.to_path_buf(),
        user: project.is_none(),
        inside: project.map(Path::to_path_buf),
    };
    let listing = files::markdown_files(&root, true);
    warnings.extend(listing.warnings);
    let mut out = Vec::new();
    for rel in listing.files {
        let path = dir.join(rel);
        let raw = crate::util::fsx::read_lossy(&path);
        let p = frontmatter::parse(&raw);
        if let Some(w) = &p.warning {
            warnings.push(format!("{}: {w}", path.display()));
        }
        let paths: Vec<String> = p
            .get("paths")
            .map(|v| {
                crate::agent::custom::commands::split_list(v)
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let body = p.body.trim();
        if body.is_empty() {
            continue;
        }
        out.push(Rule {
            path,
            paths,
            text: body.to_string(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn always_on_and_path_scoped_rules() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path().join(".claude/rules");
        std::fs::create_dir_all(r.join("lang")).unwrap();
        std::fs::write(r.join("a.md"), "# Always\nBe brief.\n").unwrap();
        std::fs::write(
            r.join("lang/go.md"),
            "---\npaths:\n  - \"**/*.go\"\n  - go.mod\n---\nUse gofmt.\n",
        )
        .unwrap();
        std::fs::write(r.join("empty.md"), "---\npaths: x\n---\n\n").unwrap();
        let mut w = Vec::new();
        let rules = load(&r, None, &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].text, "# Always\nBe brief.");
        assert!(rules[0].paths.is_empty());
        assert_eq!(rules[1].paths, vec!["**/*.go", "go.mod"]);
        assert_eq!(rules[1].text, "Use gofmt.");
    }
}
