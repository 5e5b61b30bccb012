//! The terminal harness every tmux test uses: [`Tmux`] (one private tmux server per test,
//! keys, typing as a person does, screen captures, resizes), [`Run`] (the real binary inside
//! a tmux session, with its pid and exit code files) and the event reader.
use super::{Env, BIN};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A test's own tmux server (`-S` socket in a temp folder of its own), ended on drop.
///
/// The socket lives in the handle's own folder, not the test's [`Env`] folder: a struct that
/// holds both drops its fields in declaration order, and an `Env` dropped first used to take
/// the socket with it, so `kill-server` found no server and the server (with a live
/// `bash-agent -i` in its pane) outlived the test.
pub struct Tmux {
    pub sock: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmux {
    /// A private tmux server (started by the first `new-session`).
    pub fn new() -> Tmux {
        let dir = tempfile::Builder::new()
            .prefix("tmux")
            .tempdir()
            .expect("tmux temp dir");
        Tmux {
            sock: dir.path().join("s"),
            _dir: dir,
        }
    }

    /// The private tmux server of a test (the `Env` is not used: see [`Tmux`]).
    pub fn for_env(_env: &Env) -> Tmux {
        Tmux::new()
    }

    /// What a failed wait shows: the window's screen and how many requests the model had.
    pub fn diag(&self, target: &str, mock: &super::Mock) -> String {
        format!(
            "screen:\n{}\nrequests: {}",
            self.screen(target),
            mock.requests().len()
        )
    }

    pub fn run(&self, args: &[&str]) -> String {
        // The pane command runs under `default-shell -c`: make it a POSIX shell.
        let o = Command::new("tmux")
            .env("SHELL", "/bin/sh")
            .arg("-f")
            .arg("/dev/null")
            .arg("-S")
            .arg(&self.sock)
            .args(args)
            .output()
            .expect("tmux");
        String::from_utf8_lossy(&o.stdout).into_owned()
    }
    pub fn keys(&self, target: &str, keys: &[&str]) {
        let mut a = vec!["send-keys", "-t", target];
        a.extend_from_slice(keys);
        self.run(&a);
    }
    pub fn cursor(&self, target: &str) -> String {
        self.run(&[
            "display-message",
            "-p",
            "-t",
            target,
            "#{cursor_x},#{cursor_y}",
        ])
    }
    /// Type `text` one key per write, each after the cursor moved (as a person types).
    ///
    /// A key that moved nothing on screen (cursor and last line unchanged) in 5 s (scaled
    /// for load) is typed once more, while a key on its way to the screen would long have
    /// arrived: under load the first key typed at the prompt of the agent `/model` had just
    /// restarted was lost (the new line editor starts with a cursor-position query to the
    /// terminal, whose reply a key typed then can be mistaken for).
    pub fn type_text(&self, target: &str, text: &str) {
        for c in text.chars() {
            for _attempt in 0..2 {
                let before = (self.cursor(target), self.last_line(target));
                self.keys(target, &["-l", &c.to_string()]);
                let t0 = Instant::now();
                let mut moved = false;
                while t0.elapsed() < super::scaled(5) {
                    if self.cursor(target) != before.0 {
                        moved = true;
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                if moved || self.last_line(target) != before.1 {
                    break;
                }
            }
        }
    }
    /// The whole pane, scrollback included, wrapped lines joined, trailing blanks cut.
    pub fn screen(&self, target: &str) -> String {
        let s = self.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", target]);
        s.lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n")
            .trim_end()
            .to_string()
    }
    /// The last non-blank line of the pane (the prompt line while the editor runs).
    ///
    /// The bare prompt (`>`) is there while a turn runs too (input typed then is queued):
    /// it says that the line editor is empty, not that the turn ended; for that, see
    /// [`Tmux::wait_turn_end`].
    pub fn last_line(&self, target: &str) -> String {
        self.screen(target).lines().last().unwrap_or("").to_string()
    }

    /// The idle prompt: the bare `>` on the last line and no turn status line ("… esc to
    /// interrupt") right above it. On a dumb terminal the editor does not draw the prompt
    /// again after an answer, so a last line that is no prompt line counts when it is no
    /// status line (while a turn runs on a real terminal the last line is the prompt).
    pub fn idle_prompt(&self, target: &str) -> bool {
        let s = self.screen(target);
        let mut rows = s.lines().rev();
        let last = rows.next().unwrap_or("");
        let live = |l: &str| l.contains("esc to interrupt");
        if last.starts_with('>') {
            last == ">" && !rows.next().is_some_and(live)
        } else {
            !live(last)
        }
    }

    /// Wait (30 s, scaled for load) until the turn that runs, or just ran, in `target` has
    /// ended: no `agent_running.flag` in any session folder of `project` (a turn writes its
    /// flag before its first request and removes it after its last output and its status
    /// line) and the idle prompt on screen. Call it after a sign that the turn began (its
    /// answer on screen, its request recorded); then the screen reads as the turn left it,
    /// and a line typed next starts a new turn instead of being queued.
    pub fn wait_turn_end(&self, target: &str, project: &Path, diag: impl Fn() -> String) {
        super::wait_until_or(
            "the end of the turn (no agent_running.flag, the idle prompt)",
            30,
            || !turn_running(project) && self.idle_prompt(target),
            diag,
        );
    }

    /// After a restart (`/model`, `/new`, `/clear`): the new run's editor is up. Keys typed
    /// during the restart are kept (ui::handoff, tested on their own in interactive_slash);
    /// tests that check something else wait for the editor so each line starts on a
    /// prompt of its own. A probe key is typed, at most once a second, until it shows on the prompt line; then
    /// the line is cleared (Ctrl+U) and the bare prompt waited for (30 s, scaled).
    pub fn wait_editor(&self, target: &str) {
        let mut typed: Option<std::time::Instant> = None;
        super::wait_until_or(
            "the restarted editor",
            30,
            || {
                if self.last_line(target).starts_with("> z") {
                    return true;
                }
                if typed.is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(1)) {
                    self.keys(target, &["z"]);
                    typed = Some(std::time::Instant::now());
                }
                false
            },
            || self.screen(target),
        );
        self.keys(target, &["C-u"]);
        super::wait_until_or(
            "the cleared prompt",
            30,
            || self.last_line(target) == ">",
            || self.screen(target),
        );
    }
}

/// Whether a session folder of `project` holds an `agent_running.flag`.
pub fn turn_running(project: &Path) -> bool {
    std::fs::read_dir(project).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.path().join("agent_running.flag").exists())
    })
}

