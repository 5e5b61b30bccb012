//! The one agent context: what the runtime, a turn, a tool call and a compaction share for a
//! run — the session, the configuration, the working directory, the depth, the cancel flag,
//! the recorder and the output — plus the state that lives across calls (file history of the
//! turn, sub-agents that reported, effects tools asked for). Tools see it through the
//! [`ToolHost`] trait they define, so `tools` does not depend on `agent`.
use crate::agent::children::{ChildKind, Children};
use crate::agent::output::Output;
use crate::agent::recorder::Recorder;
use crate::agent::setup::Mode;
use crate::agent::spinner::Spinner;
use crate::config::Config;
use crate::protocol::Event;
use crate::session::Session;
use crate::tools::{Limits, ToolHost};
use crate::util::cancel::Cancel;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Something a tool asked for that the loop runs after the call's assistant line is stored
/// (so a model call never nests inside another call's stream).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// A compaction with this trigger (`plan_confirm`, `plan_clear`).
    Compact(String),
}

/// Everything a run shares.
pub struct AgentCtx {
    pub session: Session,
    pub cfg: Config,
    /// The agent's working directory (physical).
    pub cwd: PathBuf,
    /// Sub-agent depth (0 = the main agent).
    pub depth: u32,
    pub mode: Mode,
    pub cancel: Cancel,
    pub rec: Recorder,
    pub out: Output,
    /// Sub-agent ids whose result has arrived (shared with the notify reader).
    pub reported: Arc<Mutex<HashSet<String>>>,
    /// The current turn number (file history).
    pub turn: AtomicU64,
    /// Files touched in this turn (after-hash bookkeeping).
    touched: Mutex<Vec<PathBuf>>,
    effects: Mutex<Vec<Effect>>,
    /// A turn is running (the line editor queues input meanwhile).
    pub running: Arc<AtomicBool>,
    pub spinner: Spinner,
    /// `/new` asked for a fresh session once this run has ended.
    pub new_requested: AtomicBool,
    /// Sub-agents and background tasks started by this run.
    pub children: Children,
    /// Extensions of this run: MCP servers and user hooks (None when none is configured).
    pub ext: crate::agent::extensions::Extensions,
    /// Permission mode and rules; asks through the line editor when interactive.
    pub permission: crate::permission::Gate,
    /// Slash-command state: attachments for the next message, the /resume pick, a restart.
    pub slash: crate::agent::slash::State,
    /// A custom command's turn or a custom sub-agent's run: fewer tools, another model.
    pub custom: crate::agent::custom::scope::Scope,
    /// `--fallback-model`: whether this run switched to it.
    pub fallback: crate::agent::fallback::Fallback,
}

impl AgentCtx {
    /// A context with no display, no spinner and no sub-agent bookkeeping (the `compact`
    /// command, tests); the runtime fills in the rest with the `with_*` setters.
    pub fn new(session: Session, cfg: Config, cwd: PathBuf, rec: Recorder) -> AgentCtx {
        AgentCtx {
            session,
            cfg,
            cwd,
            depth: 0,
            mode: Mode::OneShot,
            cancel: Cancel::new(),
            rec,
            out: Output::none(),
            reported: Arc::new(Mutex::new(HashSet::new())),
            turn: AtomicU64::new(0),
            touched: Mutex::new(Vec::new()),
            effects: Mutex::new(Vec::new()),
            running: Arc::new(AtomicBool::new(false)),
            spinner: Spinner::new(false),
            new_requested: AtomicBool::new(false),
            children: Children::default(),
            ext: Default::default(),
            permission: crate::permission::Gate::bypass(),
            slash: Default::default(),
            custom: Default::default(),
            fallback: Default::default(),
        }
    }

    /// Record a turn event and show it. A failed write is shown, never fatal here.
    pub fn emit(&self, e: Event) {
        if let Err(m) = self.rec.event(&e) {
            self.out.warn(&m);
        }
        self.spinner.event(&e);
        self.out.event(&e);
    }

    /// The system prompt for the next call.
    pub fn prompt(&self) -> String {
        let mut p = match &self.cfg.overrides.system_prompt {
            Some(own) => own.clone(),
            None => {
                crate::agent::prompt::build(&self.session, &self.cwd, &self.cfg.skills, self.depth)
            }
        };
        if let Some(more) = &self.cfg.overrides.append_system_prompt {
            p.push_str("\n\n");
            p.push_str(more);
        }
        p.push_str(&self.custom.prompt_section());
        p
    }

