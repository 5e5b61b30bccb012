//! The runtime side of the tools: sub-agents, background tasks, plan compactions and file
//! history, plus the usage ledger hook.
use crate::config::Config;
use crate::session::events::EventLog;
use crate::session::stats::Usage;
use crate::session::Session;
use crate::tools::ToolHost;
use crate::util::cancel::Cancel;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What the tools may ask of the running agent.
pub struct Host {
    pub session: Session,
    pub cfg: Config,
    pub events: EventLog,
    pub cancel: Cancel,
    pub cwd: PathBuf,
    pub depth: u32,
    /// Sub-agent ids whose result has arrived (shared with the notify reader).
    pub reported: Arc<Mutex<HashSet<String>>>,
    /// The current turn number (file history).
    pub turn: AtomicU64,
    /// Files touched in this turn (after-hash bookkeeping).
    pub touched: Mutex<Vec<PathBuf>>,
}

/// Flags a sub-agent inherits (the API key travels in the environment, never argv).
pub fn child_args(cfg: &Config) -> Vec<String> {
    let p = &cfg.provider;
    let mut a = vec![
        "--provider".to_string(),
        p.kind.name().to_string(),
        "--model".into(),
        p.model.clone(),
        "--base-url".into(),
        p.base_url.clone(),
        "--max-tokens".into(),
        p.max_tokens.to_string(),
        "--max-turns".into(),
        cfg.max_turns.to_string(),
        "--max-context".into(),
        cfg.max_context.to_string(),
        "--tool-timeout".into(),
        cfg.tool_timeout.to_string(),
    ];
    if let Some(e) = p.effort {
        a.extend(["--effort".to_string(), e.as_str().to_string()]);
    }
    if let Some(t) = p.thinking {
        a.extend(["--thinking".to_string(), t.as_str().to_string()]);
    }
    for s in &cfg.skills {
        a.push("--skill".into());
        a.push(s.clone());
    }
    a
}

impl Host {
    /// Record the after-state of files changed in the finished turn.
    pub fn end_turn(&self) {
        let files: Vec<PathBuf> =
            std::mem::take(&mut *self.touched.lock().unwrap_or_else(|p| p.into_inner()));
        let turn = self.turn.load(Ordering::SeqCst);
        for f in files {
            crate::features::history::after_change(&self.session, turn, &f);
        }
    }
}

impl ToolHost for Host {
    fn spawn_sub_agent(
        &self,
        prompt: &str,
        description: &str,
        fork: bool,
    ) -> Result<String, String> {
        crate::agent::subagent::spawn(
            &self.session,
            &self.events,
            self.reported.clone(),
            &child_args(&self.cfg),
            prompt,
            description,
            fork,
            self.session.notify_fifo(),
        )
    }

    fn spawn_background(&self, command: &str) -> Result<String, String> {
        crate::agent::background::spawn(&self.session, command, self.session.notify_fifo())
    }

    fn compact(&self, trigger: &str) {
        use crate::agent::compact::{compact, CompactCtx};
        let system = crate::agent::prompt::build(&crate::agent::prompt::PromptInputs {
            session: &self.session,
            cwd: &self.cwd,
            skills: &self.cfg.skills,
            depth: self.depth,
        });
        let _ = compact(
            &CompactCtx {
                session: &self.session,
                cfg: &self.cfg,
                system_prompt: &system,
                events: &self.events,
                cancel: &self.cancel,
                force: false,
            },
            trigger,
        );
    }

    fn before_file_change(&self, path: &Path, tool_use_id: &str) {
        let turn = self.turn.load(Ordering::SeqCst);
        crate::features::history::before_change(&self.session, turn, path, tool_use_id);
        let mut t = self.touched.lock().unwrap_or_else(|p| p.into_inner());
        if !t.iter().any(|p| p == path) {
            t.push(path.to_path_buf());
        }
    }
}

/// One usage-ledger line for a model call.
pub fn ledger(
    session: &Session,
    cfg: &Config,
    kind: &str,
    u: &Usage,
    speed: u64,
    info: &crate::provider::CallInfo,
) {
    let e = crate::features::ledger::LedgerEntry {
        time: crate::util::time::utc_iso_now(),
        provider: cfg.provider.kind.name().to_string(),
        model: cfg.provider.model.clone(),
        kind: kind.to_string(),
        input: u.input,
        output: u.output,
        cache_read: u.cache_read,
        cache_creation: u.cache_creation,
        elapsed_ms: info.elapsed_ms,
        first_token_ms: info.first_token_ms.unwrap_or(0),
        tok_per_sec: speed,
        retries: info.retries as u64,
    };
    crate::features::ledger::record(session, &e);
}
