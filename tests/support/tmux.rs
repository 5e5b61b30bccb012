//! The terminal harness every tmux test uses: [`Tmux`] (one private tmux server per test,
//! keys, typing as a person does, screen captures, resizes), [`Run`] (the real binary inside
//! a tmux session, with its pid and exit code files) and the event reader.
use super::{Env, BIN};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    pub sock: PathBuf,
}

impl Tmux {
    /// The private tmux server of a test's temp folder.
    pub fn for_env(env: &Env) -> Tmux {
        Tmux {
            sock: env.dir.path().join("tmux.sock"),
        }
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
    pub fn type_text(&self, target: &str, text: &str) {
        for c in text.chars() {
            let before = self.cursor(target);
            self.keys(target, &["-l", &c.to_string()]);
            let t0 = Instant::now();
            while self.cursor(target) == before && t0.elapsed() < super::scaled(5) {
                std::thread::sleep(Duration::from_millis(2));
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
    pub fn last_line(&self, target: &str) -> String {
        self.screen(target).lines().last().unwrap_or("").to_string()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

pub fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: tmux missing, the interactive terminal test is skipped");
    }
    ok
}

/// Event lines parsed so far (a line being written is skipped).
pub fn read_events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
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
