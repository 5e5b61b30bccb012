//! Claude Code's settings files, read where a Claude Code user keeps them: the user's
//! `~/.claude/settings.json`, the project's `.claude/settings.json` and
//! `.claude/settings.local.json`, so a setup that works there works here unchanged
//! (docs/claude-code.md, "Settings and hooks").
//!
//! Claude Code's precedence holds among the three (local > project > user for a single
//! value such as `defaultMode`; the rule lists of all three add up and a deny always wins),
//! and bash-agent's own files win over them for a value both set: they are written for this
//! program. The project's two files are repository input under the same trust rules as
//! `.bash-agent/settings.json` ([`super::trust`]): in a folder that is not trusted only what
//! narrows applies (deny and ask rules, a stricter mode); allow rules,
//! `additionalDirectories`, `env` and hooks are ignored and the run says so.
//!
//! A file that is not JSON is one warning naming the file and line, never the end of the
//! run: the other files still load (a Claude Code user's file was not written for us).
use super::merge::Source;
use crate::permission::{PermMode, Rule, RuleKind};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What the Claude Code files of one folder give, with the file each part came from.
#[derive(Debug, Default, Clone)]
pub struct Claude {
    /// The files read, lowest precedence first.
    pub files: Vec<PathBuf>,
    /// Permission rules (kind, rule text in our tool names, the file).
    pub rules: Vec<(RuleKind, String, PathBuf)>,
    /// `defaultMode` as our mode name, from the highest file that set one.
    pub mode: Option<(String, PathBuf)>,
    /// `additionalDirectories`, made absolute.
    pub dirs: Vec<(String, PathBuf)>,
    /// `env` entries that apply to tools and hooks.
    pub env: Vec<(String, String, PathBuf)>,
    /// Keys Claude Code has that bash-agent does not use, per file (`statusLine (file)`).
    pub unused: Vec<String>,
}

/// The three files, lowest precedence first (the user's under `$HOME/.claude`).
pub fn files(cwd: &Path) -> [(Source, PathBuf); 3] {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let dir = super::project_root(cwd).join(".claude");
    [
        (Source::User, home.join(".claude").join("settings.json")),
        (Source::Project, dir.join("settings.json")),
        (Source::Local, dir.join("settings.local.json")),
    ]
}

/// The Claude Code keys this module applies; hooks are read by `hooks::config`.
const USED: &[&str] = &["permissions", "env", "hooks", "$schema"];

/// A rule kind as the settings key that holds it (`allow`, `ask`, `deny`).
pub fn kind_name(k: RuleKind) -> &'static str {
    match k {
        RuleKind::Allow => "allow",
        RuleKind::Ask => "ask",
        RuleKind::Deny => "deny",
    }
}

/// `defaultMode` as our mode: Claude Code's `dontAsk` (refuse what no allow rule covers) is
/// our `default`, which asks only where a person can answer and refuses elsewhere.
fn our_mode(m: &str) -> Option<&'static str> {
    match m {
        "default" => Some("default"),
        "acceptEdits" => Some("accept-edits"),
        "plan" => Some("plan"),
        "bypassPermissions" => Some("bypass"),
        "dontAsk" => Some("default"),
        _ => None,
    }
}

/// Rank of a permission mode: higher asks less.
pub fn mode_rank(m: &str) -> u8 {
    match PermMode::parse(m) {
        Some(PermMode::Plan) => 0,
        Some(PermMode::AcceptEdits) => 2,
        Some(PermMode::Bypass) => 3,
        _ => 1,
    }
}

/// Names an `env` entry may not set: what steers the agent itself (its provider, key and
/// endpoint, its own variables) and anything named like a credential. A settings file
/// does not pick where requests and keys go; those come from bash-agent's own flags,
/// settings and environment.
pub fn env_refused(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    n.starts_with("ANTHROPIC_")
        || n.starts_with("OPENAI_")
        || n.starts_with("DEEPSEEK_")
        || n.starts_with("BASH_AGENT_")
        || n.starts_with("AWS_")
        || n.starts_with("CLAUDE_CODE_USE_")
        || n.ends_with("_BASE_URL")
        || n.contains("PROXY")
        || matches!(n.as_str(), "PATH" | "HOME" | "SHELL" | "SSL_CERT_FILE")
        || n.starts_with("LD_")
        || crate::sandbox::env::is_secret_name(&n)
}

