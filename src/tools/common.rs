//! Small helpers shared by the tools: argument access, path resolution, result building.
use super::truncate::truncate;
use super::{value_text, ToolHost, ToolOutput};
use serde_json::Value;
use std::path::PathBuf;

/// The decoded top-level member `key` as text (missing → empty).
pub fn arg(input: &Value, key: &str) -> String {
    input.get(key).map(value_text).unwrap_or_default()
}

/// True when the member is present (even if empty).
pub fn has(input: &Value, key: &str) -> bool {
    input.get(key).is_some_and(|v| !v.is_null())
}

/// `true`/`1` (boolean, number or text) → true.
pub fn flag(input: &Value, key: &str) -> bool {
    match input.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_i64() == Some(1),
        Some(Value::String(s)) => matches!(s.trim(), "true" | "1"),
        _ => false,
    }
}

/// An optional integer member: missing/empty → None; numbers or numeric text → Some;
/// anything else → an error naming the parameter.
pub fn int(input: &Value, key: &str) -> Result<Option<i64>, String> {
    match input.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .map(Some)
            .ok_or_else(|| format!("invalid {key}: {n}")),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| format!("invalid {key}: {s} (expected an integer)")),
        Some(other) => Err(format!("invalid {key}: {other} (expected an integer)")),
    }
}

/// Resolve a model-given path: `~/…` is expanded, relative paths are joined to the cwd,
/// `.` components are dropped (`..` is kept: symlinks make it non-lexical).
/// The `pattern` and `path` arguments Glob and Grep share: the pattern (an error result when
/// it is empty), the path as given (`.` when absent) and where it resolves to.
pub fn pattern_and_root(
    ctx: &dyn ToolHost,
    input: &Value,
) -> Result<(String, String, PathBuf), ToolOutput> {
    let pattern = arg(input, "pattern");
    if pattern.is_empty() {
        return Err(ToolOutput::error(
            "no pattern provided",
            ctx.limits().max_result_bytes,
        ));
    }
    let mut given = arg(input, "path");
    if given.is_empty() {
        given = ".".into();
    }
    let root = resolve(ctx, &given);
    Ok((pattern, given, root))
}

pub fn resolve(ctx: &dyn ToolHost, p: &str) -> PathBuf {
    let joined = resolve_raw(ctx, p);
    joined.components().collect()
}

fn resolve_raw(ctx: &dyn ToolHost, p: &str) -> PathBuf {
    let home = || {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
    };
    if p == "~" {
        home()
    } else if let Some(rest) = p.strip_prefix("~/") {
        home().join(rest)
    } else {
        let pb = PathBuf::from(p);
        if pb.is_absolute() {
            pb
        } else {
            ctx.cwd().join(pb)
        }
    }
}

/// Lossy UTF-8 (invalid bytes → U+FFFD) without copying valid input.
pub fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

impl ToolOutput {
    /// A failure: conv and display are `Error: <msg>` (truncated).
    pub fn error(msg: &str, max: usize) -> ToolOutput {
        let t = truncate(&format!("Error: {msg}"), max);
        ToolOutput {
            ok: false,
            conv: t.clone(),
            display: t,
            checklist: None,
        }
    }

    /// Plain text output: the same (truncated) text in conv and display; a failure gets
    /// the `Error: ` prefix.
    pub fn text(ok: bool, text: &str, max: usize) -> ToolOutput {
        let t = if ok {
            truncate(text, max)
        } else {
            truncate(&format!("Error: {text}"), max)
        };
        ToolOutput {
            ok,
            conv: t.clone(),
            display: t,
            checklist: None,
        }
    }
}
