//! Project and global instruction files: in the agent home and in every folder from the git
//! root down to the working directory (outermost first), each folder's AGENTS.md (else
//! AGENT.md), CLAUDE.md (else .claude/CLAUDE.md) and CLAUDE.local.md, all of them. `@path`
//! imports in the CLAUDE files are resolved relative to the importing file, at most five
//! deep; an import that would revisit a file on its own chain is refused (skipped). A chain
//! that starts at a project file passes the guard of `imports.rs` at every step. Each
//! folder's `.claude/rules/**/*.md` follow its files (`rules.rs`; the user's
//! `~/.claude/rules` after the global files). A file that several names point at (a
//! `CLAUDE.md` that is a symlink to `AGENTS.md`) is loaded once, under its first name.
use super::imports::{self, Decision, Guard};
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

/// Every instruction file for this run, global first, then outermost to innermost. A
/// project file's imports pass the run's [`Guard`] (docs/prompt.md, "Instruction
/// imports"); a skipped one is warned about on stderr once.
pub fn collect(agent_home: &Path, home: &Path, pwd: &Path) -> Vec<Loaded> {
    let mut w = Walk {
        home,
        places: (pwd, agent_home),
        guard: std::cell::OnceCell::new(),
        undecided: None,
        seen: Default::default(),
    };
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    w.push_dir(&mut out, "global", agent_home);
    if !home.as_os_str().is_empty() {
        w.push_rules(
            &mut out,
            "global",
            &home.join(".claude/rules"),
            None,
            &mut warnings,
        );
    }
    let project = crate::settings::project_root(pwd);
    let project = std::fs::canonicalize(&project).unwrap_or(project);
    for d in chain(pwd) {
        w.push_dir(&mut out, "project", &d);
        let rules = d.join(".claude/rules");
        w.push_rules(&mut out, "project", &rules, Some(&project), &mut warnings);
    }
    for m in warnings {
        imports::warn_once(&m);
    }
    out
}

/// The project's imports from outside the project that nothing decided yet, as
/// (importing file, imported file): what start-up asks about on a terminal.
pub fn undecided(agent_home: &Path, home: &Path, pwd: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut w = Walk {
        home,
        places: (pwd, agent_home),
        guard: std::cell::OnceCell::new(),
        undecided: Some(Vec::new()),
        seen: Default::default(),
    };
    let mut out = Vec::new();
    for d in chain(pwd) {
        w.push_dir(&mut out, "project", &d);
    }
    w.undecided.unwrap_or_default()
}

/// One walk over the instruction files: the guard of project chains, and either warnings
/// for what it skips or (start-up) the list of what is still undecided.
struct Walk<'a> {
    home: &'a Path,
    /// The working directory and the agent home the guard is made of.
    places: (&'a Path, &'a Path),
    /// Made on the first import of a project file (most runs have none).
    guard: std::cell::OnceCell<Guard>,
    undecided: Option<Vec<(PathBuf, PathBuf)>>,
    /// The files loaded so far, by physical path: one file under two names goes in once.
    seen: std::collections::HashSet<PathBuf>,
}

