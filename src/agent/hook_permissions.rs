//! A PermissionRequest hook's `updatedPermissions`, Claude Code's permission updates, as
//! far as a session goes: `addRules` adds its rules (Claude Code's tool names mapped) for
//! the rest of the run, `setMode` changes the mode. The update's `destination` is not
//! written: whatever file it names, the change lasts for this session only (a hook does
//! not edit the user's settings files here). The other kinds (`replaceRules`,
//! `removeRules`, `addDirectories`, `removeDirectories`) are named in one warning each.
use crate::agent::context::AgentCtx;
use crate::permission::{PermMode, RuleKind};
use serde_json::Value;

/// Apply each update; a malformed one is a warning, never an error of the call.
pub fn apply(ctx: &AgentCtx, updates: &[Value]) {
    for u in updates {
        if let Err(e) = one(ctx, u) {
            ctx.out
                .warn(&format!("PermissionRequest hook: updatedPermissions: {e}"));
        }
    }
}

fn one(ctx: &AgentCtx, u: &Value) -> Result<(), String> {
    let kind = u.get("type").and_then(Value::as_str).unwrap_or_default();
    match kind {
        "addRules" => {
            let behavior = match u.get("behavior").and_then(Value::as_str) {
                Some("allow") => RuleKind::Allow,
                Some("ask") => RuleKind::Ask,
                Some("deny") => RuleKind::Deny,
                other => return Err(format!("addRules with behavior {other:?} (ignored)")),
            };
            let rules = u
                .get("rules")
                .and_then(Value::as_array)
                .ok_or("addRules without a rules list (ignored)")?;
            let texts: Vec<String> = rules.iter().filter_map(rule_text).collect();
            if texts.len() != rules.len() {
                return Err("addRules: a rule without a toolName (ignored)".into());
            }
            ctx.permission
                .add_rules(behavior, &ctx.cwd, &texts)
                .map_err(|e| format!("addRules: {e} (ignored)"))
        }
        "setMode" => {
            let m = u.get("mode").and_then(Value::as_str).unwrap_or_default();
            // Claude Code's dontAsk: ask nothing of a headless run, as `default` does here.
            let mode = if m == "dontAsk" {
                Some(PermMode::Default)
            } else {
                PermMode::parse(m)
            };
            let mode = mode.ok_or_else(|| format!("setMode {m:?} is not a mode (ignored)"))?;
            ctx.permission.set_mode(mode);
            Ok(())
        }
        other => Err(format!("{other:?} is not applied by bash-agent")),
    }
}

/// `{"toolName": "Bash", "ruleContent": "npm test"}` as the rule `Bash(npm test)`, the
/// tool named as ours.
fn rule_text(r: &Value) -> Option<String> {
    let tool = r.get("toolName").and_then(Value::as_str)?;
    let text = match r.get("ruleContent").and_then(Value::as_str) {
        Some(c) if !c.is_empty() => format!("{tool}({c})"),
        _ => tool.to_string(),
    };
    Some(crate::settings::claude_rules::translate_rule(&text))
}
