//! Shared helpers for the features_* integration tests: a temp BASH_AGENT_HOME, project
//! working directories, and running the real binary there.
#![allow(dead_code)]
use bash_agent::session::paths::project_key;
use bash_agent::session::Session;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub const BIN: &str = env!("CARGO_BIN_EXE_bash-agent");

pub struct Env {
    pub tmp: tempfile::TempDir,
    pub home: PathBuf,
    /// The default project working directory (physical path).
    pub cwd: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let home = root.join("home");
        let cwd = root.join("proj");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        Env { tmp, home, cwd }
    }

    /// Another working directory (another project).
    pub fn other_cwd(&self, name: &str) -> PathBuf {
        let p = self.cwd.parent().unwrap().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    pub fn projects_root(&self) -> PathBuf {
        self.home.join(".bash-agent").join("projects")
    }

    pub fn project_dir_for(&self, cwd: &Path) -> PathBuf {
        self.projects_root().join(project_key(cwd))
    }

    pub fn project_dir(&self) -> PathBuf {
        self.project_dir_for(&self.cwd)
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

    pub fn cmd_in(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(cwd)
            .env("BASH_AGENT_HOME", &self.home)
            .env("NO_COLOR", "1")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY");
        c
    }

    /// Run the binary in `cwd` and wait.
    pub fn run_in(&self, cwd: &Path, args: &[&str]) -> Output {
        self.cmd_in(cwd, args).output().unwrap()
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_in(&self.cwd, args)
    }
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

/// Wait (bounded) until `cond` holds.
pub fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !cond() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::yield_now();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// A shell-written fixture session folder (`<project_key>/<session>`).
pub fn fixture(rel: &str) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let local = base
        .join("tests/fixtures/shell-sessions/projects")
        .join(rel);
    if local.is_dir() {
        return local;
    }
    base.join("../shared/fixtures/shell-sessions/projects")
        .join(rel)
}

/// Copy a fixture session's files into `dir` (created; files made writable).
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
