//! Project and global instruction files: in the agent home and in every folder from the git
//! root down to the working directory (outermost first), each folder's AGENTS.md (else
//! AGENT.md), CLAUDE.md (else .claude/CLAUDE.md) and CLAUDE.local.md, all of them. `@path`
//! imports in the CLAUDE files are resolved relative to the importing file, at most five
//! deep; an import that would revisit a file on its own chain is refused (skipped).
use std::path::{Path, PathBuf};

/// How deep `@path` imports may nest.
pub const MAX_IMPORT_DEPTH: usize = 5;

/// One loaded instruction file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// `global` (agent home) or `project`.
    pub label: &'static str,
    pub path: PathBuf,
    /// The file's text (trailing newlines removed) with its imports appended.
    pub text: String,
}

/// The folders from the git root above `pwd` down to `pwd`; just `pwd` outside a repository.
pub fn chain(pwd: &Path) -> Vec<PathBuf> {
    // The settings' walk to the git root, shared (made once per run).
    let root = crate::settings::project_root(pwd);
    let mut dirs: Vec<PathBuf> = pwd
        .ancestors()
        .take_while(|d| d.starts_with(&root))
        .map(Path::to_path_buf)
        .collect();
    dirs.reverse();
    dirs
}

/// Every instruction file for this run, global first, then outermost to innermost.
pub fn collect(agent_home: &Path, home: &Path, pwd: &Path) -> Vec<Loaded> {
    let mut out = Vec::new();
    push_dir(&mut out, "global", agent_home, home);
    for d in chain(pwd) {
        push_dir(&mut out, "project", &d, home);
    }
    out
}

fn push_dir(out: &mut Vec<Loaded>, label: &'static str, dir: &Path, home: &Path) {
    let first = |names: &[&str]| names.iter().map(|n| dir.join(n)).find(|p| p.is_file());
    let files = [
        (first(&["AGENTS.md", "AGENT.md"]), false),
        (first(&["CLAUDE.md", ".claude/CLAUDE.md"]), true),
        (first(&["CLAUDE.local.md"]), true),
    ];
    for (f, imports) in files {
        let Some(path) = f else { continue };
        let text = if imports {
            with_imports(&path, home, &mut Vec::new(), 0)
        } else {
            read_trimmed(&path)
        };
        if !text.is_empty() {
            out.push(Loaded { label, path, text });
        }
    }
}

/// A file's text followed by the text of each file it imports (`@path`), recursively.
fn with_imports(path: &Path, home: &Path, stack: &mut Vec<PathBuf>, depth: usize) -> String {
    let canon = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if stack.contains(&canon) {
        return String::new();
    }
    stack.push(canon);
    let mut text = read_trimmed(path);
    if depth < MAX_IMPORT_DEPTH {
        let base = path.parent().unwrap_or(Path::new("/"));
        for target in import_paths(&text, base, home) {
            let sub = with_imports(&target, home, stack, depth + 1);
            if !sub.is_empty() {
                text.push_str("\n\n");
                text.push_str(&sub);
            }
        }
    }
    stack.pop();
    text
}

/// The existing files named by `@path` tokens outside code (fences and backticks).
pub fn import_paths(text: &str, base: &Path, home: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        for (i, part) in line.split('`').enumerate() {
            in_code = i % 2 == 1;
            if in_code {
                continue;
            }
            for tok in part.split_whitespace() {
                let Some(raw) = tok.strip_prefix('@') else {
                    continue;
                };
                let raw = raw.trim_end_matches(['.', ',', ';', ':', ')']);
                if raw.is_empty() {
                    continue;
                }
                let p = if let Some(rest) = raw.strip_prefix("~/") {
                    home.join(rest)
                } else {
                    base.join(raw)
                };
                if p.is_file() && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        let _ = in_code;
    }
    out
}

fn read_trimmed(p: &Path) -> String {
    let mut s = crate::util::fsx::read_lossy(p);
    while s.ends_with('\n') {
        s.pop();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_resolve_relative_refuse_cycles_and_skip_code() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("docs")).unwrap();
        std::fs::write(r.join("CLAUDE.md"), "top @docs/a.md and `@docs/code.md`\n").unwrap();
        std::fs::write(r.join("docs/a.md"), "A @b.md\n").unwrap();
        std::fs::write(r.join("docs/b.md"), "B @a.md @../CLAUDE.md\n").unwrap();
        std::fs::write(r.join("docs/code.md"), "CODE\n").unwrap();
        let t = with_imports(&r.join("CLAUDE.md"), r, &mut Vec::new(), 0);
        assert_eq!(
            t,
            "top @docs/a.md and `@docs/code.md`\n\nA @b.md\n\nB @a.md @../CLAUDE.md"
        );
    }

    #[test]
    fn depth_is_capped() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for i in 0..8 {
            std::fs::write(r.join(format!("f{i}.md")), format!("L{i} @f{}.md\n", i + 1)).unwrap();
        }
        let t = with_imports(&r.join("f0.md"), r, &mut Vec::new(), 0);
        assert!(t.contains("L5") && !t.contains("L6"), "{t}");
    }
}
