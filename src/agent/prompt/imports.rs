//! Which `@path` imports of a project's instruction files are followed (docs/prompt.md,
//! "Instruction imports"). A cloned repository's CLAUDE.md is input, not the user: its
//! `@~/.aws/credentials` or `@/etc/passwd` would put those files into every request. So a
//! chain of imports that starts at a project file may reach:
//!
//! - files inside the project (physical paths: a symlink out of it is outside), except
//!   files that hold secrets (`.env`, keys: the Read tool refuses them too);
//! - in a trusted folder only: Markdown files in the user's own folders (`~/.bash-agent`,
//!   `~/.claude`; not their session stores and plans), whose own imports are then the
//!   user's and unrestricted;
//! - in a trusted folder only: anything else the user's own settings file allows
//!   (`"allowed_imports": ["~/notes/*.md"]`) or the person said yes to when asked once at
//!   start-up on a terminal.
//!
//! Everything else is skipped with a warning on stderr, once per file and process. The
//! user's own instruction files (the agent home's) import anything.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The user-settings key: paths or globs (`~/` is the home) a project may import.
pub const KEY: &str = "allowed_imports";

/// Answers given at start-up, by physical target.
static ANSWERS: Mutex<Option<HashMap<PathBuf, bool>>> = Mutex::new(None);
/// Targets already warned about.
static WARNED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
/// No warnings from this process (a sub-agent: its parent has warned).
static QUIET: AtomicBool = AtomicBool::new(false);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether the project's files may widen what the run does: the folder's trust decision
/// (docs/sandbox.md, "Trust"). An untrusted folder imports nothing from outside the project.
pub fn trusted(pwd: &Path) -> bool {
    crate::settings::trust::is_trusted(pwd)
}

/// What a project chain may do with one import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Follow it; its own imports stay under the project's rules.
    Follow,
    /// Follow it; it is the user's own file and its imports are unrestricted.
    FollowAsUser,
    /// Not followed; why (for the warning).
    Skip(String),
    /// Outside the project and not yet decided: a question may be asked at start-up.
    Undecided,
}

/// The places one run's imports are judged against.
#[derive(Debug, Clone)]
pub struct Guard {
    project: PathBuf,
    user_dirs: Vec<PathBuf>,
    /// Inside the user's folders but not the user's instructions: session stores, plans.
    stores: Vec<PathBuf>,
    home: PathBuf,
    allowed: Vec<String>,
    trusted: bool,
}

fn physical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

impl Guard {
    /// The guard of a run in `pwd`: `agent_home` is `<base>/.bash-agent`, `home` is `$HOME`.
    pub fn new(pwd: &Path, agent_home: &Path, home: &Path) -> Guard {
        let base = agent_home.parent().unwrap_or(Path::new("/"));
        let mut user_dirs = vec![physical(agent_home), physical(&base.join(".claude"))];
        if !home.as_os_str().is_empty() {
            for d in [home.join(".claude"), home.join(".bash-agent")] {
                let d = physical(&d);
                if !user_dirs.contains(&d) {
                    user_dirs.push(d);
                }
            }
        }
        let stores = user_dirs
            .iter()
            .flat_map(|d| [d.join("projects"), d.join("plans")])
            .collect();
        Guard {
            project: physical(&crate::settings::project_root(pwd)),
            user_dirs,
            stores,
            home: home.to_path_buf(),
            allowed: allowed_imports(agent_home),
            trusted: trusted(pwd),
        }
    }

    /// The decision for `target` (an existing file), named `@raw` in a project chain.
    pub fn decide(&self, target: &Path) -> Decision {
        let real = physical(target);
        let secret = crate::tools::policy::is_sensitive(&real.to_string_lossy())
            || crate::tools::policy::is_sensitive(&target.to_string_lossy());
        if real.starts_with(&self.project) {
            return if secret {
                Decision::Skip("it holds secrets (the Read tool refuses it too)".into())
            } else {
                Decision::Follow
            };
        }
        if !self.trusted {
            return Decision::Skip(
                "it is outside the project and this folder is not trusted".into(),
            );
        }
        let md = real.extension().is_some_and(|e| e == "md");
        if md
            && !secret
            && !self.stores.iter().any(|d| real.starts_with(d))
            && self.user_dirs.iter().any(|d| real.starts_with(d))
        {
            return Decision::FollowAsUser;
        }
        if self.allows(target) || self.allows(&real) {
            return Decision::Follow;
        }
        match lock(&ANSWERS).as_ref().and_then(|a| a.get(&real)) {
            Some(true) => Decision::Follow,
            Some(false) => Decision::Skip("it is outside the project and was refused".into()),
            None => Decision::Undecided,
        }
    }

    /// `allowed_imports` names the path: an entry without wildcards covers itself and
    /// everything under it; one with `*`, `?` or `[` is a glob (`**` crosses folders).
    fn allows(&self, p: &Path) -> bool {
        self.allowed.iter().any(|e| {
            let e = match e.strip_prefix("~/") {
                Some(rest) if !self.home.as_os_str().is_empty() => {
                    self.home.join(rest).to_string_lossy().into_owned()
                }
                _ => e.clone(),
            };
            if !e.starts_with('/') {
                return false;
            }
            if !e.contains(['*', '?', '[']) {
                return p.starts_with(Path::new(&e));
            }
            globset::GlobBuilder::new(&e)
                .literal_separator(true)
                .build()
                .is_ok_and(|g| g.compile_matcher().is_match(p))
        })
    }
}

