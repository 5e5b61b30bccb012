//! Context compaction (docs/compaction.md): nothing is trimmed before a summary exists.
//!
//! Decide how many trailing conversation lines to keep ([`dp`]), summarise the dropped
//! head with one model call, then — only once a non-empty summary exists — write
//! summary.txt (atomic), append the head to conversation-archive.jsonl (one write) and
//! replace conversation.jsonl with the tail (atomic). Any failure before that point leaves
//! the session folder as it was.
pub mod dp;

use crate::agent::context::AgentCtx;
use crate::provider::{Request, StreamEvent};
use crate::session::events::ev;
use crate::session::stats::{self, Stats};
use crate::util::fsx;
use dp::{dp_keep, line_tokens, turn_keep, DpParams};

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompactOutcome {
    /// Nothing to do (context small enough, or nothing can be dropped).
    NotNeeded,
    /// `dropped` lines went to the archive, `kept` lines remain.
    Compacted { dropped: usize, kept: usize },
    /// The session is unchanged; the message says why.
    Failed(String),
}

/// The instruction appended to the dropped messages (our own words, same five fields).
pub const SUMMARY_INSTRUCTION: &str = "\
The messages above are being removed from your context to make room. Do not call any tools and do not think out loud: reply with a plain-text summary only.
If a context snapshot already exists in the system prompt, merge it with what happened in the messages above so nothing important is lost.
Answer with exactly these five fields, each on its own line and in this order:
Task focus: <the overall goal being worked on>
Latest request: <the user's most recent request, as precisely as possible>
Progress: <what is done, what is in progress, what remains>
Tool evidence: <key facts learned from tool results: files, paths, commands, outputs, errors>
Reflections: <mistakes to avoid, decisions made, open questions>";

/// The summary call's instruction: [`SUMMARY_INSTRUCTION`], then the person's own
/// instructions (`/compact TEXT`) when there are any.
pub fn summary_instruction(extra: &str) -> String {
    match extra.trim() {
        "" => SUMMARY_INSTRUCTION.to_string(),
        extra => format!(
            "{SUMMARY_INSTRUCTION}\nThe user gave these instructions for this summary; follow them within the five fields:\n{extra}"
        ),
    }
}

/// The trigger names (`auto`, `plan_confirm`, `plan_clear`, `manual`).
fn is_plan_trigger(trigger: &str) -> bool {
    trigger == "plan_confirm" || trigger == "plan_clear"
}

/// Non-empty lines of the conversation file, verbatim (nothing is ever dropped silently).
fn raw_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

/// Decide how many trailing lines to keep; `None` = do not compact.
///
/// `auto` acts only when the context (the larger of the last call's real token count and
/// the conversation's estimate) exceeds 90% of `max_context`; the cost model picks the cut
/// and, when it declines, the fallback keeps the last quarter of the user turns. Plan
/// triggers and manual compaction skip the threshold.
pub fn decide(
    lines: &[String],
    trigger: &str,
    force: bool,
    st: &Stats,
    p: &DpParams,
    max_context: u64,
) -> Option<usize> {
    let total = lines.len();
    if total == 0 {
        return None;
    }
    let estimate: u64 = lines.iter().map(|l| line_tokens(l)).sum();
    let context = st.current_context_tokens.max(estimate);
    let over = context > 0 && context > max_context.saturating_mul(90) / 100;
    if !(force || is_plan_trigger(trigger) || over) {
        return None;
    }
    let mut keep = dp_keep(lines, p, st, max_context);
    if keep == 0 || keep >= total {
        keep = turn_keep(lines, p.min_keep_ratio);
    }
    (keep > 0 && keep < total).then_some(keep)
}

/// `auto` before every call: whether the context is surely under the threshold, from one
/// streaming pass over the file's bytes (an upper bound of the estimate [`decide`] makes),
/// so a long session is not read whole and copied for every call that compacts nothing.
///
/// The file's size alone answers first: a stored line of `L ≥ 1` bytes counts at most
/// `ceil(3L/4) + 1 ≤ 3L` tokens in that estimate (a lossy read of invalid UTF-8 at most
/// triples its bytes), so a file of `size` bytes estimates at most `3 · size` tokens. A
/// session far under the limit (the usual case, e.g. 18 MB against a 100m context) is
/// then not read at all; only one within 3× of it is scanned.
fn surely_under(conv: &std::path::Path, stats: &std::path::Path, ctx: &AgentCtx) -> bool {
    surely_under_limit(conv, stats, ctx.cfg.max_context)
}

