//! The state of one model call while it streams: what arrived so far (text, thinking with
//! its signatures, reasoning items, tool calls and their results, the stop, the usage),
//! built from the provider's stream events. `turn` stores it, whether the call ended
//! normally, was cut or was interrupted; a RETRY starts it afresh.
use crate::agent::context::AgentCtx;
use crate::protocol::{Event, StopReason, Tokens, UsageKind};
use crate::provider::StreamEvent;
use crate::session::conversation::{Reasoning, ToolUse};
use crate::session::stats::Usage;

/// Partial state of one model call (reset on RETRY).
#[derive(Default)]
pub(super) struct Partial {
    pub(super) text: String,
    /// Thinking blocks (text and signature) and redacted_thinking blocks, in order.
    pub(super) reasoning: Vec<Reasoning>,
    /// Reasoning items to replay (Responses), JSON text each.
    pub(super) reasoning_items: Vec<String>,
    /// The thinking block's extra members, made from `reasoning_items` when the call ends.
    pub(super) thinking_extra: String,
    /// Blocks of tools the provider ran itself (web search), JSON text each.
    pub(super) server_blocks: Vec<String>,
    pub(super) tools: Vec<ToolUse>,
    pub(super) results: Vec<(String, String)>,
    pub(super) stop: Option<StopReason>,
    pub(super) error: Option<String>,
    pub(super) usage: Option<(Usage, u64)>,
    /// The model this call went to (`--fallback-model`).
    pub(super) model: String,
}

impl Partial {
    pub(super) fn is_empty(&self) -> bool {
        self.text.is_empty()
            && self.reasoning.is_empty()
            && self.reasoning_items.is_empty()
            && self.server_blocks.is_empty()
            && self.tools.is_empty()
    }

    /// The thinking block's extra members once the call ended: the Responses reasoning
    /// items, then the server blocks (provider/server_tools.rs).
    pub(super) fn finish_extra(&mut self, base_url: &str) {
        let mut e = crate::provider::reasoning_extra(&self.reasoning_items, base_url);
        let s = crate::provider::server_tools::extra(&self.server_blocks);
        if !s.is_empty() {
            if !e.is_empty() {
                e.push(',');
            }
            e.push_str(&s);
        }
        self.thinking_extra = e;
    }

    /// Thinking text continues the open (unsigned) thinking block, else opens one: a
    /// signature or a redacted block ends a block.
    fn push_thinking(&mut self, t: String) {
        match self.reasoning.last_mut() {
            Some(Reasoning::Thinking { text, signature }) if signature.is_empty() => {
                append_moved(text, t)
            }
            _ => self.reasoning.push(Reasoning::Thinking {
                text: t,
                signature: String::new(),
            }),
        }
    }

    /// The signature of the block that just ended (a block whose text the server omitted
    /// is kept as an empty signed block: it must still go back).
    fn sign_thinking(&mut self, sig: String) {
        match self.reasoning.last_mut() {
            Some(Reasoning::Thinking { signature, .. }) if signature.is_empty() => *signature = sig,
            _ => self.reasoning.push(Reasoning::Thinking {
                text: String::new(),
                signature: sig,
            }),
        }
    }
}

pub(super) fn handle_event(ctx: &AgentCtx, st: &mut Partial, e: StreamEvent) {
    match e {
        StreamEvent::Retry => {
            *st = Partial {
                model: std::mem::take(&mut st.model),
                ..Partial::default()
            };
            ctx.emit(Event::Retry);
        }
        StreamEvent::Text(t) => {
            let e = Event::text(t);
            emit_ref(ctx, &e);
            if let Event::Text { content } = e {
                append_moved(&mut st.text, content);
            }
        }
        StreamEvent::Thinking(t) => {
            let e = Event::thinking(t);
            emit_ref(ctx, &e);
            if let Event::Thinking { content } = e {
                st.push_thinking(content);
            }
        }
        StreamEvent::ToolInputDelta(n) => ctx.spinner.tool_input(n),
        StreamEvent::Reasoning(item) => {
            // A Responses web_search_call is replayed like a reasoning item; it is shown.
            if let Some(d) = crate::provider::server_tools::describe(&item) {
                ctx.out.note(&d);
            }
            st.reasoning_items.push(item)
        }
        StreamEvent::ServerBlock(block) => {
            if let Some(d) = crate::provider::server_tools::describe(&block) {
                ctx.out.note(&d);
            }
            st.server_blocks.push(block);
        }
        StreamEvent::ThinkingSignature(sig) => st.sign_thinking(sig),
        StreamEvent::RedactedThinking(data) => st.reasoning.push(Reasoning::Redacted { data }),
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
            let r = StopReason::parse(&r);
            st.stop = Some(r.clone());
            ctx.emit(Event::stop(r));
        }
        StreamEvent::Error(m) => {
            // An overload the fallback model takes over is a note, not the turn's error.
            let fallback = ctx.cfg.overrides.fallback_model.as_deref();
            if !(st.is_empty() && ctx.fallback.would_take(fallback, &st.model, &m)) {
                ctx.emit(Event::error(m.as_str()));
            }
            st.error = Some(m);
        }
    }
}

/// [`AgentCtx::emit`] of an event the caller keeps: a delta's text is logged and shown,
/// then moved into the call's text, so a huge answer in one delta is never held twice.
fn emit_ref(ctx: &AgentCtx, e: &Event) {
    if let Err(m) = ctx.rec.event(e) {
        ctx.out.warn(&m);
    }
    // The status line's phase and token count follow the stream (it froze at "waiting
    // for the model… 0 tokens" while an answer streamed).
    ctx.spinner.event(e);
    ctx.out.event(e);
}

/// `acc += s`, taking `s`'s buffer when `acc` is still empty (no copy).
fn append_moved(acc: &mut String, s: String) {
    if acc.is_empty() {
        *acc = s;
    } else {
        acc.push_str(&s);
    }
}

/// The usage line's token counts.
pub fn tokens(u: &Usage) -> Tokens {
    Tokens {
        input_tokens: u.input,
        output_tokens: u.output,
        cache_read_input_tokens: u.cache_read,
        cache_creation_input_tokens: u.cache_creation,
    }
}

fn record_usage(ctx: &AgentCtx, u: &Usage, speed: u64) {
    stats_update(ctx, |s| {
        s.agent_request_count += 1;
        s.add_usage(u);
        s.current_context_tokens = u.context();
        s.last_call_speed_tok_per_sec = speed;
    });
    ctx.out.title(&ctx.session.stats(), true);
    ctx.emit(Event::Usage {
        tokens: tokens(u),
        kind: UsageKind::Agent,
        sub_session_id: None,
        speed,
    });
}

pub(super) fn stats_update(ctx: &AgentCtx, f: impl FnOnce(&mut crate::session::stats::Stats)) {
    if let Err(m) = ctx.rec.stats(f) {
        ctx.out.warn(&m);
    }
}
