//! The system prompt (docs/prompt.md), rebuilt before every LLM call.
//!
//! Thirteen sections in a fixed order, each wrapped as `<tag>\n{content}\n</tag>` (or
//! `<tag name="…">`) and followed by `\n`; empty sections are left out and the final
//! newline is removed. The fixed prose lives in `prompt_text.rs`; everything here is the
//! dynamic part. Building is cheap: uname is read once per process, and the date and the git
//! state (one `git status`, git.rs) are taken once, at the first prompt.
pub mod git;
pub mod imports;
pub mod instructions;
pub mod rules;
mod text;
pub mod touched;

use crate::session::Session;
use crate::tools::skills;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use text as txt;

/// The process environment the prompt describes (injectable for tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Env {
    /// Locale cut at the first `.` (`zh_CN.UTF-8` → `zh_CN`).
    pub lang: String,
    /// Working directory (project dir for instruction files and skills).
    pub pwd: PathBuf,
    /// `$HOME` (may be empty); `~/.claude/skills` lives here.
    pub home: PathBuf,
    /// `uname -s` or `unknown`.
    pub platform: String,
    /// `$SHELL` or `unknown`.
    pub shell: String,
    /// Folder of the global instruction file: `${BASH_AGENT_HOME:-$HOME}/.bash-agent`.
    pub agent_home: PathBuf,
    /// Today's local date, `YYYY-MM-DD`, taken at the first prompt of the process ("": no
    /// `date:` line).
    pub date: String,
    /// The `<git-status>` section ([`git::snapshot`]), "" outside a repository.
    pub git: String,
}

impl Env {
    /// The real environment, with `cwd` as the working directory.
    pub fn current(cwd: &Path) -> Env {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Env {
            lang: locale_from(
                var("LC_ALL")
                    .or_else(|| var("LC_MESSAGES"))
                    .or_else(|| var("LANG"))
                    .as_deref(),
            ),
            pwd: cwd.to_path_buf(),
            home: var("HOME").map(PathBuf::from).unwrap_or_default(),
            platform: platform().to_string(),
            shell: var("SHELL").unwrap_or_else(|| "unknown".into()),
            agent_home: crate::session::paths::agent_home(),
            // Filled by `build` alone: the other users of the environment (instruction
            // files at start-up) must not pay for a git run.
            date: String::new(),
            git: String::new(),
        }
    }

    /// True for zh locales.
    pub fn chinese(&self) -> bool {
        self.lang.starts_with("zh")
    }
}

/// The local date at the first call of the process. Once per process, like the git state:
/// the system prompt stays the same from call to call, so the prompt cache holds.
fn today() -> &'static str {
    static D: OnceLock<String> = OnceLock::new();
    D.get_or_init(|| {
        let t = crate::util::time::local(crate::util::time::now_secs());
        format!("{:04}-{:02}-{:02}", t.year, t.mon, t.day)
    })
}

/// [`git::snapshot`] of the first folder asked for in this process (one agent, one folder).
fn git_state(cwd: &Path) -> &'static str {
    static G: OnceLock<String> = OnceLock::new();
    G.get_or_init(|| git::snapshot(cwd))
}

/// First non-empty of LC_ALL, LC_MESSAGES, LANG (else `en_US`), cut at the first `.`.
pub fn locale_from(raw: Option<&str>) -> String {
    let l = raw.filter(|s| !s.is_empty()).unwrap_or("en_US");
    l.split('.').next().unwrap_or(l).to_string() // ok: split yields at least one item
}

/// The kernel name (`uname -s`), read once per process; `unknown` on failure.
pub fn platform() -> &'static str {
    static P: OnceLock<String> = OnceLock::new();
    P.get_or_init(|| {
        // SAFETY: `uname` fills a zeroed struct we own; sysname is NUL-terminated.
        let mut u: libc::utsname = unsafe { std::mem::zeroed() };
        if unsafe { libc::uname(&mut u) } != 0 {
            return "unknown".into();
        }
        let s = unsafe { std::ffi::CStr::from_ptr(u.sysname.as_ptr()) };
        let s = s.to_string_lossy().into_owned();
        if s.is_empty() {
            "unknown".into()
        } else {
            s
        }
    })
}

/// Build the system prompt from the real environment.
pub fn build(session: &Session, cwd: &Path, skills: &[String], depth: u32) -> String {
    let mut env = Env::current(cwd);
    env.date = today().to_string();
    env.git = git_state(cwd).to_string();
    build_with(session, skills, depth, &env)
}