/// What was read, the warnings, and what an untrusted folder's files did not get
/// (`what (file)` texts).
pub struct Loaded {
    pub claude: Claude,
    pub warnings: Vec<String>,
    pub ignored: Vec<String>,
}

/// Read the three files of `cwd`. `trusted`: the folder's project files may widen;
/// `lower_mode`: the mode bash-agent's own settings give (an untrusted file may only make
/// it stricter).
pub fn load(cwd: &Path, trusted: bool, lower_mode: Option<&str>) -> Loaded {
    let mut out = Loaded {
        claude: Claude::default(),
        warnings: Vec::new(),
        ignored: Vec::new(),
    };
    let root = super::project_root(cwd);
    let mut cur_mode = lower_mode.unwrap_or("default").to_string();
    for (src, path) in files(cwd) {
        let project = src != Source::User;
        if project {
            if let Err(w) = super::trust::check_link(&path, &root) {
                out.warnings.push(w);
                continue;
            }
        }
        let Some(obj) = read(&path, &mut out.warnings) else {
            continue;
        };
        out.claude.files.push(path.clone());
        let narrow = project && !trusted;
        let file = path.display().to_string();
        let mut ignore = |what: String| out.ignored.push(format!("{what} ({file})"));
        let unused: Vec<&str> = obj
            .keys()
            .map(String::as_str)
            .filter(|k| !USED.contains(k))
            .collect();
        if !unused.is_empty() {
            out.claude
                .unused
                .push(format!("{} ({file})", unused.join(", ")));
        }
        if narrow
            && obj
                .get("hooks")
                .is_some_and(|h| h.as_object().is_some_and(|m| !m.is_empty()))
        {
            ignore("hooks".into());
        }
        if let Some(env) = obj.get("env") {
            match env.as_object() {
                Some(m) if narrow => {
                    if !m.is_empty() {
                        ignore("env".into());
                    }
                }
                Some(m) => {
                    for (k, v) in m {
                        let val = match v {
                            Value::String(s) => s.clone(),
                            Value::Number(_) | Value::Bool(_) => v.to_string(),
                            _ => {
                                out.warnings
                                    .push(format!("{file}: env.{k}: expected a string (ignored)"));
                                continue;
                            }
                        };
                        if env_refused(k) {
                            out.warnings.push(format!(
                                "{file}: env.{k} is not applied (provider, endpoint, credential and bash-agent's own variables come from bash-agent's own settings and environment)"
                            ));
                        } else {
                            out.claude.env.retain(|(n, _, _)| n != k);
                            out.claude.env.push((k.clone(), val, path.clone()));
                        }
                    }
                }
                None => out
                    .warnings
                    .push(format!("{file}: env: expected an object (ignored)")),
            }
        }
        let Some(perms) = obj.get("permissions") else {
            continue;
        };
        let Some(perms) = perms.as_object() else {
            out.warnings
                .push(format!("{file}: permissions: expected an object (ignored)"));
            continue;
        };
        for (field, kind) in [
            ("deny", RuleKind::Deny),
            ("ask", RuleKind::Ask),
            ("allow", RuleKind::Allow),
        ] {
            let Some(list) = perms.get(field) else {
                continue;
            };
            let Some(items) = list.as_array() else {
                out.warnings.push(format!(
                    "{file}: permissions.{field}: expected an array of rules (ignored)"
                ));
                continue;
            };
            if narrow && kind == RuleKind::Allow {
                if !items.is_empty() {
                    ignore(format!("permissions.allow ({} rules)", items.len()));
                }
                continue;
            }
            for r in items {
                let Some(text) = r.as_str().filter(|t| !t.trim().is_empty()) else {
                    out.warnings.push(format!(
                        "{file}: permissions.{field}: {r} is not a rule (ignored)"
                    ));
                    continue;
                };
                let ours = super::claude_rules::from_file(text, &path);
                match Rule::parse(kind, &ours, Path::new("/")) {
                    Ok(_) => out.claude.rules.push((kind, ours, path.clone())),
                    Err(e) => out
                        .warnings
                        .push(format!("{file}: permissions.{field}: {e} (ignored)")),
                }
            }
        }
        if let Some(m) = perms.get("defaultMode") {
            match m.as_str().and_then(our_mode) {
                None => out.warnings.push(format!(
                    "{file}: permissions.defaultMode {m} is not a mode bash-agent has (default, acceptEdits, plan, bypassPermissions, dontAsk); ignored"
                )),
                Some(ours) if narrow && mode_rank(ours) > mode_rank(&cur_mode) => {
                    ignore(format!("permissions.defaultMode {m}"));
                }
                Some(ours) => {
                    cur_mode = ours.to_string();
                    out.claude.mode = Some((ours.to_string(), path.clone()));
                }
            }
        }
        if let Some(dirs) = perms.get("additionalDirectories") {
            let items: Vec<&str> = dirs
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if narrow {
                if !items.is_empty() {
                    ignore("permissions.additionalDirectories".into());
                }
            } else {
                // Relative entries are relative to the project (Claude Code's `../seer`).
                let base = if project {
                    root.clone()
                } else {
                    cwd.to_path_buf()
                };
                for d in items {
                    let p = if let Some(rest) = d.strip_prefix("~/") {
                        PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(rest)
                    } else {
                        base.join(d)
                    };
                    if p.is_dir() {
                        out.claude
                            .dirs
                            .push((p.display().to_string(), path.clone()));
                    } else {
                        out.warnings.push(format!(
                            "{file}: permissions.additionalDirectories: {d} is not an existing folder (ignored)"
                        ));
                    }
                }
            }
        }
    }
    out
}

