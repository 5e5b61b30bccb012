//! Where MCP servers are configured, in the JSON shape Claude Code reads, so an existing
//! `.mcp.json` works unchanged:
//!
//! ```json
//! {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"], "env": {}}}}
//! ```
//!
//! Two places: the user's `~/.bash-agent/settings.json` (`mcpServers`) and the project's
//! `.mcp.json` at the project root (the git root above the working directory, else the working
//! directory, as for the settings files); a project entry overrides a user entry of the same
//! name. This is a deliberately tiny reader of those two files; the settings module, once it
//! exists, replaces the user-file half.
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Which file an entry lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `~/.bash-agent/settings.json`
    User,
    /// `<project root>/.mcp.json`
    Project,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "user" => Some(Scope::User),
            "project" => Some(Scope::Project),
            _ => None,
        }
    }

    /// The file of this scope.
    pub fn path(self, cwd: &Path) -> PathBuf {
        match self {
            Scope::User => crate::session::paths::agent_home().join("settings.json"),
            Scope::Project => crate::settings::project_root(cwd).join(".mcp.json"),
        }
    }
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        cwd: Option<PathBuf>,
    },
    /// `type: "http"` (streamable HTTP) with a URL and extra headers; `type: "sse"` (the
    /// legacy HTTP+SSE transport) is recognised but not started (`legacy_sse`).
    Http {
        url: String,
        headers: Vec<(String, String)>,
        legacy_sse: bool,
    },
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerConfig {
    pub name: String,
    pub scope: Scope,
    pub transport: Transport,
    /// The entry as written (for `mcp get`).
    pub raw: Value,
}

/// A server name usable in a tool name (`mcp__<name>__<tool>`, at most 64 characters).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 40
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.contains("__")
}

/// Read one file's `mcpServers` object (missing file: empty; unreadable or invalid: error).
pub fn read_servers(path: &Path) -> Result<Map<String, Value>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: invalid JSON: {e}", path.display()))?;
    match v.get("mcpServers") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(format!("{}: mcpServers must be an object", path.display())),
    }
}

/// Parse one entry.
pub fn parse_entry(
    name: &str,
    scope: Scope,
    v: &Value,
    base: &Path,
) -> Result<ServerConfig, String> {
    if !valid_name(name) {
        return Err(format!(
            "MCP server name {name:?}: use letters, digits, '-' and '_' (no \"__\", at most 40)"
        ));
    }
    let obj = v
        .as_object()
        .ok_or_else(|| format!("MCP server {name}: the entry must be an object"))?;
    let s = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
    let ex = |t: &str| expand(t).map_err(|e| format!("MCP server {name}: {e}"));
    let kind = s("type").unwrap_or_default();
    let transport =
        if kind == "http" || kind == "sse" || (kind.is_empty() && obj.contains_key("url")) {
            let headers = match obj.get("headers") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, x)| Ok((k.clone(), ex(x.as_str().unwrap_or_default())?)))
                    .collect::<Result<_, String>>()?,
                Some(_) => return Err(format!("MCP server {name}: `headers` must be an object")),
            };
            Transport::Http {
                url: ex(&s("url").ok_or_else(|| format!("MCP server {name}: `url` is missing"))?)?,
                headers,
                legacy_sse: kind == "sse",
            }
        } else if kind.is_empty() || kind == "stdio" {
            let command = s("command")
                .filter(|c| !c.is_empty())
                .ok_or_else(|| format!("MCP server {name}: `command` is missing"))?;
            let args = match obj.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| match x {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect(),
                Some(_) => return Err(format!("MCP server {name}: `args` must be an array")),
            };
            let env = match obj.get("env") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, x)| {
                        let v = match x {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        Ok((k.clone(), ex(&v)?))
                    })
                    .collect::<Result<_, String>>()?,
                Some(_) => return Err(format!("MCP server {name}: `env` must be an object")),
            };
            let cwd = match s("cwd") {
                Some(c) => {
                    let p = PathBuf::from(ex(&c)?);
                    Some(if p.is_absolute() { p } else { base.join(p) })
                }
                None => None,
            };
            Transport::Stdio {
                command: ex(&command)?,
                args: args.iter().map(|a| ex(a)).collect::<Result<_, String>>()?,
                env,
                cwd,
            }
        } else {
            return Err(format!("MCP server {name}: unknown type {kind:?}"));
        };
    Ok(ServerConfig {
        name: name.to_string(),
        scope,
        transport,
        raw: v.clone(),
    })
}

