//! User hooks with Claude Code's protocol, so existing hook scripts work unchanged: a shell
//! command gets one JSON object on stdin; exit 0 is ok, exit 2 blocks (stderr is the
//! reason), any other code is a non-blocking error; JSON on stdout can decide as well
//! (`continue`, `stopReason`, `decision`/`reason`, `hookSpecificOutput.permissionDecision`,
//! `additionalContext`, `systemMessage`, `suppressOutput`).
//!
//! Configured in settings `hooks` (`~/.bash-agent/settings.json`, then the project's
//! `.bash-agent/settings.json`), in Claude Code's shape:
//! `{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command",
//! "command": "...", "timeout": 60}]}]}}`.
pub mod config;
mod run;

use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::Duration;

/// The events a hook can subscribe to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    UserPromptSubmit,
    Stop,
    SubagentStop,
    SessionStart,
    SessionEnd,
    PreCompact,
    Notification,
}

impl HookEvent {
    pub const ALL: [HookEvent; 9] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::PreCompact,
        HookEvent::Notification,
    ];

    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Notification => "Notification",
        }
    }

    pub fn parse(s: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.name() == s)
    }
}

/// One command hook.
#[derive(Debug, Clone)]
pub struct CommandHook {
    pub command: String,
    pub timeout: Duration,
}

/// A matcher group: the hooks run when `pattern` matches the event's subject (the tool name
/// for tool events, the source/trigger for SessionStart/PreCompact); None matches all.
#[derive(Debug, Clone)]
pub struct Group {
    pub pattern: Option<regex::Regex>,
    pub hooks: Vec<CommandHook>,
}

/// A permission decision from PreToolUse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Permission {
    Allow,
    Ask,
    Deny,
}

/// What the hooks of one event decided, merged (a deny beats an ask beats an allow).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Blocked (exit 2, `decision: "block"`, `permissionDecision: "deny"`), with the reason.
    pub block: Option<String>,
    pub permission: Option<Permission>,
    /// `continue: false`: stop the agent after this, with this reason.
    pub stop: Option<String>,
    /// Context to add (stdout for UserPromptSubmit/SessionStart, `additionalContext`).
    pub context: Vec<String>,
    /// Shown to the user (failed hooks, timeouts, `systemMessage`, ask/stop reasons).
    pub user_messages: Vec<String>,
    /// A successful hook's stdout, shown with `-v`.
    pub verbose: Vec<String>,
}

/// The hooks of a run and what every hook input carries.
pub struct Hooks {
    groups: Vec<(HookEvent, Group)>,
    pub session_id: String,
    pub transcript_path: PathBuf,
    pub cwd: PathBuf,
    /// The run's interrupt: Ctrl-C ends the hooks running then.
    pub cancel: crate::util::cancel::Cancel,
}

impl Hooks {
    /// The configured hooks, or None when there are none (a run without hooks pays only
    /// the read of the small settings files). Bad entries are returned as warnings.
    pub fn load(
        cwd: &std::path::Path,
        session_id: &str,
        transcript: PathBuf,
    ) -> (Option<Hooks>, Vec<String>) {
        let (groups, warnings) = config::load(cwd);
        if groups.is_empty() {
            return (None, warnings);
        }
        (
            Some(Hooks {
                groups,
                session_id: session_id.to_string(),
                transcript_path: transcript,
                cwd: cwd.to_path_buf(),
                cancel: Default::default(),
            }),
            warnings,
        )
    }

    /// True when some hook listens to `ev`.
    pub fn has(&self, ev: HookEvent) -> bool {
        self.groups.iter().any(|(e, _)| *e == ev)
    }

    /// Run every hook of `ev` whose matcher accepts `subject`, in parallel, with the event's
    /// own input fields; merge their decisions.
    pub fn run(&self, ev: HookEvent, subject: Option<&str>, fields: Map<String, Value>) -> Outcome {
        let cmds: Vec<&CommandHook> = self
            .groups
            .iter()
            .filter(|(e, g)| {
                *e == ev
                    && match (&g.pattern, subject) {
                        (None, _) => true,
                        (Some(re), Some(s)) => re.is_match(s),
                        (Some(_), None) => true,
                    }
            })
            .flat_map(|(_, g)| g.hooks.iter())
            .collect();
        if cmds.is_empty() {
            return Outcome::default();
        }
        let mut input = Map::new();
        input.insert("session_id".into(), Value::String(self.session_id.clone()));
        input.insert(
            "transcript_path".into(),
            Value::String(self.transcript_path.display().to_string()),
        );
        input.insert("cwd".into(), Value::String(self.cwd.display().to_string()));
        input.insert("hook_event_name".into(), Value::String(ev.name().into()));
        input.extend(fields);
        let stdin = Value::Object(input).to_string();
        let results = run::run_all(&cmds, &stdin, &self.cwd, &self.cancel);
        let mut out = Outcome::default();
        for (hook, r) in cmds.iter().zip(results) {
            run::merge(ev, hook, r, &mut out);
        }
        out
    }
}

/// A JSON object from pairs (the events' input fields).
pub fn fields(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}
