//! Where hooks are configured: `hooks` in the settings files (`~/.bash-agent/settings.json`,
//! the project's `.bash-agent/settings.json` and `settings.local.json`, and Claude Code's
//! `~/.claude/settings.json`, `.claude/settings.json`, `.claude/settings.local.json`), in
//! Claude Code's JSON shape. Hooks are not merged like other keys: every file's hooks run.
use super::{CommandHook, Group, HookEvent, Matcher};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Per-hook timeout when the entry names none: Claude Code's for command hooks (10
/// minutes), so a slow formatter or test hook is not killed here where it runs there.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

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
        .chain(crate::settings::claude::files(cwd))
        .filter(|(src, p)| *src == Source::User || (trusted && trust::check_link(p, &root).is_ok()))
        .map(|(_, p)| p)
        .collect()
}

/// A matcher as Claude Code reads it: empty or `*` = everything; only names (letters,
/// digits, `_`, `-`) joined by `|` or `,` = one of those names exactly (`Edit|Write`);
/// anything else = a regular expression found anywhere in the subject (`mcp__fs__.*`).
pub fn matcher(m: &str) -> Result<Matcher, String> {
    let m = m.trim();
    if m.is_empty() || m == "*" {
        return Ok(Matcher::All);
    }
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|' | ',' | ' ');
    if m.chars().all(plain) {
        return Ok(Matcher::Names(
            m.split(['|', ','])
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .collect(),
        ));
    }
    regex::Regex::new(m)
        .map(Matcher::Regex)
        .map_err(|e| format!("bad hook matcher {m:?}: {e}"))
}

/// `origin` with the line `"key"` first appears on in `text`, when it can be found.
fn at_line(origin: &str, text: &str, key: &str) -> String {
    match text.find(&format!("\"{key}\"")) {
        Some(i) => format!("{origin}:{}", text[..i].matches('\n').count() + 1),
        None => origin.to_string(),
    }
}

/// Parse one file's `hooks` object (`text`, the file's text, for the line of a warning).
pub fn parse(v: &Value, origin: &str, text: &str) -> (Vec<(HookEvent, Group)>, Vec<String>) {
    let mut out = Vec::new();
    let mut warn = Vec::new();
    let Some(obj) = v.get("hooks").and_then(Value::as_object) else {
        return (out, warn);
    };
    for (ev_name, groups) in obj {
        let Some(ev) = HookEvent::parse(ev_name) else {
            warn.push(format!(
                "{}: unknown hook event {ev_name:?}; its hooks are ignored (the others load)",
                at_line(origin, text, ev_name)
            ));
            continue;
        };
        let Some(groups) = groups.as_array() else {
            warn.push(format!(
                "{}: {ev_name}: expected an array of matcher groups; ignored",
                at_line(origin, text, ev_name)
            ));
            continue;
        };
        if let Some(why) = ev.never_fires() {
            warn.push(format!(
                "{}: {ev_name} hooks load but never fire ({why})",
                at_line(origin, text, ev_name)
            ));
        }
        for g in groups {
            let written = g.get("matcher").and_then(Value::as_str).unwrap_or("");
            let pattern = match matcher(written) {
                Ok(p) => p,
                Err(e) => {
                    warn.push(format!("{}: {e}", at_line(origin, text, ev_name)));
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
                        "{}: {ev_name} hook skipped (only `type: \"command\"` hooks with a command run)",
                        at_line(origin, text, ev_name)
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
                out.push((
                    ev,
                    Group {
                        pattern,
                        hooks,
                        matcher: written.to_string(),
                        origin: origin.to_string(),
                    },
                ));
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
        // A file that is not JSON was named by the settings loader already.
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            let (g, w) = parse(&v, &f.display().to_string(), &text);
            all.extend(g);
            warn.extend(w);
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
        assert!(matches!(matcher("*").unwrap(), Matcher::All));
        assert!(matches!(matcher("").unwrap(), Matcher::All));
        let m = matcher("Bash|Write").unwrap();
        assert!(m.accepts(&["Bash"]) && m.accepts(&["Write"]));
        assert!(!m.accepts(&["Bashful"]) && !m.accepts(&["Read"]));
        let m = matcher("mcp__fs__.*").unwrap();
        assert!(m.accepts(&["mcp__fs__read_file"]));
        // A regex is found anywhere, as Claude Code's (unanchored).
        assert!(matcher("^Notebook").unwrap().accepts(&["NotebookEdit"]));
        assert!(matcher("Edit.*").unwrap().accepts(&["MultiEdit"]));
        assert!(matcher("(").is_err());
    }

    #[test]
    fn groups_parse() {
        let v = json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": 5}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "y"}]}],
            "Nope": []
        }});
        let text = serde_json::to_string_pretty(&v).unwrap();
        let (g, w) = parse(&v, "f", &text);
        assert_eq!(g.len(), 2);
        let pre = g.iter().find(|(e, _)| *e == HookEvent::PreToolUse).unwrap();
        assert_eq!(pre.1.hooks[0].timeout, Duration::from_secs(5));
        let stop = g.iter().find(|(e, _)| *e == HookEvent::Stop).unwrap();
        assert_eq!(stop.1.hooks[0].timeout, DEFAULT_TIMEOUT);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("f:") && w[0].contains("unknown hook event \"Nope\""),
            "{w:?}"
        );
    }
}