/// [`surely_under`] for a `max_context`.
pub(crate) fn surely_under_limit(
    conv: &std::path::Path,
    stats: &std::path::Path,
    max_context: u64,
) -> bool {
    use std::io::BufRead;
    let limit = max_context.saturating_mul(90) / 100;
    let st = Stats::load(stats);
    if st.current_context_tokens > limit {
        return false;
    }
    if let Ok(md) = std::fs::metadata(conv) {
        if md.is_file() && md.len().saturating_mul(3) <= limit {
            return true;
        }
    }
    let Ok(f) = std::fs::File::open(conv) else {
        return false;
    };
    let mut r = std::io::BufReader::with_capacity(256 * 1024, f);
    let (mut upper, mut line) = (0u64, Vec::new());
    loop {
        line.clear();
        match r.read_until(b'\n', &mut line) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
        let l = line.strip_suffix(b"\n").unwrap_or(&line);
        let l = l.strip_suffix(b"\r").unwrap_or(l);
        if l.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // Invalid UTF-8 grows when read lossily: count such a line three times over.
        let n = if std::str::from_utf8(l).is_ok() {
            l.len()
        } else {
            l.len() * 3
        };
        upper += (n as u64).div_ceil(4) + 1;
        if upper > limit {
            return false;
        }
    }
}

/// Run a compaction. Never panics; errors become `Failed` with the session untouched.
/// `force` (manual `compact` / `/compact`): compact even when the cost model says no, as long
/// as something can be dropped. `system` is the next call's prompt (the summary call reuses it
/// so it shares its cache).
pub fn compact(ctx: &AgentCtx, system: &str, trigger: &str, force: bool) -> CompactOutcome {
    compact_with(ctx, system, trigger, force, "")
}

/// [`compact`] with the person's own instructions for the summary (`/compact TEXT`, as in
/// Claude Code): added after the fixed instruction, which still fixes the five fields.
pub fn compact_with(
    ctx: &AgentCtx,
    system: &str,
    trigger: &str,
    force: bool,
    instructions: &str,
) -> CompactOutcome {
    let s = &ctx.session;
    if !force && !is_plan_trigger(trigger) && surely_under(&s.conversation(), &s.stats(), ctx) {
        return CompactOutcome::NotNeeded;
    }
    let original = match std::fs::read(s.conversation()) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return CompactOutcome::NotNeeded,
        Err(e) => return fail(&format!("cannot read conversation: {e}")),
    };
    let text = String::from_utf8_lossy(&original).into_owned();
    let lines = raw_lines(&text);
    let st = Stats::load(&s.stats());
    let p = DpParams::from_env();
    let keep = match decide(&lines, trigger, force, &st, &p, ctx.cfg.max_context) {
        Some(k) => k,
        None => return CompactOutcome::NotNeeded,
    };
    // Extensions: PreCompact hooks, which may block the compaction (as in Claude Code).
    let t = if force { "manual" } else { trigger };
    if let Some(why) = crate::agent::extensions::pre_compact(ctx, t, instructions) {
        return CompactOutcome::Failed(format!("compaction blocked by a PreCompact hook: {why}"));
    }
    let cut = lines.len() - keep;
    let (head, tail) = lines.split_at(cut);

    let summary = match summarize(ctx, system, head, instructions) {
        Ok(sm) => sm,
        Err(e) => return fail(&e),
    };
    if ctx.cancel.is_cancelled() {
        return fail("interrupted");
    }
    // No concurrent writer is expected (the loop owns conversation writes), but never
    // trim a file that changed under us.
    match std::fs::read(s.conversation()) {
        Ok(now) if now == original => {}
        Ok(_) => return fail("the conversation changed during compaction"),
        Err(e) => return fail(&format!("cannot re-read conversation: {e}")),
    }
    if let Err(e) = fsx::write_atomic(&s.summary(), format!("{summary}\n").as_bytes()) {
        return fail(&format!("cannot write summary.txt: {e}"));
    }
    if let Err(e) = fsx::append_bytes(&s.archive(), joined(head).as_bytes()) {
        return fail(&format!("cannot append to conversation-archive.jsonl: {e}"));
    }
    if let Err(e) = fsx::write_atomic(&s.conversation(), joined(tail).as_bytes()) {
        return fail(&format!("cannot replace conversation.jsonl: {e}"));
    }
    // The last call's token count no longer describes the context; until the next call
    // reports real numbers, estimate it (kept tail + system prompt) so the next `auto`
    // check does not compact again on a stale figure.
    let estimate = tail.iter().map(|l| line_tokens(l)).sum::<u64>() + line_tokens(system);
    let _ = stats::update(&s.stats(), |st| st.current_context_tokens = estimate);
    session_start_compact(ctx, &summary);
    crate::agent::hook_events::post_compact(ctx, t, &summary);
    CompactOutcome::Compacted {
        dropped: head.len(),
        kept: tail.len(),
    }
}

