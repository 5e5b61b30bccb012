//! Reading one settings file: JSON (an object) or a clear error naming the file, line and
//! column; unknown keys are kept out and reported as warnings.
use super::merge::Source;
use serde_json::{Map, Value};
use std::path::Path;

/// The known keys of one file.
#[derive(Debug, Clone)]
pub struct Layer {
    pub source: Source,
    pub path: std::path::PathBuf,
    pub values: Map<String, Value>,
    pub warnings: Vec<String>,
}

/// Read `path`; `Ok(None)` when it does not exist.
pub fn load_file(path: &Path, source: Source) -> Result<Option<Layer>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    parse(&text, path, source).map(Some)
}

/// Parse one file's text.
pub fn parse(text: &str, path: &Path, source: Source) -> Result<Layer, String> {
    let mut layer = Layer {
        source,
        path: path.to_path_buf(),
        values: Map::new(),
        warnings: Vec::new(),
    };
    if text.trim().is_empty() {
        return Ok(layer);
    }
    let v: Value = serde_json::from_str(text).map_err(|e| {
        format!(
            "{}:{}:{}: malformed settings: {e}",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    let Value::Object(obj) = v else {
        return Err(format!(
            "{}:1:1: malformed settings: expected a JSON object",
            path.display()
        ));
    };
    for (k, val) in obj {
        if super::KEYS.contains(&k.as_str()) {
            if let Some(msg) = check(&k, &val).or_else(|| check_fields(&k, &val)) {
                return Err(format!("{}: {k}: {msg}", path.display()));
            }
            layer.values.insert(k, val);
        } else if !k.starts_with('$') {
            // `$schema` and other `$` keys are editor metadata, not settings.
            layer
                .warnings
                .push(format!("{}: unknown key \"{k}\" (ignored)", path.display()));
        }
    }
    Ok(layer)
}

/// The shape a key's value must have, or why it does not.
fn check(key: &str, v: &Value) -> Option<String> {
    let ok = match key {
        "max_context" | "max_tokens" => v.is_u64() || v.is_string(),
        "sandbox" | "permissions" | "mcpServers" | "hooks" | "prices" => v.is_object(),
        "tool_env_allow" | "mcp_unsandboxed" | "allowed_imports" => {
            v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
        }
        "trusted_folders" => v
            .as_object()
            .is_some_and(|m| m.values().all(Value::is_boolean)),
        "vision" => v.is_boolean() || v.as_str().is_some_and(|s| s == "on" || s == "off"),
        _ => v.is_string(),
    };
    (!ok).then(|| {
        match key {
            "max_context" | "max_tokens" => "expected a number or a string like \"200k\"",
            "sandbox" | "permissions" | "mcpServers" | "hooks" | "prices" => "expected an object",
            "tool_env_allow" | "mcp_unsandboxed" | "allowed_imports" => {
                "expected an array of strings"
            }
            "trusted_folders" => "expected an object of folder paths to true or false",
            "vision" => "expected true, false, \"on\" or \"off\"",
            _ => "expected a string",
        }
        .to_string()
    })
}

/// The fields of `permissions` (a known mode, lists of rules that parse) and `prices`
/// (numbers): a file that would change what a run may do, or what it costs, must be right,
/// not half-applied.
fn check_fields(key: &str, v: &Value) -> Option<String> {
    use crate::permission::{PermMode, Rule, RuleKind};
    match key {
        "permissions" => {
            if let Some(m) = v.get("mode") {
                if m.as_str().and_then(PermMode::parse).is_none() {
                    return Some(format!(
                        "mode: unknown permission mode {m} (default, accept-edits, plan, bypass)"
                    ));
                }
            }
            for (field, kind) in [
                ("allow", RuleKind::Allow),
                ("ask", RuleKind::Ask),
                ("deny", RuleKind::Deny),
            ] {
                let Some(list) = v.get(field) else { continue };
                let Some(items) = list.as_array() else {
                    return Some(format!("{field}: expected an array of rules"));
                };
                for r in items {
                    let Some(text) = r.as_str() else {
                        return Some(format!("{field}: expected an array of rules"));
                    };
                    if let Err(e) = Rule::parse(kind, text, std::path::Path::new("/")) {
                        return Some(format!("{field}: {e}"));
                    }
                }
            }
            None
        }
        "prices" => v.as_object()?.iter().find_map(|(model, fields)| {
            let ok = fields
                .as_object()
                .is_some_and(|f| f.values().all(Value::is_number));
            (!ok)
                .then(|| format!("{model}: expected an object of numbers (USD per million tokens)"))
        }),
        _ => None,
    }
}
