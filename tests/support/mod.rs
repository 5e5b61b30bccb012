//! Shared helpers for end-to-end tests: a temp BASH_AGENT_HOME and project folder, the
//! scripted model server (the binary's hidden `mock-server` subcommand), and agent runs.
#![allow(dead_code)]
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_bash-agent");

/// A temp home + a temp project cwd.
pub struct Env {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub cwd: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let cwd = dir.path().join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        let cwd = std::fs::canonicalize(cwd).unwrap();
        Env { dir, home, cwd }
    }

    /// The project folder for `cwd` (same algorithm as the binary).
    pub fn project_dir(&self) -> PathBuf {
        self.home
            .join(".bash-agent/projects")
            .join(bash_agent::session::paths::project_key(&self.cwd))
    }

    pub fn session_dir(&self, id: &str) -> PathBuf {
        self.project_dir().join(id)
    }

    /// A command for the binary with a clean environment.
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

    pub fn read(&self, id: &str, file: &str) -> String {
        std::fs::read_to_string(self.session_dir(id).join(file)).unwrap_or_default()
    }
}

/// A running scripted model server.
pub struct Mock {
    pub child: Child,
    pub url: String,
    pub record: PathBuf,
}

impl Mock {
    /// Start with a script (JSON text). `url` is the base URL for the given provider.
    pub fn start(env: &Env, script: &str) -> Mock {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let sp = env.dir.path().join(format!("script-{n}.json"));
        let record = env.dir.path().join(format!("record-{n}.jsonl"));
        std::fs::write(&sp, script).unwrap();
        let mut child = Command::new(BIN)
            .args(["mock-server", "--script"])
            .arg(&sp)
            .arg("--record")
            .arg(&record)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Mock {
            child,
            url: line.trim().to_string(),
            record,
        }
    }

    /// Base URL for a provider (Anthropic expects `/v1` inside the base URL).
    pub fn base(&self, provider: &str) -> String {
        match provider {
            "claude" => format!("{}/v1", self.url),
            _ => format!("{}/v1", self.url),
        }
    }

    /// Recorded requests (parsed JSON lines).
    pub fn requests(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.record)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Event lines of a session as JSON values.
pub fn events(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
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

/// Wait until `cond` holds (polling), up to `secs`.
pub fn wait_for(secs: u64, mut cond: impl FnMut() -> bool) -> bool {
    let t0 = std::time::Instant::now();
    while t0.elapsed().as_secs() < secs {
        if cond() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    cond()
}

pub fn fixtures_root() -> PathBuf {
    let local =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shell-sessions/projects");
    if local.is_dir() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/shell-sessions/projects")
}

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
