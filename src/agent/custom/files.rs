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
    /// A project folder's project (physical): symlinks are followed only to paths inside
    /// it. None for the user's folders, whose links are the user's own.
    pub inside: Option<PathBuf>,
}

/// The folders of `kind` (`commands`, `agents`) for a run in `cwd`, in lookup order;
/// `base` is `${BASH_AGENT_HOME:-$HOME}`. A folder listed twice (cwd = base) is kept once.
pub fn roots(cwd: &Path, base: &Path, kind: &str) -> Vec<Root> {
    let project = crate::settings::project_root(cwd);
    let project = std::fs::canonicalize(&project).unwrap_or(project);
    let mut out: Vec<Root> = Vec::new();
    for (dir, user) in [
        (cwd.join(".claude").join(kind), false),
        (cwd.join(".bash-agent").join(kind), false),
        (base.join(".claude").join(kind), true),
        (base.join(".bash-agent").join(kind), true),
    ] {
        if !out.iter().any(|r| r.dir == dir) {
            let inside = (!user).then(|| project.clone());
            out.push(Root { dir, user, inside });
        }
    }
    out
}

/// The real roots of `kind` for `cwd`.
pub fn roots_here(cwd: &Path, kind: &str) -> Vec<Root> {
    roots(cwd, &crate::session::paths::base_home(), kind)
}

/// Entries looked at in one folder tree at most: a tree of symlink loops or a huge folder
/// cannot hold start-up (each folder is entered once anyway).
const MAX_ENTRIES: usize = 10_000;

/// The `*.md` files of a root and what was skipped on the way.
#[derive(Debug, Default)]
pub struct Listing {
    /// Paths relative to the root's folder, sorted.
    pub files: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// `*.md` files under `root` (into sub-folders when `deep`), as paths relative to its
/// folder, sorted; hidden entries are skipped. A missing folder has none. A symlink is
/// followed only when its target is inside `root.inside` (a project's link to
/// `/etc/passwd` or `~/.ssh` is skipped with a warning), and every folder is entered once
/// by its physical path, so links back to a folder (`lN -> .`) end the walk there.
pub fn markdown_files(root: &Root, deep: bool) -> Listing {
    let mut w = Walk {
        root,
        deep,
        seen: std::collections::HashSet::new(),
        left: MAX_ENTRIES,
        out: Listing::default(),
    };
    if let Ok(real) = std::fs::canonicalize(&root.dir) {
        if w.outside(&real) {
            w.out.warnings.push(format!(
                "{}: skipped: the folder is a symlink to {}, outside the project",
                root.dir.display(),
                real.display()
            ));
            return w.out;
        }
        w.seen.insert(real);
        w.walk(Path::new(""), 0);
    }
    w.out.files.sort();
    w.out
}

struct Walk<'a> {
    root: &'a Root,
    deep: bool,
    /// Physical folders entered so far.
    seen: std::collections::HashSet<PathBuf>,
    left: usize,
    out: Listing,
}

