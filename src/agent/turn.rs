//! One turn: drain notifications → compact → stream the model → run tools as their blocks
//! complete → store the call → run the effects tools asked for → repeat until a final stop.
//! Every exit path leaves conversation.jsonl consistent: what arrived is stored whether the
//! answer ended normally, was cut (max_tokens, a dead server, a stall) or was interrupted.
use crate::agent::call_state::{handle_event, stats_update, Partial};
use crate::agent::context::{AgentCtx, Effect};
use crate::agent::recorder::CallRecord;
use crate::protocol::{Event, StopReason};
use crate::provider::{self, Request, StreamEvent};
use crate::session::conversation as conv;

/// Turn kind: a user's input, or a wakeup by notifications (no input of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    UserInput,
    Notify,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    Done(StopReason),
    Error(String),
    Interrupted,
}

/// Run one turn.
pub fn run(ctx: &AgentCtx, input: &str, kind: Kind) -> TurnEnd {
    // Extensions: MCP servers start while the first request is built.
    crate::agent::extensions::turn_start(ctx);
    if kind == Kind::UserInput {
        ctx.emit(Event::UserInput {
            content: input.to_string(),
        });
        // Extensions: UserPromptSubmit may block the prompt or add context to it.
        let hook_extra = match crate::agent::extensions::user_prompt(ctx, input) {
            Ok(extra) => extra,
            Err(why) => {
                let msg = format!("prompt blocked by a UserPromptSubmit hook: {why}");
                ctx.emit(Event::error(msg.as_str()));
                return TurnEnd::Error(msg);
            }
        };
        let note = crate::history::undo::take_pending_note(&ctx.session);
        let body = ctx.slash.take_body(input);
        let mut text = crate::agent::inject::conversation_text(&ctx.session, &body, note);
        text.push_str(&hook_extra);
        text.push_str(&crate::agent::slash::take_attachments(ctx));
        if let Err(msg) = ctx.rec.user_message(&text) {
            ctx.emit(Event::error(msg.as_str()));
            return TurnEnd::Error(msg);
        }
    }
    stats_update(ctx, |s| s.current_turn_count += 1);
    let max = ctx.cfg.max_turns;
    let mut calls = 0u64;
    let mut stop_hook_active = false;
    // A context-window stop is compacted and retried once per turn.
    let mut context_retried = false;
    while calls < max {
        calls += 1;
        crate::agent::inject::drain_notifications(ctx);
        if ctx.cancel.is_cancelled() {
            ctx.emit(Event::stop(StopReason::Interrupted));
            return TurnEnd::Interrupted;
        }
        let mut system = ctx.prompt();
        if auto_compact(ctx, &system, "auto") {
            // The new summary enters the prompt's <context-snapshot>.
            system = ctx.prompt();
            ctx.emit(Event::context_update("auto"));
        }
        match one_call(ctx, &system, &mut context_retried) {
            CallEnd::Continue => {
                // Extensions: a hook's `continue: false` ends the turn here.
                if let Some(why) = ctx.ext.take_halt() {
                    ctx.emit(Event::error(format!("stopped by a hook: {why}")));
                    ctx.emit(Event::stop(StopReason::EndTurn));
                    return TurnEnd::Done(StopReason::EndTurn);
                }
                continue;
            }
            CallEnd::Final(stop) => {
                if crate::agent::inject::drain_notifications(ctx) {
                    continue;
                }
                // Extensions: a Stop hook may make the agent continue with its reason.
                if let Some(why) = crate::agent::extensions::stop(ctx, stop_hook_active) {
                    stop_hook_active = true;
                    let text = format!("Stop hook feedback:\n{why}");
                    ctx.emit(Event::UserNotify {
                        content: text.clone(),
                    });
                    if let Err(msg) = ctx.rec.user_message(&text) {
                        ctx.emit(Event::error(msg.as_str()));
                        return TurnEnd::Error(msg);
                    }
                    continue;
                }
                ctx.emit(Event::stop(stop.clone()));
                return TurnEnd::Done(stop);
            }
            CallEnd::End(end) => return end,
        }
    }
    let msg = format!("Max turns ({max}) reached");
    ctx.emit(Event::error(msg.as_str()));
    TurnEnd::Error(msg)
}

