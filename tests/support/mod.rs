//! What every integration-test target shares: [`Env`] (a temp `BASH_AGENT_HOME` and project
//! folder, and the binary run there with a clean environment), [`Mock`] (the binary's
//! scripted model server, `bash-agent mock-server`, as a child process) and [`wait_until`]
//! (poll a condition, bounded; tests never sleep for a fixed time). A test that cannot run
//! here says so with [`skip::skip`]. Topic helpers live in the submodules.
#![allow(dead_code)]
pub mod checks;
pub mod compact;
pub mod hook_scripts;
pub mod ipc;
pub mod listen;
pub mod oauth_server;
pub mod official;
pub mod provider;
pub mod skip;
pub mod term;
pub mod tmux;
pub mod tools;

use bash_agent::session::paths::project_key;
use bash_agent::session::Session;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_bash-agent");

/// A temp folder holding `home/` (the `BASH_AGENT_HOME` and `HOME` of every run) and `proj/`
/// (the default working directory), both physical paths.
pub struct Env {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub cwd: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let home = root.join("home");
        let cwd = root.join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        Env { dir, home, cwd }
    }

    /// Another working directory (another project), created.
    pub fn other_cwd(&self, name: &str) -> PathBuf {
        let p = self.cwd.parent().unwrap().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    pub fn projects_root(&self) -> PathBuf {
        self.home.join(".bash-agent").join("projects")
    }

    /// The project folder for `cwd` (same algorithm as the binary).
    pub fn project_dir_for(&self, cwd: &Path) -> PathBuf {
        self.projects_root().join(project_key(cwd))
    }

    pub fn project_dir(&self) -> PathBuf {
        self.project_dir_for(&self.cwd)
    }

    pub fn session_dir(&self, id: &str) -> PathBuf {
        self.project_dir().join(id)
    }

    /// A session folder (created) in the project of `cwd`.
    pub fn session_in(&self, cwd: &Path, id: &str) -> Session {
        let s = Session::new(&self.project_dir_for(cwd), id);
        s.create_dir().unwrap();
        s
    }

    pub fn session(&self, id: &str) -> Session {
        self.session_in(&self.cwd, id)
    }

    /// A command for the binary in `cwd` with a clean environment (no API keys, no colour,
    /// fast retries).
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(BIN);
        c.current_dir(&self.cwd)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("BASH_AGENT_HOME", &self.home)
            .env("LANG", "C.UTF-8")
            .env("NO_COLOR", "1")
            .env("BASH_AGENT_RETRY_BASE_MS", "20")
            .stdin(Stdio::null());
        c
    }

    /// [`Env::cmd`] with `args`, run in another working directory.
    pub fn cmd_in(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut c = self.cmd();
        c.args(args).current_dir(cwd);
        c
    }

    /// Run the binary in `cwd` and wait.
    pub fn run_in(&self, cwd: &Path, args: &[&str]) -> Output {
        self.cmd_in(cwd, args).output().unwrap()
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.cwd, args)
    }

    /// Run the agent against `url` with `args`.
    pub fn agent(&self, url: &str, provider: &str, args: &[&str]) -> Output {
        let mut c = self.cmd();
        c.args([
            "--provider",
            provider,
            "--base-url",
            url,
            "--api-key",
            "sk-test-PLANTED",
        ]);
        c.args(args);
        c.output().unwrap()
    }

    /// Trust the project folder's own files (docs/sandbox.md, "Trust"), as the user's
    /// settings store it: for tests of what project settings, `.mcp.json` and hooks do.
    /// Call after writing the user's settings file (the entry is merged into it).
    pub fn trust_project(&self) {
        let path = self.home.join(".bash-agent/settings.json");
        let mut v: serde_json::Value = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| serde_json::json!({}));
        v["trusted_folders"][self.cwd.to_str().unwrap()] = serde_json::Value::Bool(true);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, v.to_string()).unwrap();
    }

    /// A file of a session folder ("" when missing).
    pub fn read(&self, id: &str, file: &str) -> String {
        std::fs::read_to_string(self.session_dir(id).join(file)).unwrap_or_default()
    }
}

/// The scripted model server (`bash-agent mock-server`) as a child process, killed on drop.
pub struct Mock {
    /// `http://127.0.0.1:<port>`
    pub url: String,
    /// Every request, one JSON line each (`path`, `headers`, `body`), written before the
    /// answer starts.
    pub record: PathBuf,
    child: Child,
    _dir: tempfile::TempDir,
}

impl Mock {
    /// Start with a script (JSON text, see `src/mock/script.rs`).
    pub fn start(script: &str) -> Mock {
        Mock::start_env(script, &[])
    }

