//! The git state the system prompt shows (`<git-status>`): the branch and a short status of
//! the working folder, as Claude Code and Codex send them, so the model knows what is
//! uncommitted without a first `git status` call. Taken once per process (the first
//! prompt built), like the date: a prompt that changed after every edit would defeat the
//! prompt cache, and the model runs `git status` itself when it needs the present state.
//!
//! `git` runs in its own process group with a time limit, no input, the tools' scrubbed
//! environment (no keys), and the repository's fsmonitor hook switched off (a hook named in a repository's config is a command the
//! repository chooses). No git, no repository, or a slow one: no section.
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The status lines kept; the rest are counted.
pub const MAX_LINES: usize = 30;
/// The section's size cap in bytes (a line past it is counted, not cut).
pub const MAX_BYTES: usize = 2000;
/// git's time limit: a huge or networked work tree gives no section rather than a slow turn.
const TIMEOUT: Duration = Duration::from_secs(2);

/// The section's text for the folder `cwd`, or "" outside a repository.
pub fn snapshot(cwd: &Path) -> String {
    if !in_work_tree(cwd) {
        return String::new();
    }
    run(cwd).map(|out| format(&out)).unwrap_or_default()
}

/// A `.git` in `cwd` or a folder above it (or `GIT_DIR` set): only then is git started, so
/// a run outside any repository pays no process start (about a millisecond) for nothing.
fn in_work_tree(cwd: &Path) -> bool {
    std::env::var_os("GIT_DIR").is_some() || cwd.ancestors().any(|d| d.join(".git").exists())
}

/// `git status --porcelain=v1 --branch` run in `cwd`; its stdout on success.
fn run(cwd: &Path) -> Option<String> {
    let mut cmd = Command::new("git");
    // The tools' scrubbed environment: no API key reaches git or what its config runs.
    crate::sandbox::env::apply(&mut cmd);
    let mut child = cmd
        .arg("-C")
        .arg(cwd)
        .args([
            "--no-optional-locks",
            "-c",
            "core.fsmonitor=false",
            "status",
            "--porcelain=v1",
            "--branch",
            "--untracked-files=normal",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    let mut out = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = (&mut out).take(1 << 20).read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + TIMEOUT;
    let ok = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s.success(),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(child.id() as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
                let _ = child.wait();
                break false;
            }
        }
    };
    let buf = reader.join().ok()?;
    ok.then(|| String::from_utf8_lossy(&buf).into_owned())
}

/// The section from git's porcelain output: `branch: NAME` (with its upstream and
/// ahead/behind as git words them), then `status:` and at most [`MAX_LINES`] lines within
/// [`MAX_BYTES`], the rest counted; `status: clean` when nothing changed.
pub fn format(porcelain: &str) -> String {
    let mut lines = porcelain.lines();
    let mut out = String::new();
    let rest: Vec<&str> = match lines.next() {
        Some(head) if head.starts_with("## ") => {
            out.push_str(&branch_line(&head[3..]));
            lines.filter(|l| !l.is_empty()).collect()
        }
        Some(first) => std::iter::once(first)
            .chain(lines)
            .filter(|l| !l.is_empty())
            .collect(),
        None => Vec::new(),
    };
    if rest.is_empty() {
        out.push_str("status: clean");
        return out;
    }
    out.push_str("status:");
    let mut shown = 0;
    for l in &rest {
        let clean = printable(l);
        if shown == MAX_LINES || out.len() + clean.len() + 1 > MAX_BYTES {
            break;
        }
        out.push('\n');
        out.push_str(&clean);
        shown += 1;
    }
    if shown < rest.len() {
        out.push_str(&format!(
            "\n({} more; run `git status` for the whole list)",
            rest.len() - shown
        ));
    }
    out
}

/// `main...origin/main [ahead 1]` → `branch: main (origin/main, ahead 1)`;
/// `No commits yet on main` and `HEAD (no branch)` as git says them.
fn branch_line(head: &str) -> String {
    let head = printable(head);
    let (name, extra) = match head.split_once("...") {
        Some((name, rest)) => {
            let (up, track) = match rest.split_once(" [") {
                Some((up, t)) => (up, Some(t.trim_end_matches(']'))),
                None => (rest, None),
            };
            let extra = match track {
                Some(t) => format!(" ({up}, {t})"),
                None => format!(" ({up})"),
            };
            (name.to_string(), extra)
        }
        None => (head.clone(), String::new()),
    };
    format!("branch: {name}{extra}\n")
}

/// Control characters as `\u{..}` (git quotes odd file names itself; this is a second guard
/// for what reaches the prompt and any screen that shows it).
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_and_status_are_shown_and_capped() {
        assert_eq!(
            format("## main...origin/main [ahead 1]\n M src/a.rs\n?? new.txt\n"),
            "branch: main (origin/main, ahead 1)\nstatus:\n M src/a.rs\n?? new.txt"
        );
        assert_eq!(format("## main\n"), "branch: main\nstatus: clean");
        assert_eq!(
            format("## No commits yet on main\n"),
            "branch: No commits yet on main\nstatus: clean"
        );
        let many: String = (0..100).map(|i| format!("?? f{i}\n")).collect();
        let s = format(&format!("## dev\n{many}"));
        assert_eq!(s.lines().count(), 2 + MAX_LINES + 1, "{s}");
        assert!(s.ends_with("(70 more; run `git status` for the whole list)"));
        let long: String = (0..10)
            .map(|i| format!("?? {i}{}\n", "x".repeat(500)))
            .collect();
        let s = format(&format!("## dev\n{long}"));
        assert!(s.len() <= MAX_BYTES + 60, "{}", s.len());
        assert!(s.contains("more; run `git status`"));
        // A file name with an escape sequence is shown escaped, not played.
        assert!(!format("## main\n?? a\x1b[2Jb\n").contains('\x1b'));
    }
}