/// A compaction if the context asks for one (`auto`) or a tool did; true when it compacted.
fn auto_compact(ctx: &AgentCtx, system: &str, trigger: &str) -> bool {
    use crate::agent::compact::{compact, CompactOutcome};
    match compact(ctx, system, trigger, false) {
        CompactOutcome::Compacted { .. } => true,
        CompactOutcome::NotNeeded => false,
        CompactOutcome::Failed(m) => {
            ctx.out.note(&format!("compaction skipped: {m}"));
            false
        }
    }
}

enum CallEnd {
    /// tool_use: another call in the same turn.
    Continue,
    /// A non-tool stop reason; the caller drains and emits the final STOP.
    Final(StopReason),
    End(TurnEnd),
}

fn one_call(ctx: &AgentCtx, system: &str, context_retried: &mut bool) -> CallEnd {
    let mut messages = conv::message_lines(&ctx.session.conversation());
    // Vision: `[Image #N]` attachments go as images (provider/image.rs).
    if ctx.cfg.vision {
        let root = crate::session::paths::projects_root();
        match provider::image::inline(&messages, &root) {
            Ok(Some(m)) => messages = m,
            Ok(None) => {}
            Err(e) => {
                ctx.emit(Event::error(e.as_str()));
                return CallEnd::End(TurnEnd::Error(e));
            }
        }
    }
    // Extensions: the built-in tools plus the MCP servers' tools.
    let tools_json = crate::agent::extensions::tools_json(ctx);
    // A custom command's turn or a custom agent's run offers only its tools.
    let tools_json = ctx.custom.tools_json(tools_json);
    let req = Request {
        system,
        messages: &messages,
        tools_json: &tools_json,
        disable_thinking: false,
    };
    let mut st: Partial;
    let info = loop {
        let mut provider_cfg = ctx.custom.provider(&ctx.cfg.provider);
        if let Some(m) = ctx.fallback.model() {
            provider_cfg.to_mut().model = m;
        }
        st = Partial {
            model: provider_cfg.model.clone(),
            ..Partial::default()
        };
        ctx.spinner.start();
        let mut first = true;
        let info = {
            let mut on_event = |e: StreamEvent| {
                if first {
                    first = false;
                    ctx.spinner.stop();
                }
                handle_event(ctx, &mut st, e)
            };
            provider::stream(&provider_cfg, &req, &ctx.cancel, &mut on_event)
        };
        ctx.spinner.stop();
        st.finish_extra(&provider_cfg.base_url);
        // The model stayed overloaded: once per run, the same call goes to the fallback.
        match (&st.error, &ctx.cfg.overrides.fallback_model) {
            (Some(e), Some(f))
                if st.is_empty() && ctx.fallback.would_take(Some(f), &st.model, e) =>
            {
                ctx.out.warn(&format!(
                    "{} is overloaded; switching to the fallback model {f}",
                    st.model
                ));
                ctx.fallback.engage(f);
            }
            _ => break info,
        }
    };
    if let Some((u, speed)) = &st.usage {
        let kind = if ctx.depth > 0 { "sub_agent" } else { "agent" };
        ctx.rec.ledger(kind, u, *speed, &info);
    }
    if ctx.cancel.is_cancelled() {
        store(ctx, &st);
        ctx.emit(Event::stop(StopReason::Interrupted));
        return CallEnd::End(TurnEnd::Interrupted);
    }
    if let Some(e) = st.error.take() {
        // The error was shown as it arrived; keep what came before it.
        store(ctx, &st);
        return CallEnd::End(TurnEnd::Error(e));
    }
    let stop = match st.stop.clone() {
        None => return cut(ctx, &st, "Stream interrupted (no stop reason received)"),
        Some(StopReason::MaxTokens) => {
            return cut(ctx, &st, "Response truncated (max_tokens reached)")
        }
        Some(StopReason::Other(r)) if r == "refusal" => {
            return cut(
                ctx,
                &st,
                "The model declined to answer (stop_reason=refusal): rephrase the request or start a new session",
            )
        }
        Some(StopReason::Other(r)) if r == "model_context_window_exceeded" => {
            return context_exceeded(ctx, system, &st, context_retried);
        }
        Some(s) => s,
    };
    if st.is_empty() {
        // A gateway turns an upstream failure into an empty successful stream. Checked
        // before `pause_turn`: an empty pause has nothing to continue, and sending it
        // back would repeat the same call up to --max-turns times.
        let msg = format!(
            "the server returned an empty answer (stop_reason={})",
            stop.as_str()
        );
        ctx.emit(Event::error(msg.as_str()));
        return CallEnd::End(TurnEnd::Error(msg));
    }
    if stop == StopReason::Other("pause_turn".into()) && st.tools.is_empty() {
        // The API paused a long turn: the answer so far goes back as the last assistant
        // message and the model continues it (docs/providers.md#stop-reasons).
        if let Err(msg) = ctx.rec.call(&record(&st)) {
            ctx.emit(Event::error(msg.as_str()));
            return CallEnd::End(TurnEnd::Error(msg));
        }
        return CallEnd::Continue;
    }
    if let Err(msg) = ctx.rec.call(&record(&st)) {
        // The session can no longer record this call: end the turn (exit 1) rather than
        // let the model repeat calls it does not know it made.
        ctx.emit(Event::error(msg.as_str()));
        return CallEnd::End(TurnEnd::Error(msg));
    }
    run_effects(ctx, system);
    if stop == StopReason::ToolUse || !st.tools.is_empty() {
        CallEnd::Continue
    } else {
        CallEnd::Final(stop)
    }
}