/// Build the system prompt for a given environment.
pub fn build_with(session: &Session, skills: &[String], depth: u32, env: &Env) -> String {
    let zh = env.chinese();
    let mut out = String::with_capacity(8192);
    let s = session;
    let draft = abs(&s.plan_draft());
    let plan = abs(&s.plan());

    section(
        &mut out,
        "agent-identity",
        None,
        if zh {
            txt::IDENTITY_ZH
        } else {
            txt::IDENTITY_EN
        },
    );
    let environment = format!(
        "lang: {}\npwd: {}\nhome: {}\nplatform: {}\nshell: {}",
        env.lang,
        env.pwd.display(),
        env.home.display(),
        env.platform,
        env.shell
    );
    let environment = match env.date.as_str() {
        "" => environment,
        date => format!("{environment}\ndate: {date}"),
    };
    section(&mut out, "environment", None, &environment);
    section(&mut out, "git-status", None, &env.git);
    section(&mut out, "rules", None, txt::RULES);
    section(&mut out, "using-your-tools", None, txt::USING_TOOLS);
    let sub = if depth >= 1 {
        txt::SUB_AGENT_CHILD
    } else {
        txt::SUB_AGENTS
    };
    section(&mut out, "sub-agent-guidance", None, sub);
    if depth == 0 {
        // Custom agents (.claude/agents): the names SubAgent's subagent_type takes.
        let base = env.agent_home.parent().unwrap_or(Path::new("/nonexistent"));
        let roots = crate::agent::custom::files::roots(&env.pwd, base, "agents");
        let agents = crate::agent::custom::agents::load(&roots);
        section(
            &mut out,
            "custom-agents",
            None,
            &crate::agent::custom::agents::index_text(&agents),
        );
    }
    section(&mut out, "todo-guidance", None, txt::TODOS);
    let plan_guidance = format!(
        "**Files**: PLAN_DRAFT_FILE: {} | PLAN_FILE: {}\n{}",
        path_or_unset(&draft),
        path_or_unset(&plan),
        txt::PLAN_BODY
    );
    section(&mut out, "plan-lifecycle-guidance", None, &plan_guidance);
    section(&mut out, "instruction-files", None, &instruction_files(env));
    let idx = if env.home.as_os_str().is_empty() {
        skills::index(&env.pwd, Path::new("/nonexistent"))
    } else {
        skills::index(&env.pwd, &env.home)
    };
    section(&mut out, "skill-index", None, &skills::index_text(&idx));
    section(
        &mut out,
        "selected-skills",
        None,
        &selected_skills(skills, env),
    );
    let plan_text = read_trimmed(&s.plan());
    let plan_name = plan.to_string_lossy();
    section(&mut out, "current-plan", Some(&plan_name), &plan_text);
    section(
        &mut out,
        "context-snapshot",
        None,
        &read_trimmed(&s.summary()),
    );
    section(
        &mut out,
        "output-language",
        None,
        if zh {
            txt::LANGUAGE_ZH
        } else {
            txt::LANGUAGE_EN
        },
    );
    if out.ends_with('\n') {
        out.pop();
    }
    out
}

/// Append one wrapped section (nothing when `content` is empty).
fn section(out: &mut String, tag: &str, name: Option<&str>, content: &str) {
    if content.is_empty() {
        return;
    }
    out.push_str(&open_tag(tag, name));
    out.push('\n');
    out.push_str(content);
    out.push_str("\n</");
    out.push_str(tag);
    out.push_str(">\n");
}

fn open_tag(tag: &str, name: Option<&str>) -> String {
    match name {
        None => format!("<{tag}>"),
        Some(n) => {
            let q = crate::util::jsonl::quote(n);
            format!("<{tag} name={q}>")
        }
    }
}

fn wrap(tag: &str, name: &str, content: &str) -> String {
    format!("{}\n{content}\n</{tag}>", open_tag(tag, Some(name)))
}

/// First existing instruction file of a directory.
pub fn instruction_file(dir: &Path) -> Option<PathBuf> {
    ["AGENTS.md", "AGENT.md", "CLAUDE.md", ".claude/CLAUDE.md"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

fn instruction_files(env: &Env) -> String {
    instructions::collect(&env.agent_home, &env.home, &env.pwd)
        .iter()
        .map(|f| wrap("instruction-file", f.label, &f.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The instruction files a run in `cwd` loads (`--verbose`, the stream-json `init` record).
pub fn loaded_instructions(cwd: &Path) -> Vec<PathBuf> {
    let env = Env::current(cwd);
    instructions::collect(&env.agent_home, &env.home, &env.pwd)
        .into_iter()
        .map(|f| f.path)
        .collect()
}

fn selected_skills(names: &[String], env: &Env) -> String {
    let mut parts = Vec::new();
    for name in names {
        match skills::load(&env.pwd, &env.home, name) {
            Some(sk) => {
                let body = format!("Base directory: {}\n\n{}", sk.dir.display(), sk.content);
                parts.push(wrap("skill", &sk.name, &body));
            }
            None => {
                if skills::first_warning(name) {
                    crate::util::say::err_line(&skills::not_found_message(name));
                }
            }
        }
    }
    parts.join("\n")
}

/// File contents with trailing newlines removed (missing → empty).
fn read_trimmed(p: &Path) -> String {
    let mut s = crate::util::fsx::read_lossy(p);
    while s.ends_with('\n') {
        s.pop();
    }
    s
}

fn abs(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

fn path_or_unset(p: &Path) -> String {
    if p.as_os_str().is_empty() {
        "<not set>".into()
    } else {
        p.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locale_cut() {
        assert_eq!(locale_from(Some("zh_CN.UTF-8")), "zh_CN");
        assert_eq!(locale_from(Some("C.UTF-8")), "C");
        assert_eq!(locale_from(Some("")), "en_US");
        assert_eq!(locale_from(None), "en_US");
    }

    #[test]
    fn wrapper_rules() {
        let mut s = String::new();
        section(&mut s, "a", None, "x");
        section(&mut s, "b", None, "");
        section(&mut s, "c", Some("/p \"q\""), "y\nz");
        assert_eq!(s, "<a>\nx\n</a>\n<c name=\"/p \\\"q\\\"\">\ny\nz\n</c>\n");
    }

    #[test]
    fn platform_is_cached_and_nonempty() {
        let p = platform();
        assert!(!p.is_empty());
        assert!(std::ptr::eq(p, platform()));
    }
}