    /// Effects tools asked for during the last call, oldest first.
    pub fn take_effects(&self) -> Vec<Effect> {
        std::mem::take(&mut *self.effects.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Record the after-state of files changed in the finished turn.
    pub fn end_turn(&self) {
        let files: Vec<PathBuf> =
            std::mem::take(&mut *self.touched.lock().unwrap_or_else(|p| p.into_inner()));
        let turn = self.turn.load(Ordering::SeqCst);
        for f in files {
            crate::history::files::after_change(&self.session, turn, &f);
        }
    }
}

/// Flags a sub-agent (or a `/new` restart) inherits. The API key is not among them: it
/// travels in the internal environment variable only (never argv).
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
    // Only what was asked for: a local server may reject reasoning fields it does not know.
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
    if let Some(f) = &cfg.overrides.fallback_model {
        a.extend(["--fallback-model".to_string(), f.clone()]);
    }
    a.extend(cfg.sandbox.child_args());
    // The trust decision travels too: a child never asks again, and a folder trusted for
    // this run only stays trusted in it.
    match crate::session::paths::physical_cwd() {
        Ok(cwd) if crate::settings::trust::is_trusted(&cwd) => a.push("--trust".into()),
        _ => {}
    }
    a.push("--trust-settled".into());
    a
}

impl ToolHost for AgentCtx {
    fn session(&self) -> &Session {
        &self.session
    }

    fn cwd(&self) -> &Path {
        &self.cwd
    }

    fn limits(&self) -> Limits {
        Limits {
            tool_timeout: self.cfg.tool_timeout,
            max_result_bytes: self.cfg.max_result_bytes,
            bash_mode: self.cfg.bash_mode,
        }
    }

    fn depth(&self) -> u32 {
        self.depth
    }

    fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    fn spawn_sub_agent(
        &self,
        prompt: &str,
        description: &str,
        fork: bool,
    ) -> Result<String, String> {
        self.spawn_named_sub_agent(prompt, description, fork, "")
    }

    fn spawn_named_sub_agent(
        &self,
        prompt: &str,
        description: &str,
        fork: bool,
        agent: &str,
    ) -> Result<String, String> {
        let def = if agent.is_empty() {
            None
        } else {
            let all = crate::agent::custom::agents::load_here(&self.cwd);
            Some(all.find(agent).cloned().ok_or_else(|| all.unknown(agent))?)
        };
        // SubagentStart names the helper by the id its SubagentStop will carry.
        let kind = def.as_ref().map_or("general-purpose", |d| d.name.as_str());
        let start = |sid: &str, task: &str| {
            crate::agent::hook_events::subagent_start(self, sid, kind, task)
        };
        let task = crate::agent::subagent::Task {
            prompt,
            description,
            fork,
            prepare: Some(&start),
        };
        let started = crate::agent::subagent::spawn(self, task, def.as_ref())?;
        self.children
            .started(ChildKind::SubAgent, &started, description);
        Ok(started)
    }

    fn spawn_background(&self, command: &str) -> Result<String, String> {
        let started =
            crate::agent::background::spawn(&self.session, command, self.session.notify_fifo())?;
        self.children.started(ChildKind::Task, &started, command);
        Ok(started)
    }

    fn task_output(&self, id: &str) -> Result<String, String> {
        let c = self.children.find(&self.reported, id)?;
        if c.kind != ChildKind::Task {
            return Err(format!(
                "{} is a sub-agent: its result arrives as a message when it ends",
                c.id
            ));
        }
        let log = self.session.dir.join(format!("{}.log", c.id));
        let text = crate::ipc::async_task::read_tail(&log);
        Ok(format!(
            "task {} is running ({}s): {}\n--- output so far (its last {} bytes at most) ---\n{text}",
            c.id,
            c.secs,
            c.label,
            crate::ipc::async_task::LOG_TAIL
        ))
    }

    fn stop_child(&self, id: &str) -> Result<String, String> {
        let c = self.children.stop(&self.reported, id)?;
        Ok(format!(
            "Stopped {} ({}); its result arrives as a message when it has ended.",
            c.id, c.label
        ))
    }

    fn request_compaction(&self, trigger: &str) {
        self.effects
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Effect::Compact(trigger.to_string()));
    }

    fn web_hop_check(&self, start: &url::Url) -> crate::tools::webfetch::redirect::HopCheck {
        self.permission.hop_check(start)
    }

    fn before_file_change(&self, path: &Path, tool_use_id: &str) {
        let turn = self.turn.load(Ordering::SeqCst);
        crate::history::files::before_change(&self.session, turn, path, tool_use_id);
        let mut t = self.touched.lock().unwrap_or_else(|p| p.into_inner());
        if !t.iter().any(|p| p == path) {
            t.push(path.to_path_buf());
        }
    }

    fn tool_output(&self, chunk: &[u8]) {
        self.spinner.tool_output(chunk);
    }
}
