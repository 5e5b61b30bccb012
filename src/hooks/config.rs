//! Where hooks are configured: `hooks` in the settings files (`~/.bash-agent/settings.json`,
//! the project's `.bash-agent/settings.json` and `settings.local.json`), in Claude Code's JSON
//! shape. Hooks are not merged like other keys: every file's hooks run.
use super::{CommandHook, Group, HookEvent};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Per-hook timeout when the entry names none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The settings files read, user first: the same three files as every other setting (user,
/// the project's `.bash-agent/settings.json`, its `settings.local.json`); the hooks of all
/// of them run, as in Claude Code. The project's two only in a trusted folder (a hook is a
/// program the repository would start: docs/sandbox.md, "Trust"), and not through a symlink
/// out of the project.
pub fn settings_files(cwd: &Path) -> Vec<PathBuf> {
    use crate::settings::{trust, Source};
    let trusted = trust::is_trusted(cwd);
    let root = crate::settings::project_root(cwd);
    crate::settings::files(cwd)
        .into_iter()
        .filter(|(src, p)| *src == Source::User || (trusted && trust::check_link(p, &root).is_ok()))
        .map(|(_, p)| p)
        .collect()
}

/// A matcher as Claude Code reads it: empty or `*` = everything, otherwise a regex that must
/// match the whole subject (`Bash`, `Edit|Write`, `mcp__fs__.*`).
pub fn matcher(m: &str) -> Result<Option<regex::Regex>, String> {
    let m = m.trim();
    if m.is_empty() || m == "*" {
        return Ok(None);
    }
    regex::Regex::new(&format!("^(?:{m})$"))
        .map(Some)
        .map_err(|e| format!("bad hook matcher {m:?}: {e}"))
}

/// Parse one file's `hooks` object.
pub fn parse(v: &Value, origin: &str) -> (Vec<(HookEvent, Group)>, Vec<String>) {
    let mut out = Vec::new();
    let mut warn = Vec::new();
    let Some(obj) = v.get("hooks").and_then(Value::as_object) else {
        return (out, warn);
    };
    for (ev_name, groups) in obj {
        let Some(ev) = HookEvent::parse(ev_name) else {
            warn.push(format!("{origin}: unknown hook event {ev_name:?}"));
            continue;
        };
        for g in groups.as_array().into_iter().flatten() {
            let pattern = match matcher(g.get("matcher").and_then(Value::as_str).unwrap_or("")) {
                Ok(p) => p,
                Err(e) => {
                    warn.push(format!("{origin}: {e}"));
                    continue;
                }
            };
            let mut hooks = Vec::new();
            for h in g
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let kind = h.get("type").and_then(Value::as_str).unwrap_or("command");
                let command = h.get("command").and_then(Value::as_str).unwrap_or("");
                if kind != "command" || command.is_empty() {
                    warn.push(format!(
                        "{origin}: {ev_name} hook skipped (only `type: \"command\"` hooks with a command run)"
                    ));
                    continue;
                }
                let timeout = h
                    .get("timeout")
                    .and_then(Value::as_f64)
                    .filter(|t| *t > 0.0)
                    .map(Duration::from_secs_f64)
                    .unwrap_or(DEFAULT_TIMEOUT);
                hooks.push(CommandHook {
                    command: command.to_string(),
                    timeout,
                });
            }
            if !hooks.is_empty() {
                out.push((ev, Group { pattern, hooks }));
            }
        }
    }
    (out, warn)
}

/// Every configured hook group, plus warnings for what could not be read.
pub fn load(cwd: &Path) -> (Vec<(HookEvent, Group)>, Vec<String>) {
    let mut all = Vec::new();
    let mut warn = Vec::new();
    for f in settings_files(cwd) {
        let text = match std::fs::read_to_string(&f) {
            Ok(t) => t,
            Err(_) => continue,
        };
        if !text.contains("\"hooks\"") {
            continue; // the common case: settings without hooks cost no parse
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => {
                let (g, w) = parse(&v, &f.display().to_string());
                all.extend(g);
                warn.extend(w);
            }
            Err(e) => warn.push(format!("{}: invalid JSON: {e}", f.display())),
        }
    }
    (all, warn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matchers_follow_claude_code() {
        assert!(matcher("*").unwrap().is_none());
        assert!(matcher("").unwrap().is_none());
        let m = matcher("Bash|Write").unwrap().unwrap();
        assert!(m.is_match("Bash") && m.is_match("Write"));
        assert!(!m.is_match("Bashful") && !m.is_match("Read"));
        let m = matcher("mcp__fs__.*").unwrap().unwrap();
        assert!(m.is_match("mcp__fs__read_file"));
        assert!(matcher("(").is_err());
    }

    #[test]
    fn groups_parse() {
        let v = json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": 5}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "y"}]}],
            "Nope": []
        }});
        let (g, w) = parse(&v, "f");
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].1.hooks[0].timeout, Duration::from_secs(5));
        assert_eq!(g[1].1.hooks[0].timeout, DEFAULT_TIMEOUT);
        assert_eq!(w.len(), 1);
    }
}
