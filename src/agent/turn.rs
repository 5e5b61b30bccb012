//! One turn: drain notifications → compact →
//! stream the model → run tools as their blocks complete → persist → repeat until a final
//! stop. Every exit path leaves conversation.jsonl consistent.
use crate::agent::emit::Emitter;
use crate::config::Config;
use crate::ipc::resp::Frame;
use crate::provider::{self, Request, StreamEvent};
use crate::session::conversation::{self as conv, ToolUse};
use crate::session::stats::{self, Usage};
use crate::session::Session;
use crate::tools::{self, ToolHost};
use crate::util::cancel::Cancel;
use std::path::PathBuf;

/// Turn kind: a user's input, or a wakeup by notifications (no input of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    UserInput,
    Notify,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    Done(String),
    Error(String),
    Interrupted,
}

/// What a turn needs.
pub struct TurnCtx<'a> {
    pub session: &'a Session,
    pub cfg: &'a Config,
    pub emit: &'a Emitter,
    pub cancel: &'a Cancel,
    pub host: &'a dyn ToolHost,
    pub cwd: PathBuf,
    pub depth: u32,
    /// Called on the first model output of each call (stops the spinner).
    pub on_first_output: &'a (dyn Fn() + Sync),
    /// Called before each model call (starts the spinner).
    pub on_call_start: &'a (dyn Fn() + Sync),
}

fn stats_update(ctx: &TurnCtx, f: impl FnOnce(&mut stats::Stats)) {
    if let Err(e) = stats::update(&ctx.session.stats(), f) {
        ctx.emit.warn(&format!("cannot write stats.json: {e}"));
    }
}

/// Run one turn.
pub fn run(ctx: &TurnCtx, input: &str, kind: Kind) -> TurnEnd {
    if kind == Kind::UserInput {
        let _ = ctx
            .emit
            .events
            .append(&crate::session::events::ev::user_input(input));
        let note = crate::history::undo::take_pending_note(ctx.session);
        let text = crate::agent::inject::conversation_text(ctx.session, input, note);
        if let Err(e) =
            conv::append_lines(&ctx.session.conversation(), &[conv::user_text_line(&text)])
        {
            let msg = format!("cannot write conversation.jsonl: {e}");
            ctx.emit.emit(&Frame::new(["ERROR", msg.as_str()]));
            return TurnEnd::Error(msg);
        }
    }
    stats_update(ctx, |s| s.current_turn_count += 1);
    let max = ctx.cfg.max_turns;
    let mut calls = 0u64;
    while calls < max {
        calls += 1;
        crate::agent::inject::drain_notifications(ctx);
        if ctx.cancel.is_cancelled() {
            ctx.emit.emit(&Frame::new(["STOP", "interrupted"]));
            return TurnEnd::Interrupted;
        }
        let mut system = build_prompt(ctx);
        if let Some(trigger) = auto_compact(ctx, &system) {
            // The new summary enters the prompt's <context-snapshot>.
            system = build_prompt(ctx);
            ctx.emit
                .emit(&Frame::new(["CONTEXT_UPDATE", "compact", trigger]));
        }
        match one_call(ctx, &system) {
            CallEnd::Continue => continue,
            CallEnd::Final(stop) => {
                if crate::agent::inject::drain_notifications(ctx) {
                    continue;
                }
                ctx.emit.emit(&Frame::new(["STOP", stop.as_str()]));
                return TurnEnd::Done(stop);
            }
            CallEnd::End(end) => return end,
        }
    }
    let msg = format!("Max turns ({max}) reached");
    ctx.emit.emit(&Frame::new(["ERROR", msg.as_str()]));
    TurnEnd::Error(msg)
}

/// The system prompt for the next call.
pub fn build_prompt(ctx: &TurnCtx) -> String {
    crate::agent::prompt::build(&crate::agent::prompt::PromptInputs {
        session: ctx.session,
        cwd: &ctx.cwd,
        skills: &ctx.cfg.skills,
        depth: ctx.depth,
    })
}

fn auto_compact(ctx: &TurnCtx, system: &str) -> Option<&'static str> {
    use crate::agent::compact::{compact, CompactCtx, CompactOutcome};
    let cctx = CompactCtx {
        session: ctx.session,
        cfg: ctx.cfg,
        system_prompt: system,
        events: &ctx.emit.events,
        cancel: ctx.cancel,
        force: false,
    };
    match compact(&cctx, "auto") {
        CompactOutcome::Compacted { .. } => Some("auto"),
        CompactOutcome::NotNeeded => None,
        CompactOutcome::Failed(m) => {
            ctx.emit.note(&format!("compaction skipped: {m}"));
            None
        }
    }
}

enum CallEnd {
    /// tool_use: another call in the same turn.
    Continue,
    /// A non-tool stop reason; the caller drains and emits the final STOP.
    Final(String),
    End(TurnEnd),
}

/// Partial state of one LLM call (reset on RETRY).
#[derive(Default)]
struct Partial {
    text: String,
    thinking: String,
    tools: Vec<ToolUse>,
    results: Vec<(String, String)>,
    stop: String,
    error: Option<String>,
    usage: Option<(Usage, u64)>,
}