impl Walk<'_> {
    fn outside(&self, real: &Path) -> bool {
        self.root
            .inside
            .as_ref()
            .is_some_and(|p| !real.starts_with(p))
    }

    fn walk(&mut self, rel: &Path, level: usize) {
        let Ok(rd) = std::fs::read_dir(self.root.dir.join(rel)) else {
            return;
        };
        for e in rd.flatten() {
            if self.left == 0 {
                self.out.warnings.push(format!(
                    "{}: only the first {MAX_ENTRIES} entries were read",
                    self.root.dir.display()
                ));
                return;
            }
            self.left -= 1;
            let name = e.file_name();
            let n = name.to_string_lossy();
            if n.starts_with('.') {
                continue;
            }
            let p = rel.join(&name);
            let full = self.root.dir.join(&p);
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_symlink() {
                match std::fs::canonicalize(&full) {
                    Ok(real) if self.outside(&real) => {
                        self.out.warnings.push(format!(
                            "{}: skipped: a symlink to {}, outside the project",
                            full.display(),
                            real.display()
                        ));
                        continue;
                    }
                    // A project's link to its own `.env` or key: the Read tool refuses
                    // those files, a command must not send them either.
                    Ok(real)
                        if self.root.inside.is_some()
                            && crate::tools::policy::is_sensitive(&real.to_string_lossy()) =>
                    {
                        self.out.warnings.push(format!(
                            "{}: skipped: a symlink to {}, a file that holds secrets",
                            full.display(),
                            real.display()
                        ));
                        continue;
                    }
                    Ok(_) => {}
                    Err(_) => continue, // dangling, or a loop the kernel gave up on
                }
            }
            let Ok(meta) = std::fs::metadata(&full) else {
                continue;
            };
            if meta.is_dir() && self.deep && level < 8 {
                let Ok(real) = std::fs::canonicalize(&full) else {
                    continue;
                };
                if self.seen.insert(real) {
                    self.walk(&p, level + 1);
                }
            } else if meta.is_file() && n.ends_with(".md") {
                self.out.files.push(p);
            }
        }
    }
}

/// The files already read, by physical path: a file that several names (symlinks, a
/// folder linked into another) point at is read once, under the first name found.
#[derive(Debug, Default)]
pub struct Seen(std::collections::HashSet<PathBuf>);

impl Seen {
    /// True the first time the file behind `path` is met.
    pub fn first(&mut self, path: &Path) -> bool {
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.0.insert(real)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn symlinks_stay_in_the_project_and_loops_end() {
        let d = tempfile::tempdir().unwrap();
        let proj = std::fs::canonicalize(d.path()).unwrap().join("proj");
        let cmds = proj.join(".claude/commands");
        std::fs::create_dir_all(&cmds).unwrap();
        std::fs::create_dir_all(proj.join(".git")).unwrap();
        std::fs::write(cmds.join("ok.md"), "ok").unwrap();
        std::fs::write(proj.join("notes.md"), "notes").unwrap();
        std::fs::write(proj.join(".env"), "KEY=1").unwrap();
        symlink("/etc/passwd", cmds.join("pw.md")).unwrap();
        symlink("../../notes.md", cmds.join("notes.md")).unwrap();
        symlink("../../.env", cmds.join("env.md")).unwrap();
        for i in 0..5 {
            symlink(".", cmds.join(format!("l{i}"))).unwrap();
        }
        let home = d.path().join("home");
        let user_cmds = home.join(".claude/commands");
        std::fs::create_dir_all(&user_cmds).unwrap();
        std::fs::write(d.path().join("elsewhere.md"), "mine").unwrap();
        symlink(d.path().join("elsewhere.md"), user_cmds.join("mine.md")).unwrap();
        let rs = roots(&proj, &home, "commands");
        let t0 = std::time::Instant::now();
        let l = markdown_files(&rs[0], true);
        assert!(t0.elapsed().as_secs() < 5, "{:?}", t0.elapsed());
        assert_eq!(
            l.files,
            vec![PathBuf::from("notes.md"), PathBuf::from("ok.md")]
        );
        let w = l.warnings.join("\n");
        assert!(
            w.contains("pw.md: skipped: a symlink to /etc/passwd, outside the project"),
            "{w}"
        );
        assert!(w.contains("env.md: skipped: a symlink to"), "{w}");
        assert_eq!(l.warnings.len(), 2, "{w}");
        // The user's own folder: its links are followed wherever they go.
        let u = markdown_files(&rs[2], true);
        assert_eq!(u.files, vec![PathBuf::from("mine.md")]);
        // A project folder that is itself a link out of the project.
        let other = proj.join("sub");
        std::fs::create_dir_all(other.join(".claude")).unwrap();
        symlink("/etc", other.join(".claude/agents")).unwrap();
        let r = roots(&other, &home, "agents");
        let l = markdown_files(&r[0], false);
        assert!(l.files.is_empty());
        assert!(
            l.warnings[0].contains("the folder is a symlink to /etc"),
            "{:?}",
            l.warnings
        );
    }
}