/// One file as a JSON object; `None` when absent or unreadable (a warning then).
fn read(path: &Path, warnings: &mut Vec<String>) -> Option<serde_json::Map<String, Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            warnings.push(format!("cannot read {}: {e}; ignored", path.display()));
            return None;
        }
    };
    if text.trim().is_empty() {
        return Some(Default::default());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(m)) => Some(m),
        Ok(_) => {
            warnings.push(format!(
                "{}:1: not a JSON object; this file is ignored, the others still apply",
                path.display()
            ));
            None
        }
        Err(e) => {
            warnings.push(format!(
                "{}:{}:{}: not valid JSON ({e}); this file is ignored, the others still apply",
                path.display(),
                e.line(),
                e.column()
            ));
            None
        }
    }
}

/// The one start-up line naming the Claude Code files read (None when there were none).
pub fn note(c: &Claude, cwd: &Path) -> Option<String> {
    if c.files.is_empty() {
        return None;
    }
    let root = format!("{}/", super::project_root(cwd).display());
    let home = std::env::var("HOME").unwrap_or_default();
    // Paths as a person reads them: relative to the project, `~` for the home folder.
    let short = |t: &str| {
        let t = t.replace(&root, "");
        if home.len() > 1 {
            t.replace(&format!("{home}/"), "~/")
        } else {
            t
        }
    };
    let names: Vec<String> = c
        .files
        .iter()
        .map(|f| short(&f.display().to_string()))
        .collect();
    let mut s = format!(
        "bash-agent: read Claude Code settings: {}",
        names.join(", ")
    );
    if !c.unused.is_empty() {
        let unused: Vec<String> = c.unused.iter().map(|u| short(u)).collect();
        s.push_str(&format!("; not used here: {}", unused.join("; ")));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_modes_map_to_ours() {
        assert_eq!(our_mode("acceptEdits"), Some("accept-edits"));
        assert_eq!(our_mode("bypassPermissions"), Some("bypass"));
        assert_eq!(our_mode("dontAsk"), Some("default"));
        assert_eq!(our_mode("yolo"), None);
        assert!(mode_rank("plan") < mode_rank("default"));
        assert!(mode_rank("default") < mode_rank("bypass"));
    }

    #[test]
    fn env_cannot_steer_the_agent_or_carry_secrets() {
        for n in [
            "ANTHROPIC_BASE_URL",
            "ANTHROPIC_API_KEY",
            "OPENAI_BASE_URL",
            "MY_GATEWAY_BASE_URL",
            "BASH_AGENT_SANDBOX",
            "HTTPS_PROXY",
            "GITHUB_TOKEN",
            "PATH",
            "LD_PRELOAD",
            "AWS_SECRET_ACCESS_KEY",
        ] {
            assert!(env_refused(n), "{n}");
        }
        for n in [
            "CLAUDE_FLOW_AUTO_COMMIT",
            "ENABLE_LSP_TOOL",
            "MAX_THINKING_TOKENS",
        ] {
            assert!(!env_refused(n), "{n}");
        }
    }
}