impl Walk<'_> {
    fn push_dir(&mut self, out: &mut Vec<Loaded>, label: &'static str, dir: &Path) {
        let first = |names: &[&str]| names.iter().map(|n| dir.join(n)).find(|p| p.is_file());
        let files = [
            (first(&["AGENTS.md", "AGENT.md"]), false),
            (first(&["CLAUDE.md", ".claude/CLAUDE.md"]), true),
            (first(&["CLAUDE.local.md"]), true),
        ];
        for (f, imports) in files {
            let Some(path) = f else { continue };
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            if !self.seen.insert(real) {
                continue;
            }
            let text = if imports {
                self.with_imports(&path, &mut Vec::new(), 0, label == "project")
            } else {
                read_trimmed(&path)
            };
            if !text.is_empty() {
                out.push(Loaded { label, path, text });
            }
        }
    }

    /// The rules of one `.claude/rules` folder (`rules.rs`), each file once.
    fn push_rules(
        &mut self,
        out: &mut Vec<Loaded>,
        label: &'static str,
        dir: &Path,
        project: Option<&Path>,
        warnings: &mut Vec<String>,
    ) {
        if !dir.is_dir() {
            return;
        }
        // Path-scoped rules come with the first file they apply to (touched.rs).
        for r in super::rules::load(dir, project, warnings) {
            if !r.paths.is_empty() {
                continue;
            }
            let real = std::fs::canonicalize(&r.path).unwrap_or_else(|_| r.path.clone());
            if self.seen.insert(real) {
                out.push(Loaded {
                    label,
                    path: r.path,
                    text: r.text,
                });
            }
        }
    }

    /// A file's text followed by the text of each file it imports (`@path`), recursively.
    /// `restricted`: the chain started at a project file and has not entered a user file.
    fn with_imports(
        &mut self,
        path: &Path,
        stack: &mut Vec<PathBuf>,
        depth: usize,
        restricted: bool,
    ) -> String {
        let canon = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if stack.contains(&canon) {
            return String::new();
        }
        stack.push(canon);
        let mut text = read_trimmed(path);
        if depth < MAX_IMPORT_DEPTH {
            let base = path.parent().unwrap_or(Path::new("/"));
            for target in import_paths(&text, base, self.home) {
                let inner = if restricted {
                    let (pwd, agent_home) = self.places;
                    let guard = self
                        .guard
                        .get_or_init(|| Guard::new(pwd, agent_home, self.home));
                    match guard.decide(&target) {
                        Decision::Follow => true,
                        Decision::FollowAsUser => false,
                        Decision::Skip(why) => {
                            if self.undecided.is_none() {
                                imports::warn(path, &target, &why);
                            }
                            continue;
                        }
                        Decision::Undecided => {
                            match &mut self.undecided {
                                Some(list) => {
                                    if !list.iter().any(|(_, t)| *t == target) {
                                        list.push((path.to_path_buf(), target.clone()));
                                    }
                                }
                                None => imports::warn(
                                    path,
                                    &target,
                                    "it is outside the project and the user did not allow it",
                                ),
                            }
                            continue;
                        }
                    }
                } else {
                    false
                };
                let sub = self.with_imports(&target, stack, depth + 1, inner);
                if !sub.is_empty() {
                    text.push_str("\n\n");
                    text.push_str(&sub);
                }
            }
        }
        stack.pop();
        text
    }
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

    fn walk(r: &Path) -> Walk<'_> {
        Walk {
            home: r,
            places: (r, r),
            guard: std::cell::OnceCell::new(),
            undecided: None,
            seen: Default::default(),
        }
    }

    #[test]
    fn imports_resolve_relative_refuse_cycles_and_skip_code() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("docs")).unwrap();
        std::fs::write(r.join("CLAUDE.md"), "top @docs/a.md and `@docs/code.md`\n").unwrap();
        std::fs::write(r.join("docs/a.md"), "A @b.md\n").unwrap();
        std::fs::write(r.join("docs/b.md"), "B @a.md @../CLAUDE.md\n").unwrap();
        std::fs::write(r.join("docs/code.md"), "CODE\n").unwrap();
        let t = walk(r).with_imports(&r.join("CLAUDE.md"), &mut Vec::new(), 0, false);
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
        let t = walk(r).with_imports(&r.join("f0.md"), &mut Vec::new(), 0, false);
        assert!(t.contains("L5") && !t.contains("L6"), "{t}");
    }

    #[test]
    fn a_symlinked_claude_md_goes_in_once_and_rules_follow() {
        let d = tempfile::tempdir().unwrap();
        let r = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(r.join("home")).unwrap();
        std::fs::create_dir_all(r.join("p/.claude/rules")).unwrap();
        std::fs::write(r.join("p/AGENTS.md"), "Shared text\n").unwrap();
        std::os::unix::fs::symlink("AGENTS.md", r.join("p/CLAUDE.md")).unwrap();
        std::fs::write(r.join("p/.claude/rules/r.md"), "Rule text\n").unwrap();
        let got = collect(&r.join("home"), &r.join("home"), &r.join("p"));
        let texts: Vec<&str> = got.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, vec!["Shared text", "Rule text"]);
    }
}