/// `${VAR}` and `${VAR:-default}` from our environment, as Claude Code expands them in
/// `.mcp.json` (so a shared file can name a key without containing it). A provider key is
/// never expanded, whoever's file names it: a server names the variable it may read, and
/// the agent's own key is not among them (it would land in the server's environment, in its
/// argv for every local user to read in /proc, or in a header sent to the server's URL).
pub fn expand(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find('}') {
            Some(j) => {
                let inner = &after[..j];
                let (var, default) = match inner.find(":-") {
                    Some(k) => (&inner[..k], Some(&inner[k + 2..])),
                    None => (inner, None),
                };
                match std::env::var(var) {
                    Ok(v) if !v.is_empty() => {
                        if crate::sandbox::env::is_provider_key(var, &v) {
                            return Err(format!(
                                "${{{var}}} names a provider key, which is never given to an MCP server (give the server its own variable: docs/mcp.md)"
                            ));
                        }
                        out.push_str(&v)
                    }
                    _ => out.push_str(default.unwrap_or("")),
                }
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// Every server this run may start (user first, then project; a project entry replaces a
/// user entry of the same name), plus a warning for each entry or file that could not be
/// read. The project's `.mcp.json` counts only in a trusted folder (docs/sandbox.md,
/// "Trust"); the note about an untrusted one is the trust decision's, not a warning here.
pub fn load(cwd: &Path) -> (Vec<ServerConfig>, Vec<String>) {
    load_with(cwd, crate::settings::trust::is_trusted(cwd))
}

/// [`load`] with the trust decision given (`mcp list` shows an untrusted folder's servers).
pub fn load_with(cwd: &Path, trusted: bool) -> (Vec<ServerConfig>, Vec<String>) {
    let mut servers: Vec<ServerConfig> = Vec::new();
    let mut warnings = Vec::new();
    let scopes: &[Scope] = if trusted {
        &[Scope::User, Scope::Project]
    } else {
        &[Scope::User]
    };
    for &scope in scopes {
        let path = scope.path(cwd);
        if scope == Scope::Project {
            let root = crate::settings::project_root(cwd);
            if let Err(w) = crate::settings::trust::check_link(&path, &root) {
                warnings.push(w);
                continue;
            }
        }
        match read_servers(&path) {
            Ok(m) => {
                for (name, v) in &m {
                    // A relative `cwd` in .mcp.json is relative to the project root.
                    let base = match scope {
                        Scope::Project => path.parent().unwrap_or(cwd),
                        Scope::User => cwd,
                    };
                    match parse_entry(name, scope, v, base) {
                        Ok(c) => {
                            servers.retain(|s| s.name != c.name);
                            servers.push(c);
                        }
                        Err(e) => warnings.push(e),
                    }
                }
            }
            Err(e) => warnings.push(e),
        }
    }
    (servers, warnings)
}

/// True when neither file names a server. A missing file or one without the text
/// `"mcpServers"` is not parsed, so a run with nothing configured pays two small reads and
/// starts nothing.
pub fn none_configured(cwd: &Path) -> bool {
    [Scope::User, Scope::Project].iter().all(|s| {
        let path = s.path(cwd);
        match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Ok(t) if !t.contains("\"mcpServers\"") => true,
            _ => read_servers(&path).map(|m| m.is_empty()).unwrap_or(false),
        }
    })
}

/// Add (or replace) one entry in a scope's file, keeping the file's other keys; written
/// atomically.
pub fn write_entry(path: &Path, name: &str, entry: Option<Value>) -> Result<bool, String> {
    let mut root: Value = match std::fs::read_to_string(path) {
        Ok(t) if !t.trim().is_empty() => serde_json::from_str(&t)
            .map_err(|e| format!("{}: invalid JSON: {e}", path.display()))?,
        Ok(_) => Value::Object(Map::new()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Object(Map::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let obj = root
        .as_object_mut()
        .ok_or_else(|| format!("{}: not a JSON object", path.display()))?;
    let servers = obj
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let servers = servers
        .as_object_mut()
        .ok_or_else(|| format!("{}: mcpServers must be an object", path.display()))?;
    let changed = match entry {
        Some(e) => {
            servers.insert(name.to_string(), e);
            true
        }
        None => servers.remove(name).is_some(),
    };
    if !changed {
        return Ok(false);
    }
    let mut text = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())?;
    text.push('\n');
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    crate::util::fsx::write_atomic(path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_parse_like_claude_code() {
        let base = Path::new("/p");
        let c = parse_entry(
            "fs",
            Scope::Project,
            &json!({"command": "npx", "args": ["-y", "x", "."], "env": {"A": "1"}, "cwd": "sub"}),
            base,
        )
        .unwrap();
        assert_eq!(
            c.transport,
            Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "x".into(), ".".into()],
                env: vec![("A".into(), "1".into())],
                cwd: Some(PathBuf::from("/p/sub")),
            }
        );
        let h = parse_entry(
            "h",
            Scope::User,
            &json!({"type": "http", "url": "http://x", "headers": {"Authorization": "Bearer ${BASH_AGENT_NO_SUCH_VAR:-t}"}}),
            base,
        );
        assert_eq!(
            h.unwrap().transport,
            Transport::Http {
                url: "http://x".into(),
                headers: vec![("Authorization".into(), "Bearer t".into())],
                legacy_sse: false
            }
        );
        assert!(parse_entry("a__b", Scope::User, &json!({"command": "x"}), base).is_err());
        assert!(parse_entry("ok", Scope::User, &json!({"args": []}), base).is_err());
    }

    #[test]
    fn variables_expand_with_defaults() {
        assert_eq!(expand("a${BASH_AGENT_NO_SUCH_VAR:-d}b").unwrap(), "adb");
        assert_eq!(expand("${BASH_AGENT_NO_SUCH_VAR}").unwrap(), "");
        assert_eq!(expand("plain ${unclosed").unwrap(), "plain ${unclosed");
    }
}
