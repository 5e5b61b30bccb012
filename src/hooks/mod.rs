//! User hooks with Claude Code's protocol, so existing hook scripts work unchanged: a shell
//! command gets one JSON object on stdin; exit 0 is ok, exit 2 blocks (stderr is the
//! reason), any other code is a non-blocking error; JSON on stdout can decide as well
//! (`continue`, `stopReason`, `decision`/`reason`, `hookSpecificOutput.permissionDecision`,
//! `updatedInput`, `additionalContext`, `systemMessage`, `suppressOutput`). The input names
//! tools and their fields as Claude Code does ([`names`]).
//!
//! Configured in settings `hooks` (bash-agent's own files and Claude Code's
//! `.claude/settings*.json`, `~/.claude/settings.json`), in Claude Code's shape:
//! `{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command",
//! "command": "...", "timeout": 60}]}]}}`.
pub mod config;
mod events;
pub mod names;
mod output;
mod run;

pub use events::HookEvent;

use serde_json::{Map, Value};
use std::path::PathBuf;
use std::time::Duration;

/// One command hook.
#[derive(Debug, Clone)]
pub struct CommandHook {
    pub command: String,
    pub timeout: Duration,
}

/// A matcher as Claude Code reads it (config::matcher).
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Empty, `*` or absent.
    All,
    /// Only names (letters, digits, `_`, `-`), joined by `|` or `,`: one of them exactly.
    Names(Vec<String>),
    /// Anything else: a regular expression found anywhere in the subject.
    Regex(regex::Regex),
}

impl Matcher {
    fn accepts(&self, subjects: &[&str]) -> bool {
        match self {
            Matcher::All => true,
            // An event without a subject: the matcher does not apply.
            _ if subjects.is_empty() => true,
            Matcher::Names(n) => subjects.iter().any(|s| n.iter().any(|m| m == s)),
            Matcher::Regex(r) => subjects.iter().any(|s| r.is_match(s)),
        }
    }
}

/// A matcher group: the hooks run when `pattern` matches the event's subject (the tool name
/// for tool events, the source/trigger for SessionStart/PreCompact).
#[derive(Debug, Clone)]
pub struct Group {
    pub pattern: Matcher,
    pub hooks: Vec<CommandHook>,
    /// The matcher as written and the file it came from (`bash-agent config`).
    pub matcher: String,
    pub origin: String,
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
    /// PreToolUse `updatedInput` / PermissionRequest `decision.updatedInput` (Claude Code's
    /// field names; names::from_cc translates).
    pub updated_input: Option<Value>,
    /// PermissionRequest `decision.updatedPermissions` (Claude Code's permission updates:
    /// `addRules`, `setMode`, ...), applied by the caller.
    pub updated_permissions: Vec<Value>,
}

/// The hooks of a run and what every hook input carries.
pub struct Hooks {
    groups: Vec<(HookEvent, Group)>,
    pub session_id: String,
    pub transcript_path: PathBuf,
    pub cwd: PathBuf,
    /// The run's interrupt: Ctrl-C ends the hooks running then.
    pub cancel: crate::util::cancel::Cancel,
    /// Fields every input of this run carries besides the common ones: in a sub-agent,
    /// Claude Code's `agent_id` and `agent_type` ([`Hooks::as_subagent`]).
    pub extra: Map<String, Value>,
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
                extra: Map::new(),
            }),
            warnings,
        )
    }

    /// The hooks of a sub-agent speak as Claude Code's do inside one: the session and
    /// transcript are the parent's (the session the user started), and every input names
    /// the helper (`agent_id`: its session id, `agent_type`: the custom agent or
    /// `general-purpose`).
    pub fn as_subagent(
        &mut self,
        parent_id: &str,
        parent_transcript: PathBuf,
        id: &str,
        kind: &str,
    ) {
        self.session_id = parent_id.to_string();
        self.transcript_path = parent_transcript;
        self.extra.insert("agent_id".into(), Value::from(id));
        self.extra.insert("agent_type".into(), Value::from(kind));
    }

    /// True when some hook listens to `ev`.
    pub fn has(&self, ev: HookEvent) -> bool {
        self.groups.iter().any(|(e, _)| *e == ev)
    }

    /// Run every hook of `ev` whose matcher accepts one of `subjects` (a tool's names), in
    /// parallel, with the event's own input fields; merge their decisions.
    pub fn run(&self, ev: HookEvent, subjects: &[&str], fields: Map<String, Value>) -> Outcome {
        let cmds: Vec<&CommandHook> = self
            .groups
            .iter()
            .filter(|(e, g)| *e == ev && g.pattern.accepts(subjects))
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
        input.extend(self.extra.clone());
        input.extend(fields);
        let stdin = Value::Object(input).to_string();
        let results = run::run_all(&cmds, &stdin, &self.cwd, &self.cancel);
        let mut out = Outcome::default();
        for (hook, r) in cmds.iter().zip(results) {
            output::merge(ev, hook, r, &mut out);
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