    /// [`Mock::start`] with extra environment for the server (e.g.
    /// `BASH_AGENT_MOCK_STRICT=1`, the strict mode of `src/mock/strict_openai.rs`).
    pub fn start_env(script: &str, envs: &[(&str, &str)]) -> Mock {
        let dir = tempfile::tempdir().unwrap();
        let script_path = dir.path().join("script.json");
        std::fs::write(&script_path, script).unwrap();
        let record = dir.path().join("record.jsonl");
        let mut child = Command::new(BIN)
            .arg("mock-server")
            .arg("--script")
            .arg(&script_path)
            .arg("--port")
            .arg("0")
            .arg("--record")
            .arg(&record)
            .env("BASH_AGENT_HOME", dir.path())
            .envs(envs.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_string();
        assert!(
            url.starts_with("http://127.0.0.1:"),
            "bad url line {line:?}"
        );
        Mock {
            url,
            record,
            child,
            _dir: dir,
        }
    }

    /// The binary's `--base-url` for this server (every provider's base carries `/v1`).
    pub fn base(&self, _provider: &str) -> String {
        format!("{}/v1", self.url)
    }

    /// The requests recorded so far; a line still being written is skipped (for polling
    /// while a run goes on).
    pub fn requests(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The recorded requests; every line must be whole JSON.
    pub fn records(&self) -> Vec<serde_json::Value> {
        checks::recorded(&self.record)
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Poll `cond` until it holds; panic naming `what` after `secs` seconds.
pub fn wait_until(what: &str, secs: u64, cond: impl FnMut() -> bool) {
    wait_until_or(what, secs, cond, String::new)
}

/// [`wait_until`] with `diag()` (a screen, a log) added to the timeout message.
pub fn wait_until_or(what: &str, secs: u64, cond: impl FnMut() -> bool, diag: impl Fn() -> String) {
    if !wait_for(secs, cond) {
        panic!(
            "timed out after {secs} s (x{:.1} for load) waiting for {what}\n{}",
            slowdown(),
            diag()
        );
    }
}

/// How much slower this machine is than an idle one right now: the 1-minute load average per
/// core (at least 1, at most 8), times `BASH_AGENT_TEST_SLOWDOWN` when set. Deadlines of the
/// tests' waits are multiplied by it, so a wait gives up only when the condition really does
/// not come, not because another build shares the cores.
pub fn slowdown() -> f64 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    let extra = std::env::var("BASH_AGENT_TEST_SLOWDOWN")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|v| *v >= 1.0)
        .unwrap_or(1.0);
    (load / cores).clamp(1.0, 8.0) * extra
}

/// `secs` scaled by [`slowdown`]: a deadline for a wait on a loaded machine.
pub fn scaled(secs: u64) -> Duration {
    Duration::from_secs_f64(secs as f64 * slowdown())
}

/// Poll `cond` until it holds (true) or the deadline passes (false): the one polling loop.
/// The deadline is `secs` times the machine's [`slowdown`], re-read while waiting, so load
/// that starts during the wait extends it too.
pub fn wait_for(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let t0 = Instant::now();
    let mut deadline = scaled(secs);
    while !cond() {
        if t0.elapsed() > deadline {
            // Past the deadline: read the load once more before giving up.
            deadline = deadline.max(scaled(secs));
            if t0.elapsed() > deadline {
                return false;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Assert the exit code, showing both streams on failure.
pub fn expect_code(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
}

/// Set a path's mtime (seconds since the epoch).
pub fn set_mtime(p: &Path, secs: i64) {
    let tv = nix::sys::time::TimeVal::new(secs, 0);
    nix::sys::stat::utimes(p, &tv, &tv).unwrap();
}

/// Event lines of a session as JSON values. A last line without its newline is a line the
/// agent is still appending (a large line reaches the file in several writes): it is left out,
/// as a reader tailing the file would; every whole line must be JSON.
pub fn events(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let whole = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    whole
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad event line {l:?}: {e}")))
        .collect()
}

/// The `type` of every event, in order.
pub fn types(evs: &[serde_json::Value]) -> Vec<String> {
    evs.iter()
        .map(|e| e["type"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The shell-written fixture sessions (`tests/fixtures/shell-sessions/projects`).
pub fn fixtures_root() -> PathBuf {
    let local =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shell-sessions/projects");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/shell-sessions/projects")
}

/// A fixture session folder (`<project_key>/<session>`).
pub fn fixture(rel: &str) -> PathBuf {
    fixtures_root().join(rel)
}

/// Copy a folder tree (files made writable by the owner only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
            let mut p = std::fs::metadata(&dst).unwrap().permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut p, 0o600);
            std::fs::set_permissions(&dst, p).unwrap();
        }
    }
}

/// Copy a fixture session's files (not its subfolders) into `dir` (created; files 0600).
pub fn copy_fixture(rel: &str, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for e in std::fs::read_dir(fixture(rel)).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            let to = dir.join(e.file_name());
            std::fs::copy(e.path(), &to).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
    }
}

/// Copy every fixture session into the env's project folder; returns the session names.
pub fn install_fixtures(env: &Env) -> Vec<String> {
    let mut names = Vec::new();
    for proj in std::fs::read_dir(fixtures_root()).unwrap() {
        let proj = proj.unwrap().path();
        for s in std::fs::read_dir(&proj).unwrap() {
            let s = s.unwrap();
            if s.file_type().unwrap().is_dir() {
                let name = s.file_name().to_string_lossy().into_owned();
                copy_dir(&s.path(), &env.project_dir().join(&name));
                names.push(name);
            }
        }
    }
    names.sort();
    names
}