/// SessionStart with `source: "compact"` (the main agent's, as in Claude Code): what its
/// hooks give is kept with the summary, so it reaches the very next request and stays
/// until the next compaction replaces it.
fn session_start_compact(ctx: &AgentCtx, summary: &str) {
    if ctx.depth > 0 {
        return;
    }
    let c = crate::agent::hook_events::session_context(ctx, "compact");
    if c.is_empty() {
        return;
    }
    let text = format!(
        "{summary}\n\n<hook-context>\n{}\n</hook-context>\n",
        c.join("\n")
    );
    if let Err(e) = fsx::write_atomic(&ctx.session.summary(), text.as_bytes()) {
        ctx.out
            .warn(&format!("SessionStart hook context not kept: {e}"));
    }
}

fn fail(msg: &str) -> CompactOutcome {
    CompactOutcome::Failed(format!("Failed to generate context summary: {msg}"))
}

fn joined(lines: &[String]) -> String {
    let mut s = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// The summary call: the dropped lines plus our instruction, same system prompt
/// and tools, thinking off. Returns the trimmed, non-empty summary text.
fn summarize(
    ctx: &AgentCtx,
    system: &str,
    head: &[String],
    instructions: &str,
) -> Result<String, String> {
    // Only well-formed lines go to the model (they are archived verbatim regardless).
    let valid: Vec<String> = head
        .iter()
        .filter(|l| {
            matches!(
                serde_json::from_str::<serde_json::Value>(l),
                Ok(serde_json::Value::Object(_))
            )
        })
        .cloned()
        .collect();
    let mut messages = crate::session::conversation::repair(valid);
    messages.push(crate::session::conversation::user_text_line(
        &summary_instruction(instructions),
    ));
    let req = Request {
        system,
        messages: &messages,
        tools_json: crate::tools::TOOLS_JSON_COMPACT,
        disable_thinking: true,
    };
    let mut text = String::new();
    let mut stop: Option<String> = None;
    let mut error: Option<String> = None;
    let stats_path = ctx.session.stats();
    let mut billed = None;
    let info = crate::provider::stream(&ctx.cfg.provider, &req, &ctx.cancel, &mut |e| match e {
        StreamEvent::Retry => {
            text.clear();
            stop = None;
            error = None;
        }
        StreamEvent::Text(t) => text.push_str(&t),
        StreamEvent::Usage { usage, speed } => {
            billed = Some((usage, speed));
            ctx.rec.quiet(&ev::usage(&usage, "compact"));
            let _ = stats::update(&stats_path, |st| {
                st.compact_request_count += 1;
                st.add_usage(&usage);
            });
        }
        StreamEvent::Stop(r) => stop = Some(r),
        StreamEvent::Error(m) => error = Some(m),
        StreamEvent::Thinking(_)
        | StreamEvent::Reasoning(_)
        | StreamEvent::ThinkingSignature(_)
        | StreamEvent::RedactedThinking(_)
        | StreamEvent::ServerBlock(_)
        | StreamEvent::ToolInputDelta(_)
        | StreamEvent::ToolCall { .. } => {}
    });
    if let Some((u, speed)) = billed {
        ctx.rec.ledger("compact", &u, speed, &info);
    }
    if ctx.cancel.is_cancelled() {
        return Err("interrupted".into());
    }
    let summary = text.trim().to_string();
    match (summary.is_empty(), error) {
        (true, error) => Err(format!(
            "empty text response (stop_reason={}, error={})",
            stop.as_deref().unwrap_or("none"),
            error.as_deref().unwrap_or("none")
        )),
        (false, Some(e)) => Err(e),
        (false, None) => Ok(summary),
    }
}

#[cfg(test)]
mod tests;