/// `allowed_imports` of the user's own settings file (`<agent home>/settings.json`); a
/// project's settings cannot allow its own imports. A missing or malformed file allows
/// nothing (the settings loader reports a malformed one).
fn allowed_imports(agent_home: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(agent_home.join("settings.json")).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    v.get(KEY)
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str())
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Say once per target and process why an import was skipped.
pub fn warn(importer: &Path, target: &Path, why: &str) {
    if QUIET.load(Ordering::SeqCst) {
        return;
    }
    let real = physical(target);
    if !lock(&WARNED).get_or_insert_with(HashSet::new).insert(real) {
        return;
    }
    crate::util::say::err_line(&format!(
        "bash-agent: warning: {}: the import @{} was skipped: {why} (a path the user allows goes in \"{KEY}\" of ~/.bash-agent/settings.json)",
        importer.display(),
        target.display()
    ));
}

/// Say a warning about an instruction or rule file once per process (the prompt is built
/// more than once a run); nothing in a quiet process.
pub fn warn_once(message: &str) {
    if QUIET.load(Ordering::SeqCst) {
        return;
    }
    if lock(&WARNED)
        .get_or_insert_with(HashSet::new)
        .insert(PathBuf::from(message))
    {
        crate::util::say::err_line(&format!("bash-agent: warning: {message}"));
    }
}

/// This process warns about nothing (a sub-agent).
pub fn quiet() {
    QUIET.store(true, Ordering::SeqCst);
}

/// Record the person's answer for `target` (a no is not warned about again).
pub fn answer(target: &Path, yes: bool) {
    let real = physical(target);
    if !yes {
        lock(&WARNED)
            .get_or_insert_with(HashSet::new)
            .insert(real.clone());
    }
    lock(&ANSWERS)
        .get_or_insert_with(HashMap::new)
        .insert(real, yes);
}

/// Start-up with a person at a terminal, before the line editor takes it: ask once about
/// each of the project's imports from outside the project that nothing decided yet. (A
/// run that cannot ask skips them, with a warning when the prompt is built.)
pub fn ask_at_start(pwd: &Path) {
    let env = super::Env::current(pwd);
    let pending = super::instructions::undecided(&env.agent_home, &env.home, &env.pwd);
    use std::io::{BufRead, Write};
    for (importer, target) in pending {
        let mut out = std::io::stdout().lock();
        let _ = write!(
            out,
            "{} imports {}, outside the project.\nPut that file into the system prompt of this run? [y/N] ",
            importer.display(),
            target.display()
        );
        let _ = out.flush();
        drop(out);
        let mut line = String::new();
        let yes = std::io::stdin().lock().read_line(&mut line).is_ok()
            && matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes");
        answer(&target, yes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_user_and_outside_paths() {
        let d = tempfile::tempdir().unwrap();
        let r = physical(d.path());
        let proj = r.join("proj");
        let home = r.join("home");
        for p in [
            proj.join(".git"),
            proj.join("docs"),
            home.join(".bash-agent/projects/x"),
            home.join(".claude"),
            home.join("notes"),
            r.join("etc"),
        ] {
            std::fs::create_dir_all(p).unwrap();
        }
        let files = [
            proj.join("docs/a.md"),
            proj.join(".env"),
            home.join(".claude/style.md"),
            home.join(".claude/.credentials.json"),
            home.join(".bash-agent/projects/x/plan.md"),
            home.join("notes/n.md"),
            r.join("etc/passwd"),
        ];
        for f in &files {
            std::fs::write(f, "x").unwrap();
        }
        std::os::unix::fs::symlink(r.join("etc/passwd"), proj.join("docs/pw.md")).unwrap();
        std::fs::write(
            home.join(".bash-agent/settings.json"),
            r#"{"allowed_imports": ["~/notes/*.md"]}"#,
        )
        .unwrap();
        let g = Guard {
            trusted: true,
            ..Guard::new(&proj, &home.join(".bash-agent"), &home)
        };
        assert_eq!(g.decide(&files[0]), Decision::Follow);
        assert!(matches!(g.decide(&files[1]), Decision::Skip(_)));
        assert_eq!(g.decide(&files[2]), Decision::FollowAsUser);
        assert_eq!(g.decide(&files[3]), Decision::Undecided);
        assert_eq!(g.decide(&files[4]), Decision::Undecided);
        assert_eq!(g.decide(&files[5]), Decision::Follow);
        assert_eq!(g.decide(&files[6]), Decision::Undecided);
        assert_eq!(g.decide(&proj.join("docs/pw.md")), Decision::Undecided);
        answer(&files[6], false);
        assert!(matches!(g.decide(&files[6]), Decision::Skip(_)));
        let untrusted = Guard {
            trusted: false,
            ..g.clone()
        };
        assert!(matches!(untrusted.decide(&files[5]), Decision::Skip(_)));
        assert!(matches!(untrusted.decide(&files[2]), Decision::Skip(_)));
        assert_eq!(untrusted.decide(&files[0]), Decision::Follow);
    }
}
