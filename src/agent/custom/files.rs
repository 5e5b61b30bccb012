//! Where command and agent files are found (docs/custom-commands.md): the project's
//! `.claude/<kind>` and `.bash-agent/<kind>`, then the user's `~/.claude/<kind>` and
//! `~/.bash-agent/<kind>`, where `~` is `${BASH_AGENT_HOME:-$HOME}` like every other
//! user folder of the agent. The first folder holding a name wins.
use std::path::{Path, PathBuf};

/// One search folder and whether it is the project's or the user's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub dir: PathBuf,
    pub user: bool,
}

/// The folders of `kind` (`commands`, `agents`) for a run in `cwd`, in lookup order;
/// `base` is `${BASH_AGENT_HOME:-$HOME}`. A folder listed twice (cwd = base) is kept once.
pub fn roots(cwd: &Path, base: &Path, kind: &str) -> Vec<Root> {
    let mut out: Vec<Root> = Vec::new();
    for (dir, user) in [
        (cwd.join(".claude").join(kind), false),
        (cwd.join(".bash-agent").join(kind), false),
        (base.join(".claude").join(kind), true),
        (base.join(".bash-agent").join(kind), true),
    ] {
        if !out.iter().any(|r| r.dir == dir) {
            out.push(Root { dir, user });
        }
    }
    out
}

/// The real roots of `kind` for `cwd`.
pub fn roots_here(cwd: &Path, kind: &str) -> Vec<Root> {
    roots(cwd, &crate::session::paths::base_home(), kind)
}

/// `*.md` files under `dir` (into sub-folders when `deep`), as paths relative to `dir`,
/// sorted; hidden entries are skipped. A missing folder has none.
pub fn markdown_files(dir: &Path, deep: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, Path::new(""), deep, 0, &mut out);
    out.sort();
    out
}

fn walk(dir: &Path, rel: &Path, deep: bool, level: usize, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir.join(rel)) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name();
        let n = name.to_string_lossy();
        if n.starts_with('.') {
            continue;
        }
        let p = rel.join(&name);
        let Ok(ft) = std::fs::metadata(dir.join(&p)).map(|m| m.file_type()) else {
            continue;
        };
        if ft.is_dir() && deep && level < 8 {
            walk(dir, &p, deep, level + 1, out);
        } else if ft.is_file() && n.ends_with(".md") {
            out.push(p);
        }
    }
}

/// A name part (file stem or folder) usable in a command or agent name: letters, digits,
/// `-` and `_`, starting with a letter or digit.
pub fn valid_part(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The first line of `body` that is not empty (a heading's `#` removed), cut to 80 chars.
pub fn first_line(body: &str) -> String {
    let l = body
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("");
    if l.chars().count() > 80 {
        format!("{}…", l.chars().take(79).collect::<String>())
    } else {
        l.to_string()
    }
}
