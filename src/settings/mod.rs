//! Settings files: `<agent home>/settings.json` (user), `<project>/.bash-agent/settings.json`
//! (shared with the project) and `<project>/.bash-agent/settings.local.json` (personal), the
//! project being the git root above the working directory (else the working directory).
//! Precedence: flags > environment > local > project > user > defaults. [`overlay`] turns
//! the files into the flags a run did not give, so `config::resolve` keeps its one
//! resolution path; [`report`] says where each effective value came from.
pub mod claude;
pub mod claude_rules;
pub mod load;
pub mod merge;
pub mod trust;

pub use load::{load_file, Layer};
pub use merge::{merge, Entry, Source};

use crate::cli::Opts;
use crate::error::Error;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What a first run without a key is told: the variable of each provider and how to use a
/// local server, which needs none.
pub const NO_KEY_HELP: &str = "  claude (default):     export ANTHROPIC_API_KEY=...
  openai, responses:    export OPENAI_API_KEY=...   (with -p openai or -p responses)
  DeepSeek:             export DEEPSEEK_API_KEY=...
  a local server needs no key: --base-url http://127.0.0.1:8080/v1 -p openai
  (or ANTHROPIC_BASE_URL / OPENAI_BASE_URL, or base_url in ~/.bash-agent/settings.json)";

/// Every key a settings file may hold.
pub const KEYS: &[&str] = &[
    "provider",
    "model",
    "base_url",
    "api_key_env",
    "max_context",
    "max_tokens",
    "thinking",
    "effort",
    "sandbox",
    "permissions",
    "tool_env_allow",
    "mcpServers",
    "hooks",
    "prices",
    "vision",
    // Read by agent::prompt::imports, from the user's own file only.
    "allowed_imports",
    "trusted_folders",
    "mcp_unsandboxed",
];

/// The settings of one run: the merged entries and the warnings the files gave.
#[derive(Debug, Default, Clone)]
pub struct Settings {
    pub entries: std::collections::BTreeMap<String, Entry>,
    pub warnings: Vec<String>,
    /// The files read, in precedence order (lowest first).
    pub files: Vec<PathBuf>,
    /// What the project files of an untrusted folder asked for and did not get
    /// (`key (file)`), for the one note on stderr ([`trust`]).
    pub ignored: Vec<String>,
    /// What Claude Code's files (`.claude/settings*.json`, `~/.claude/settings.json`) give.
    pub claude: claude::Claude,
}

impl Settings {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.get(key).map(|e| &e.value)
    }

    /// A string value (numbers are given as their decimal text).
    pub fn text(&self, key: &str) -> Option<String> {
        match self.get(key)? {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// `sandbox.mode` (default `workspace-write`).
    pub fn sandbox_mode(&self) -> String {
        self.nested("sandbox", "mode")
            .unwrap_or_else(|| "workspace-write".into())
    }

    /// `permissions.mode`, else what a run without one uses.
    pub fn permission_mode(&self) -> String {
        self.nested("permissions", "mode")
            .unwrap_or_else(|| "default on a terminal, bypass headless".into())
    }

    /// `permissions.<kind>`: the rule texts of one kind (allow, ask, deny).
    pub fn rules(&self, kind: &str) -> Vec<String> {
        self.strings(self.get("permissions").and_then(|p| p.get(kind)))
    }

    /// `tool_env_allow`: names of variables tools may receive although they look like
    /// secrets.
    pub fn tool_env_allow(&self) -> Vec<String> {
        self.strings(self.get("tool_env_allow"))
    }

    /// `prices`, as the object `usage::prices` reads (`{"model": {"input": ..}}`).
    pub fn prices(&self) -> Option<&Value> {
        self.get("prices")
    }

    fn strings(&self, v: Option<&Value>) -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .filter(|s| !s.trim().is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    fn nested(&self, key: &str, field: &str) -> Option<String> {
        self.get(key)?
            .get(field)?
            .as_str()
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }
}

/// The project root for settings: the nearest folder above `cwd` (inclusive) holding `.git`,
/// else `cwd`. The walk is made once per folder and process: the settings, the hooks, the
/// MCP configuration, the instruction files and `/init` all ask at start-up
/// (docs/performance.md, "Start-up").
pub fn project_root(cwd: &Path) -> PathBuf {
    static LAST: std::sync::Mutex<Option<(PathBuf, PathBuf)>> = std::sync::Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, root)) = last.as_ref().filter(|(dir, _)| dir == cwd) {
        return root.clone();
    }
    let root = find_root(cwd);
    *last = Some((cwd.to_path_buf(), root.clone()));
    root
}