/// `model_context_window_exceeded`: the context no longer fits the model. What arrived is
/// stored; the conversation is compacted and the call made again, once per turn; a second
/// time, or when nothing can be compacted, the turn ends with an error.
fn context_exceeded(ctx: &AgentCtx, system: &str, st: &Partial, retried: &mut bool) -> CallEnd {
    use crate::agent::compact::{compact, CompactOutcome};
    store(ctx, st);
    let msg = "The conversation no longer fits the model's context window (stop_reason=model_context_window_exceeded)";
    if std::mem::replace(retried, true) {
        ctx.emit(Event::error(msg));
        return CallEnd::End(TurnEnd::Error(msg.to_string()));
    }
    match compact(ctx, system, "auto", true) {
        CompactOutcome::Compacted { .. } => {
            ctx.emit(Event::context_update("auto"));
            CallEnd::Continue
        }
        CompactOutcome::NotNeeded | CompactOutcome::Failed(_) => {
            let msg = format!("{msg}; compaction could not make room");
            ctx.emit(Event::error(msg.as_str()));
            CallEnd::End(TurnEnd::Error(msg))
        }
    }
}

/// An answer that ended early: store what arrived, report, end the turn.
fn cut(ctx: &AgentCtx, st: &Partial, msg: &str) -> CallEnd {
    store(ctx, st);
    ctx.emit(Event::error(msg));
    CallEnd::End(TurnEnd::Error(msg.to_string()))
}

fn record(st: &Partial) -> CallRecord<'_> {
    CallRecord {
        reasoning: &st.reasoning,
        thinking_extra: &st.thinking_extra,
        text: &st.text,
        tools: &st.tools,
        results: &st.results,
    }
}

/// Store what arrived of a call that did not end normally (a failure is only shown).
fn store(ctx: &AgentCtx, st: &Partial) {
    if let Err(m) = ctx.rec.call(&record(st)) {
        ctx.out.warn(&m);
    }
    run_effects(ctx, "");
}

/// Effects the call's tools asked for, now that the call is stored.
fn run_effects(ctx: &AgentCtx, system: &str) {
    for effect in ctx.take_effects() {
        match effect {
            Effect::Compact(trigger) => {
                let system = if system.is_empty() {
                    ctx.prompt()
                } else {
                    system.to_string()
                };
                auto_compact(ctx, &system, &trigger);
            }
        }
    }
}
