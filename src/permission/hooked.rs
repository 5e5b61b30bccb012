//! What hooks say at the gate (Claude Code's order: PreToolUse before the permission check,
//! PermissionRequest where a question would be put). A PreToolUse `allow` skips a question
//! but never a deny rule; its `ask` puts a question where the rules would allow; a
//! PermissionRequest hook may answer the question in the person's place.
use super::ask::log;
use super::gate::CallEnv;
use super::{refusal_text, PermMode, RuleKind, Verdict};

/// The verdict after the hooks, or Err(the decision) when a hook settled the call.
pub(super) fn apply(
    env: &CallEnv,
    verdict: Verdict,
    mode: PermMode,
    label: &str,
) -> Result<Verdict, Result<(), String>> {
    let verdict = match (verdict, env.hook) {
        (Verdict::Ask { why, .. }, Some(RuleKind::Allow)) => {
            log(env, label, mode, "allowed", Some("hook"), &why, None);
            return Err(Ok(()));
        }
        (Verdict::Allow, Some(RuleKind::Ask)) => Verdict::Ask {
            why: "a PreToolUse hook asks for confirmation".into(),
            suggest: String::new(),
        },
        (v, _) => v,
    };
    let Verdict::Ask { why, suggest } = verdict else {
        return Ok(verdict);
    };
    match (env.on_ask)(&why) {
        Some(Ok(())) => {
            log(env, label, mode, "allowed", Some("hook"), &why, None);
            Err(Ok(()))
        }
        Some(Err(no)) => {
            log(env, label, mode, "refused", Some("hook"), &no, None);
            Err(Err(refusal_text(mode, &format!("{why}; {no}"), "", None)))
        }
        None => Ok(Verdict::Ask { why, suggest }),
    }
}