fn find_root(cwd: &Path) -> PathBuf {
    let mut d = Some(cwd);
    while let Some(p) = d {
        if p.join(".git").exists() {
            return p.to_path_buf();
        }
        d = p.parent();
    }
    cwd.to_path_buf()
}

/// The three files, lowest precedence first.
pub fn files(cwd: &Path) -> [(Source, PathBuf); 3] {
    let root = project_root(cwd).join(".bash-agent");
    [
        (
            Source::User,
            crate::session::paths::agent_home().join("settings.json"),
        ),
        (Source::Project, root.join("settings.json")),
        (Source::Local, root.join("settings.local.json")),
    ]
}

/// Read and merge the settings files for `cwd`. A malformed file is a usage error naming the
/// file, line and column.
///
/// The project's two files are input from the repository: a symlink out of the project is
/// not read (a warning), the user-only keys are dropped, and in a folder that is not
/// trusted only what narrows the layers below applies ([`trust::narrow`]).
pub fn load(cwd: &Path) -> Result<Settings, Error> {
    let mut layers = Vec::new();
    let mut s = Settings::default();
    let root = project_root(cwd);
    let trusted = trust::is_trusted(cwd);
    for (src, path) in files(cwd) {
        if src != Source::User {
            if let Err(w) = trust::check_link(&path, &root) {
                s.warnings.push(w);
                continue;
            }
        }
        if let Some(mut layer) = load_file(&path, src.clone()).map_err(Error::Usage)? {
            if src != Source::User {
                trust::strip_user_only(&mut layer);
                if !trusted {
                    let lower = merge(&layers);
                    s.ignored.extend(trust::narrow(&lower, &mut layer));
                }
            }
            s.warnings.extend(layer.warnings.iter().cloned());
            s.files.push(path);
            layers.push(layer);
        }
    }
    s.entries = merge(&layers);
    let own_mode = s.nested("permissions", "mode");
    let cc = claude::load(cwd, trusted, own_mode.as_deref());
    s.warnings.extend(cc.warnings);
    s.ignored.extend(cc.ignored);
    s.claude = cc.claude;
    Ok(s)
}

/// The settings for the current directory (none when it cannot be read).
pub fn load_here() -> Result<Settings, Error> {
    match crate::session::paths::physical_cwd() {
        Ok(cwd) => load(&cwd),
        Err(_) => Ok(Settings::default()),
    }
}

fn env_set(name: &str) -> bool {
    std::env::var(name).map(|v| !v.is_empty()).unwrap_or(false)
}

/// The environment variable that overrides `key` (if any) for this provider.
pub fn env_name(key: &str, provider: &str) -> Option<&'static str> {
    let openai = matches!(provider, "openai" | "responses");
    match key {
        "base_url" if openai => Some("OPENAI_BASE_URL"),
        "base_url" => Some("ANTHROPIC_BASE_URL"),
        "effort" => Some("EFFORT"),
        "thinking" => Some("THINKING"),
        "permissions" => Some(crate::permission::gate::MODE_ENV),
        "vision" => Some("AGENT_VISION"),
        _ => None,
    }
}

