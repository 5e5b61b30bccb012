//! Tool names and tool inputs as Claude Code's hooks see them. Hook scripts written for
//! Claude Code read `.tool_input.file_path` and compare `.tool_name` with its names, so a
//! hook's input speaks Claude Code's schema and an `updatedInput` comes back translated
//! (docs/hooks.md, "Input").
use serde_json::{Map, Value};
use std::path::Path;

/// The name Claude Code gives our tool (`SubAgent` is its `Agent`, once `Task`).
pub fn cc_name(ours: &str) -> &str {
    match ours {
        "SubAgent" => "Agent",
        other => other,
    }
}

/// Every name a matcher may use for our tool: Claude Code's, its older one, ours.
pub fn subjects(ours: &str) -> Vec<&str> {
    match ours {
        "SubAgent" => vec!["Agent", "Task", "SubAgent"],
        other => vec![other],
    }
}

/// Our input as Claude Code's tool of that name takes it; a file path is absolute there
/// (made so against `cwd`).
pub fn to_cc(tool: &str, input: &Value, cwd: &Path) -> Value {
    let Some(obj) = input.as_object() else {
        return input.clone();
    };
    let mut out = Map::new();
    for (k, v) in obj {
        let (k, v) = match (tool, k.as_str()) {
            ("Read" | "Write" | "Edit", "path") => (
                "file_path",
                v.as_str()
                    .map(|p| Value::from(cwd.join(p).display().to_string()))
                    .unwrap_or_else(|| v.clone()),
            ),
            // Claude Code's Bash timeout is in milliseconds, ours in seconds.
            ("Bash", "timeout") => (
                "timeout",
                v.as_f64()
                    .map(|s| Value::from((s * 1000.0) as u64))
                    .unwrap_or_else(|| v.clone()),
            ),
            ("Bash", "async" | "background") => ("run_in_background", v.clone()),
            ("Grep", "context") => ("-C", v.clone()),
            ("Skill", "name") => ("skill", v.clone()),
            (_, k) => (k, v.clone()),
        };
        out.insert(k.to_string(), v);
    }
    Value::Object(out)
}

/// A hook's `updatedInput` (Claude Code's names) over our input: the fields it gives
/// replace ours, translated back; the others stay.
pub fn from_cc(tool: &str, original: &Value, updated: &Value) -> Value {
    let mut out = original.as_object().cloned().unwrap_or_default();
    let Some(upd) = updated.as_object() else {
        return Value::Object(out);
    };
    for (k, v) in upd {
        let (k, v) = match (tool, k.as_str()) {
            ("Read" | "Write" | "Edit", "file_path") => ("path", v.clone()),
            ("Bash", "timeout") => (
                "timeout",
                v.as_f64()
                    .map(|ms| Value::from((ms / 1000.0).ceil() as u64))
                    .unwrap_or_else(|| v.clone()),
            ),
            ("Bash", "run_in_background") => {
                out.remove("background");
                ("async", v.clone())
            }
            ("Grep", "-C") => ("context", v.clone()),
            ("Skill", "skill") => ("name", v.clone()),
            (_, k) => (k, v.clone()),
        };
        out.insert(k.to_string(), v);
    }
    Value::Object(out)
}

/// A tool's result as Claude Code's `tool_response` carries it for the common tools (the
/// file path, a command's output), with bash-agent's `success` and `output` beside.
pub fn response(tool: &str, input: &Value, ok: bool, output: &str) -> Value {
    let mut r = Map::new();
    r.insert("success".into(), ok.into());
    r.insert("output".into(), output.into());
    match tool {
        "Read" | "Write" | "Edit" => {
            if let Some(p) = input.get("path") {
                r.insert("filePath".into(), p.clone());
            }
        }
        "Bash" => {
            r.insert("stdout".into(), output.into());
            r.insert("stderr".into(), "".into());
            r.insert("interrupted".into(), false.into());
        }
        _ => {}
    }
    Value::Object(r)
}

/// Our permission mode as Claude Code names it in `permission_mode`.
pub fn cc_mode(ours: &str) -> &'static str {
    match ours {
        "accept-edits" => "acceptEdits",
        "plan" => "plan",
        "bypass" => "bypassPermissions",
        _ => "default",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn inputs_round_trip_through_claude_codes_names() {
        let ours = json!({"path": "a.rs", "old_string": "x", "new_string": "y"});
        let cc = to_cc("Edit", &ours, Path::new("/p"));
        assert_eq!(
            cc,
            json!({"file_path": "/p/a.rs", "old_string": "x", "new_string": "y"})
        );
        let abs = json!({"path": "/p/a.rs", "old_string": "x", "new_string": "y"});
        assert_eq!(from_cc("Edit", &ours, &cc), abs);
        let b = to_cc(
            "Bash",
            &json!({"command": "ls", "timeout": 5, "async": true}),
            Path::new("/p"),
        );
        assert_eq!(
            b,
            json!({"command": "ls", "timeout": 5000, "run_in_background": true})
        );
        let back = from_cc(
            "Bash",
            &json!({"command": "ls"}),
            &json!({"command": "ls -la"}),
        );
        assert_eq!(back, json!({"command": "ls -la"}));
        assert_eq!(cc_name("SubAgent"), "Agent");
        assert!(subjects("SubAgent").contains(&"Task"));
    }
}
