//! Tools called in-process: a project folder with a session, a tool context, and a host
//! that records what the tools asked of it.
use super::Env;
use bash_agent::session::Session;
use bash_agent::tools::{Limits, ToolHost, ToolOutput};
use bash_agent::util::cancel::Cancel;
use std::path::Path;
use std::sync::Mutex;

/// An [`Env`] plus a session folder (with an empty plan.draft) in its project.
pub struct ToolFixture {
    pub env: Env,
    pub session: Session,
}

impl std::ops::Deref for ToolFixture {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

pub fn env() -> ToolFixture {
    let env = Env::new();
    let session = Session::new(&env.project_dir(), "s1");
    std::fs::create_dir_all(&session.dir).expect("mkdir session");
    std::fs::write(session.plan_draft(), "").expect("draft");
    ToolFixture { env, session }
}

/// What a tool asks of the agent; the fixture's context forwards it to one of these.
pub trait Actions: Send + Sync {
    fn spawn_sub_agent(
        &self,
        prompt: &str,
        description: &str,
        fork: bool,
    ) -> Result<String, String>;
    fn spawn_background(&self, command: &str) -> Result<String, String>;
    fn request_compaction(&self, trigger: &str);
    fn before_file_change(&self, path: &Path, tool_use_id: &str);
}

/// A host that supports nothing.
pub struct NoHost;

impl Actions for NoHost {
    fn spawn_sub_agent(&self, _: &str, _: &str, _: bool) -> Result<String, String> {
        Err("sub-agents are not available here".into())
    }
    fn spawn_background(&self, _: &str) -> Result<String, String> {
        Err("background tasks are not available here".into())
    }
    fn request_compaction(&self, _: &str) {}
    fn before_file_change(&self, _: &Path, _: &str) {}
}

/// A tool call's surroundings with settable values (the agent's context in miniature).
pub struct TestCtx<'a> {
    pub session: &'a Session,
    pub cwd: std::path::PathBuf,
    pub tool_timeout: u64,
    pub max_result_bytes: usize,
    pub mode: u32,
    pub depth: u32,
    pub cancel: Cancel,
    pub host: &'a dyn Actions,
    pub tool_use_id: String,
}

impl ToolHost for TestCtx<'_> {
    fn session(&self) -> &Session {
        self.session
    }
    fn cwd(&self) -> &Path {
        &self.cwd
    }
    fn limits(&self) -> Limits {
        Limits {
            tool_timeout: self.tool_timeout,
            max_result_bytes: self.max_result_bytes,
            bash_mode: self.mode,
        }
    }
    fn depth(&self) -> u32 {
        self.depth
    }
    fn cancel(&self) -> &Cancel {
        &self.cancel
    }
    fn spawn_sub_agent(&self, p: &str, d: &str, fork: bool) -> Result<String, String> {
        self.host.spawn_sub_agent(p, d, fork)
    }
    fn spawn_background(&self, command: &str) -> Result<String, String> {
        self.host.spawn_background(command)
    }
    fn request_compaction(&self, trigger: &str) {
        self.host.request_compaction(trigger)
    }
    fn before_file_change(&self, path: &Path, id: &str) {
        self.host.before_file_change(path, id)
    }
}

pub fn ctx<'a>(e: &'a ToolFixture, host: &'a dyn Actions) -> TestCtx<'a> {
    TestCtx {
        session: &e.session,
        cwd: e.cwd.clone(),
        tool_timeout: 20,
        max_result_bytes: 100_000,
        mode: 0o0467,
        depth: 0,
        cancel: Cancel::new(),
        host,
        tool_use_id: "toolu_t1".into(),
    }
}

/// Run a tool as the agent does, with the context's call id.
pub fn run(c: &TestCtx, name: &str, input: &serde_json::Value) -> ToolOutput {
    bash_agent::tools::run(c, &c.tool_use_id, name, input)
}

/// A host that records every call.
#[derive(Default)]
pub struct Rec {
    pub calls: Mutex<Vec<String>>,
}

impl Rec {
    pub fn calls(&self) -> Vec<String> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }
    fn push(&self, s: String) {
        if let Ok(mut c) = self.calls.lock() {
            c.push(s);
        }
    }
}

impl Actions for Rec {
    fn spawn_sub_agent(
        &self,
        prompt: &str,
        description: &str,
        fork: bool,
    ) -> Result<String, String> {
        self.push(format!("sub:{prompt}|{description}|{fork}"));
        Ok("Sub-agent started: session_id=sub_x, pid=1".into())
    }
    fn spawn_background(&self, command: &str) -> Result<String, String> {
        self.push(format!("bg:{command}"));
        Ok("Async task started: task_id=task_x, pid=2".into())
    }
    fn request_compaction(&self, trigger: &str) {
        self.push(format!("compact:{trigger}"));
    }
    fn before_file_change(&self, path: &Path, tool_use_id: &str) {
        self.push(format!("change:{}|{tool_use_id}", path.display()));
    }
}