/// The flags with the settings filled in where neither a flag nor the environment gave a
/// value. `api_key_env` names the variable the key is read from (when no `--api-key`).
pub fn overlay(o: &Opts, s: &Settings) -> Opts {
    let mut o = o.clone();
    let provider = o
        .provider
        .clone()
        .or_else(|| s.text("provider"))
        .unwrap_or_else(|| "claude".into());
    let fill = |slot: &mut Option<String>, key: &str| {
        if slot.is_none() && !env_name(key, &provider).is_some_and(env_set) {
            *slot = s.text(key);
        }
    };
    fill(&mut o.provider, "provider");
    fill(&mut o.model, "model");
    fill(&mut o.base_url, "base_url");
    fill(&mut o.max_context, "max_context");
    fill(&mut o.max_tokens, "max_tokens");
    // Closed sets: a value clap would refuse is left out (the run's default applies).
    let mut thinking = None;
    fill(&mut thinking, "thinking");
    if o.thinking.is_none() {
        o.thinking = thinking.and_then(|v| clap::ValueEnum::from_str(v.trim(), false).ok());
    }
    let mut effort = None;
    fill(&mut effort, "effort");
    if o.effort.is_none() {
        o.effort = effort.and_then(|v| clap::ValueEnum::from_str(v.trim(), false).ok());
    }
    // The sandbox: settings apply when neither --sandbox nor BASH_AGENT_SANDBOX says.
    if o.sandbox.is_none() && !env_set(crate::sandbox::MODE_ENV) {
        o.sandbox = s.nested("sandbox", "mode");
    }
    if let Some(dirs) = s
        .get("sandbox")
        .and_then(|v| v.get("extra_dirs"))
        .and_then(|v| v.as_array())
    {
        o.add_dir
            .extend(dirs.iter().filter_map(|d| d.as_str().map(String::from)));
    }
    // Permissions: the mode when neither --permission-mode nor the environment says; the
    // rules of the settings are added to the flags' (a settings deny rule always applies).
    if o.permission_mode.is_none() && !env_set(crate::permission::gate::MODE_ENV) {
        o.permission_mode = s
            .nested("permissions", "mode")
            .or_else(|| s.claude.mode.as_ref().map(|(m, _)| m.clone()));
    }
    // Claude Code's `additionalDirectories` (trusted files only: see settings::claude).
    for (d, _) in &s.claude.dirs {
        if !o.add_dir.contains(d) {
            o.add_dir.push(d.clone());
        }
    }
    // (A sub-agent gets its parent's rules as flags and reads the same files: no doubles.)
    for (list, kind) in [
        (&mut o.allow, "allow"),
        (&mut o.ask, "ask"),
        (&mut o.deny, "deny"),
    ] {
        let cc = s
            .claude
            .rules
            .iter()
            .filter(|(k, _, _)| claude::kind_name(*k) == kind);
        for r in s
            .rules(kind)
            .into_iter()
            .chain(cc.map(|(_, t, _)| t.clone()))
        {
            if !list.contains(&r) {
                list.push(r);
            }
        }
    }
    // `vision`: true/false or "on"/"off" (images sent natively; --vision and AGENT_VISION win).
    if o.vision.is_none() && !env_set("AGENT_VISION") {
        o.vision = match s.get("vision") {
            Some(serde_json::Value::Bool(b)) => Some(if *b { "on" } else { "off" }.to_string()),
            Some(serde_json::Value::String(v)) => Some(v.trim().to_string()),
            _ => None,
        };
    }
    if o.api_key.is_none() {
        if let Some(var) = s.text("api_key_env") {
            o.api_key = std::env::var(&var).ok().filter(|v| !v.is_empty());
        }
    }
    o
}

/// Where the effective value of `key` comes from, given the flags.
pub fn source_of(key: &str, o: &Opts, s: &Settings, provider: &str) -> Source {
    let flag = match key {
        "provider" => o.provider.is_some(),
        "model" => o.model.is_some(),
        "base_url" => o.base_url.is_some(),
        "max_context" => o.max_context.is_some(),
        "max_tokens" => o.max_tokens.is_some(),
        "thinking" => o.thinking.is_some(),
        "effort" => o.effort.is_some(),
        "permissions" => o.permission_mode.is_some(),
        "vision" => o.vision.is_some(),
        _ => false,
    };
    if flag {
        return Source::Flag;
    }
    if let Some(e) = env_name(key, provider).filter(|e| env_set(e)) {
        return Source::Env(e.to_string());
    }
    s.entries
        .get(key)
        .map(|e| e.source.clone())
        .unwrap_or(Source::Default)
}