fn one_call(ctx: &TurnCtx, system: &str) -> CallEnd {
    let messages = conv::message_lines(&ctx.session.conversation());
    let req = Request {
        system,
        messages: &messages,
        tools_json: tools::TOOLS_JSON,
        disable_thinking: false,
    };
    let mut st = Partial::default();
    let mut first = true;
    (ctx.on_call_start)();
    let info = {
        let mut on_event = |e: StreamEvent| {
            if first {
                first = false;
                (ctx.on_first_output)();
            }
            handle_event(ctx, &mut st, e)
        };
        provider::stream(&ctx.cfg.provider, &req, ctx.cancel, &mut on_event)
    };
    (ctx.on_first_output)();
    if let Some((u, speed)) = &st.usage {
        let kind = if ctx.depth > 0 { "sub_agent" } else { "agent" };
        crate::agent::host::ledger(ctx.session, ctx.cfg, kind, u, *speed, &info);
    }
    if ctx.cancel.is_cancelled() {
        if let Err(m) = persist(ctx, &st) {
            ctx.emit.warn(&m);
        }
        ctx.emit.emit(&Frame::new(["STOP", "interrupted"]));
        return CallEnd::End(TurnEnd::Interrupted);
    }
    if let Some(e) = st.error {
        return CallEnd::End(TurnEnd::Error(e));
    }
    match st.stop.as_str() {
        "" => {
            let msg = "Stream interrupted (no stop reason received)".to_string();
            ctx.emit.emit(&Frame::new(["ERROR", msg.as_str()]));
            CallEnd::End(TurnEnd::Error(msg))
        }
        "max_tokens" | "length" => {
            let msg = "Response truncated (max_tokens reached)".to_string();
            ctx.emit.emit(&Frame::new(["ERROR", msg.as_str()]));
            CallEnd::End(TurnEnd::Error(msg))
        }
        stop => {
            if let Err(msg) = persist(ctx, &st) {
                // The session can no longer record this call: end the turn (exit 1)
                // rather than let the model repeat calls it does not know it made.
                ctx.emit.emit(&Frame::new(["ERROR", msg.as_str()]));
                return CallEnd::End(TurnEnd::Error(msg));
            }
            if stop == "tool_use" || stop == "tool_calls" || !st.tools.is_empty() {
                CallEnd::Continue
            } else {
                CallEnd::Final(stop.to_string())
            }
        }
    }
}

/// Assistant line + its results line in one write (never a tool_use without its result).
fn persist(ctx: &TurnCtx, st: &Partial) -> Result<(), String> {
    if st.text.is_empty() && st.thinking.is_empty() && st.tools.is_empty() {
        return Ok(());
    }
    let mut lines = vec![conv::assistant_line(&st.thinking, &st.text, &st.tools)];
    if !st.tools.is_empty() {
        lines.push(conv::tool_results_line(&st.results));
    }
    conv::append_lines(&ctx.session.conversation(), &lines)
        .map_err(|e| format!("cannot write conversation.jsonl: {e}"))
}

fn handle_event(ctx: &TurnCtx, st: &mut Partial, e: StreamEvent) {
    match e {
        StreamEvent::Retry => {
            *st = Partial::default();
            ctx.emit.emit(&Frame::new(["RETRY"]));
        }
        StreamEvent::Text(t) => {
            st.text.push_str(&t);
            ctx.emit.emit(&Frame::new(["TEXT", t.as_str()]));
        }
        StreamEvent::Thinking(t) => {
            st.thinking.push_str(&t);
            ctx.emit.emit(&Frame::new(["THINKING", t.as_str()]));
        }
        StreamEvent::ToolCall {
            name,
            id,
            input_raw,
        } => {
            let (tool_use, result) = crate::agent::tool_call::run(ctx, name, id, input_raw);
            st.tools.push(tool_use);
            st.results.push(result);
        }
        StreamEvent::Usage { usage, speed } => {
            record_usage(ctx, &usage, speed);
            st.usage = Some((usage, speed));
        }
        StreamEvent::Stop(r) => {
            st.stop = r.clone();
            ctx.emit.emit(&Frame::new(["STOP", r.as_str()]));
        }
        StreamEvent::Error(m) => {
            st.error = Some(m.clone());
            ctx.emit.emit(&Frame::new(["ERROR", m.as_str()]));
        }
    }
}

fn record_usage(ctx: &TurnCtx, u: &Usage, speed: u64) {
    stats_update(ctx, |s| {
        s.agent_request_count += 1;
        s.add_usage(u);
        s.current_context_tokens = u.context();
        s.last_call_speed_tok_per_sec = speed;
    });
    ctx.emit.title(&ctx.session.stats(), true);
    let n = |v: u64| v.to_string();
    ctx.emit.emit(&Frame::new([
        "USAGE".to_string(),
        n(u.input),
        n(u.output),
        n(u.cache_read),
        n(u.cache_creation),
        n(speed),
    ]));
}
