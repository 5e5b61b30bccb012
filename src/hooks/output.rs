//! What a hook's exit code and output mean, as Claude Code reads them: exit 0 with JSON on
//! stdout decides (`continue`, `decision`, `hookSpecificOutput`), plain stdout is context
//! for UserPromptSubmit and SessionStart; exit 2 blocks where Claude Code's does, with
//! stderr as the reason; any other code is a non-blocking error shown to the user.
//!
//! A JSON answer longer than the output cap was cut and cannot be read: on an event that
//! decides whether something may happen it counts as a refusal, never as "nothing said"
//! (a cut `{"permissionDecision":"deny", ...}` must not let the call through).
use super::run::{cap_injected, Ran, MAX_READ};
use super::{CommandHook, HookEvent, Outcome, Permission};
use serde_json::Value;

fn label(hook: &CommandHook) -> String {
    let c: String = hook.command.chars().take(60).collect();
    if c.len() < hook.command.len() {
        format!("{c}...")
    } else {
        c
    }
}

/// Fold one hook's result into the event's outcome.
pub fn merge(ev: HookEvent, hook: &CommandHook, r: Ran, out: &mut Outcome) {
    let name = ev.name();
    let (code, stdout, stderr, cut) = match r {
        Ran::Exited {
            code,
            stdout,
            stderr,
            cut,
        } => (code, stdout, stderr, cut),
        Ran::TimedOut => {
            out.user_messages.push(format!(
                "{name} hook `{}` timed out after {} s and was killed",
                label(hook),
                hook.timeout.as_secs_f64()
            ));
            return;
        }
        Ran::Interrupted => {
            out.user_messages
                .push(format!("{name} hook `{}` was interrupted", label(hook)));
            return;
        }
        Ran::Failed(e) => {
            out.user_messages
                .push(format!("{name} hook `{}` failed: {e}", label(hook)));
            return;
        }
    };
    match code {
        0 => {}
        2 if ev.exit2_blocks() => {
            let reason = stderr.trim();
            out.block.get_or_insert_with(|| {
                if reason.is_empty() {
                    format!("blocked by a {name} hook")
                } else {
                    cap_injected(reason)
                }
            });
            return;
        }
        c => {
            let e = stderr.trim();
            out.user_messages.push(format!(
                "{name} hook `{}` {}{}{}",
                label(hook),
                if c == 2 {
                    "said (exit 2)".to_string()
                } else {
                    format!("failed (exit {c})")
                },
                if e.is_empty() { "" } else { ": " },
                cap_injected(e)
            ));
            return;
        }
    }
    // A cut plain text is still text (context, capped anyway); a cut JSON answer is not.
    if cut && stdout.trim_start().starts_with('{') {
        let why = format!(
            "the {name} hook `{}` printed more than {} MiB; its answer was cut and cannot be read",
            label(hook),
            MAX_READ / (1024 * 1024)
        );
        if ev.decides() {
            decide(out, Permission::Deny, None);
            out.block
                .get_or_insert_with(|| format!("{why}, so this is refused"));
        } else {
            out.user_messages.push(format!("{why} (ignored)"));
        }
        return;
    }
    let trimmed = stdout.trim();
    let json = if trimmed.starts_with('{') {
        serde_json::from_str::<Value>(trimmed).ok()
    } else {
        None
    };
    let Some(j) = json else {
        if trimmed.is_empty() {
            return;
        }
        if matches!(ev, HookEvent::UserPromptSubmit | HookEvent::SessionStart) {
            out.context.push(cap_injected(trimmed));
        } else {
            out.verbose.push(trimmed.to_string());
        }
        return;
    };
    json_output(ev, &j, out);
    if j.get("suppressOutput").and_then(Value::as_bool) != Some(true) {
        out.verbose.push(trimmed.to_string());
    }
}

fn text(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// The JSON answer of a hook that exited 0.
fn json_output(ev: HookEvent, j: &Value, out: &mut Outcome) {
    let name = ev.name();
    if let Some(m) = text(j, "systemMessage") {
        out.user_messages.push(m);
    }
    if j.get("continue").and_then(Value::as_bool) == Some(false) {
        let r = text(j, "stopReason").unwrap_or_else(|| format!("stopped by a {name} hook"));
        out.stop.get_or_insert(r);
    }
    let reason = text(j, "reason");
    let block = |out: &mut Outcome, why: Option<&str>| {
        out.block.get_or_insert_with(|| {
            why.filter(|w| !w.trim().is_empty())
                .map_or_else(|| format!("blocked by a {name} hook"), cap_injected)
        });
    };
    match text(j, "decision").as_deref() {
        Some("block") if ev == HookEvent::PreToolUse => {
            decide(out, Permission::Deny, None);
            block(out, reason.as_deref());
        }
        Some("block") => block(out, reason.as_deref()),
        // PreToolUse's older spelling of permissionDecision "allow".
        Some("approve") if ev == HookEvent::PreToolUse => decide(out, Permission::Allow, None),
        _ => {}
    }
    let Some(h) = j.get("hookSpecificOutput") else {
        return;
    };
    if ev == HookEvent::PreToolUse {
        let why = text(h, "permissionDecisionReason");
        match text(h, "permissionDecision").as_deref() {
            Some("deny") => {
                decide(out, Permission::Deny, None);
                out.block.get_or_insert_with(|| {
                    why.as_deref()
                        .map_or_else(|| format!("denied by a {name} hook"), cap_injected)
                });
            }
            Some("ask") => decide(out, Permission::Ask, why.clone()),
            Some("allow") => decide(out, Permission::Allow, why.clone()),
            _ => {}
        }
        if let Some(u) = h.get("updatedInput").filter(|u| u.is_object()) {
            out.updated_input = Some(u.clone());
        }
    }
    if ev == HookEvent::PermissionRequest {
        if let Some(d) = h.get("decision") {
            match text(d, "behavior").as_deref() {
                Some("allow") => {
                    decide(out, Permission::Allow, None);
                    if let Some(u) = d.get("updatedInput").filter(|u| u.is_object()) {
                        out.updated_input = Some(u.clone());
                    }
                    if let Some(Value::Array(p)) = d.get("updatedPermissions") {
                        out.updated_permissions.extend(p.iter().cloned());
                    }
                }
                Some("deny") => {
                    decide(out, Permission::Deny, None);
                    block(out, text(d, "message").as_deref());
                    if d.get("interrupt").and_then(Value::as_bool) == Some(true) {
                        out.stop
                            .get_or_insert_with(|| format!("interrupted by a {name} hook"));
                    }
                }
                _ => {}
            }
        }
    }
    if let Some(c) = text(h, "additionalContext").filter(|c| !c.trim().is_empty()) {
        out.context.push(cap_injected(&c));
    }
}

fn decide(out: &mut Outcome, p: Permission, why: Option<String>) {
    if out.permission.map(|q| p > q).unwrap_or(true) {
        out.permission = Some(p);
    }
    if let Some(w) = why {
        out.user_messages.push(w);
    }
}
