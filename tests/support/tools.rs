//! Tools called in-process: a project folder with a session, a tool context, and a host
//! that records what the tools asked of it.
use super::Env;
use bash_agent::session::Session;
use bash_agent::tools::{ToolCtx, ToolHost};
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

pub fn ctx<'a>(e: &'a ToolFixture, host: &'a dyn ToolHost) -> ToolCtx<'a> {
    ToolCtx {
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

impl ToolHost for Rec {
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
