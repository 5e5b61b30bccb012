//! PlanConfirm / PlanClear (docs/tools-and-policy.md): compact first, then move the draft
//! to plan.md (or empty plan.md). Every file change is atomic.
use super::{ToolHost, ToolOutput};
use crate::util::fsx;

pub fn confirm(ctx: &dyn ToolHost) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let draft = ctx.session().plan_draft();
    let text = match std::fs::read(&draft) {
        Ok(t) if !t.iter().all(u8::is_ascii_whitespace) => t,
        _ => return ToolOutput::error("no plan draft found to confirm.", max),
    };
    ctx.request_compaction("plan_confirm");
    let plan = ctx.session().plan();
    if let Err(e) = fsx::write_atomic(&plan, &text) {
        return ToolOutput::error(&format!("cannot write {}: {e}", plan.display()), max);
    }
    if let Err(e) = fsx::write_atomic(&draft, b"") {
        return ToolOutput::error(&format!("cannot reset {}: {e}", draft.display()), max);
    }
    ToolOutput::text(true, "Plan confirmed and locked in.", max)
}

pub fn clear(ctx: &dyn ToolHost) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    ctx.request_compaction("plan_clear");
    let plan = ctx.session().plan();
    if fsx::non_empty(&plan) {
        if let Err(e) = fsx::write_atomic(&plan, b"") {
            return ToolOutput::error(&format!("cannot clear {}: {e}", plan.display()), max);
        }
    }
    ToolOutput::text(true, "Plan cleared.", max)
}