impl Drop for Tmux {
    /// Ends the server and everything its panes started, on success and on panic alike:
    /// `kill-server` hangs up every pane (the agent exits on SIGHUP); a pane's process group
    /// still there after the wait (a program that ignores the hangup) is killed, and so is
    /// the server if it outlived its `kill-server`.
    fn drop(&mut self) {
        let listing = self.run(&["list-panes", "-a", "-F", "#{pid} #{pane_pid}"]);
        let mut server = None;
        let mut groups = Vec::new();
        for l in listing.lines() {
            let mut w = l.split_whitespace().filter_map(|x| x.parse::<i32>().ok());
            if let (Some(s), Some(p)) = (w.next(), w.next()) {
                server = Some(s);
                groups.push(p); // a pane's process leads its own session and group
            }
        }
        self.run(&["kill-server"]);
        let gone = |g: &i32| !group_alive(*g);
        super::wait_for(5, || groups.iter().all(gone));
        for g in groups.iter().filter(|g| !gone(g)) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(*g),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        if let Some(s) = server.filter(|s| alive(*s)) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(s),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// Whether tmux runs here; when not, the test is reported skipped (see `support::skip`).
pub fn have_tmux() -> bool {
    super::skip::have_tool("tmux", &["-V"])
}

/// Event lines parsed so far (a line being written is skipped).
pub fn read_events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Whether a process of group `pgid` still runs (zombies, which a signal cannot end, aside).
pub fn group_alive(pgid: i32) -> bool {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return false;
    };
    rd.flatten().any(|e| {
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let mut f = rest.split_whitespace();
        let state = f.next();
        let pgrp = f.nth(1).and_then(|x| x.parse::<i32>().ok());
        pgrp == Some(pgid) && state != Some("Z")
    })
}

pub fn alive(pid: i32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// One run of the real binary inside tmux session `name`: its pid and exit code files.
pub struct Run {
    pub name: String,
    pid_file: PathBuf,
    rc_file: PathBuf,
}

impl Run {
    pub fn start(t: &Tmux, env: &Env, name: &str, url: &str) -> Run {
        Run::start_with(t, env, name, url, "NO_COLOR=1 TERM=xterm-256color", "")
    }
    /// `vars`: extra environment (`NO_COLOR=1 TERM=…`); `args`: extra flags (shell words).
    pub fn start_with(t: &Tmux, env: &Env, name: &str, url: &str, vars: &str, args: &str) -> Run {
        Run::start_opts(t, env, name, url, vars, args, false)
    }
    /// [`Run::start_with`]; `hangup_proof`: the pane's shell ignores SIGHUP, so it still
    /// writes the exit code after the test closes the terminal (the agent installs its own
    /// SIGHUP handler, which replaces the inherited "ignore").
    pub fn start_opts(
        t: &Tmux,
        env: &Env,
        name: &str,
        url: &str,
        vars: &str,
        args: &str,
        hangup_proof: bool,
    ) -> Run {
        let tmp = env.dir.path();
        let pid_file = tmp.join(format!("{name}.pid"));
        let rc_file = tmp.join(format!("{name}.rc"));
        let script = tmp.join(format!("{name}.sh"));
        // `exec` keeps the pid written by the shell: it becomes the agent's.
        std::fs::write(
            &script,
            format!(
                "cd '{cwd}' || exit 97\necho $$ > '{pid}'\nexec env -i PATH='{path}' \
                 HOME='{home}' BASH_AGENT_HOME='{home}' {vars} \
                 LANG=C.UTF-8 BASH_AGENT_RETRY_BASE_MS=20 '{bin}' -i --session s \
                 --base-url '{url}' --api-key k {args}\n",
                cwd = env.cwd.display(),
                pid = pid_file.display(),
                path = std::env::var("PATH").unwrap_or_default(),
                home = env.home.display(),
                bin = BIN,
            ),
        )
        .expect("script");
        let cmd = if hangup_proof {
            format!(
                "trap '' HUP; sh '{}'; echo $? > '{}'",
                script.display(),
                rc_file.display()
            )
        } else {
            format!(
                "sh '{}'; echo $? > '{}'; sleep 120",
                script.display(),
                rc_file.display()
            )
        };
        t.run(&[
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "100",
            "-y",
            "40",
            &cmd,
        ]);
        Run {
            name: name.to_string(),
            pid_file,
            rc_file,
        }
    }
    pub fn pid(&self) -> Option<i32> {
        std::fs::read_to_string(&self.pid_file)
            .ok()?
            .trim()
            .parse()
            .ok()
    }
    pub fn rc(&self) -> Option<String> {
        let s = std::fs::read_to_string(&self.rc_file).ok()?;
        s.ends_with('\n').then(|| s.trim().to_string())
    }
}

impl Tmux {
    /// The visible pane only, as shown (wrapped rows apart).
    pub fn visible(&self, target: &str) -> String {
        self.run(&["capture-pane", "-p", "-t", target])
    }
    /// Resize the window of `target` (the program gets SIGWINCH).
    pub fn resize(&self, target: &str, cols: u16, rows: u16) {
        self.run(&[
            "resize-window",
            "-t",
            target,
            "-x",
            &cols.to_string(),
            "-y",
            &rows.to_string(),
        ]);
    }
}
