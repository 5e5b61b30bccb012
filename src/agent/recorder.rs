//! The session recorder: every write a turn makes to its session folder goes through here —
//! the events.jsonl lines, the conversation lines (an assistant line and its results in one
//! write), the stats.json counters, the usage ledger and the notify drain. Storage never
//! prints; a failed write comes back as an error for the loop to show and act on.
use crate::config::Config;
use crate::ipc::resp::Frame;
use crate::protocol::Event;
use crate::provider::CallInfo;
use crate::session::conversation::{self as conv, Reasoning, ToolUse};
use crate::session::events::EventLog;
use crate::session::stats::{self, Stats, Usage};
use crate::session::Session;

/// The writer of one session.
pub struct Recorder {
    session: Session,
    events: EventLog,
    provider: String,
    model: String,
}

/// What one model call leaves in the conversation.
pub struct CallRecord<'a> {
    /// The thinking and redacted_thinking blocks, in order, with their signatures.
    pub reasoning: &'a [Reasoning],
    /// Extra members of the first thinking block (`"key":value,…`, empty for none): what the
    /// provider needs replayed (the Responses API's encrypted reasoning items).
    pub thinking_extra: &'a str,
    pub text: &'a str,
    pub tools: &'a [ToolUse],
    /// `(tool_use_id, result text)` for each call in `tools`, in order.
    pub results: &'a [(String, String)],
}

impl Recorder {
    pub fn new(session: Session, events: EventLog, cfg: &Config) -> Recorder {
        Recorder {
            session,
            events,
            provider: cfg.provider.kind.name().to_string(),
            model: cfg.provider.model.clone(),
        }
    }

    /// The event log (shared with the notify reader and sub-agent reapers).
    pub fn events(&self) -> &EventLog {
        &self.events
    }

    /// Append a turn event's line.
    pub fn event(&self, e: &Event) -> Result<(), String> {
        self.events
            .append(&e.line())
            .map_err(|err| format!("cannot write events.jsonl: {err}"))
    }

    /// Append a line that stream-json keeps off stdout (the reference does).
    pub fn quiet(&self, line: &str) {
        let _ = self.events.append_quiet(line);
    }

    /// The user's message for this turn.
    pub fn user_message(&self, text: &str) -> Result<(), String> {
        conv::append_lines(&self.session.conversation(), &[conv::user_text_line(text)])
            .map_err(|e| format!("cannot write conversation.jsonl: {e}"))
    }

    /// An assistant line and, when it called tools, its results line, in one write: the
    /// conversation never holds a tool_use without its result. Nothing to store is Ok.
    pub fn call(&self, c: &CallRecord) -> Result<(), String> {
        if c.text.is_empty()
            && c.reasoning.is_empty()
            && c.thinking_extra.is_empty()
            && c.tools.is_empty()
        {
            return Ok(());
        }
        // Streamed into the file: a 50 MB answer is not copied into a line first.
        conv::append_call_with(
            &self.session.conversation(),
            c.reasoning,
            c.thinking_extra,
            c.text,
            c.tools,
            c.results,
        )
        .map_err(|e| format!("cannot write conversation.jsonl: {e}"))
    }

    /// Update stats.json.
    pub fn stats(&self, f: impl FnOnce(&mut Stats)) -> Result<(), String> {
        stats::update(&self.session.stats(), f)
            .map(|_| ())
            .map_err(|e| format!("cannot write stats.json: {e}"))
    }

    /// One usage-ledger line for a model call (`kind`: agent, sub_agent, compact).
    pub fn ledger(&self, kind: &str, u: &Usage, speed: u64, info: &CallInfo) {
        let e = crate::usage::ledger::LedgerEntry {
            time: crate::util::time::utc_iso_now(),
            provider: self.provider.clone(),
            model: self.model.clone(),
            kind: kind.to_string(),
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_creation: u.cache_creation,
            elapsed_ms: info.elapsed_ms,
            first_token_ms: info.first_token_ms.unwrap_or(0),
            tok_per_sec: speed,
            retries: info.retries as u64,
            estimated: info.usage_estimated,
        };
        crate::usage::ledger::record(&self.session, &e);
    }

    /// Take what notify.buf holds (sub-agent and background results, injected notes).
    pub fn drain_notifications(&self) -> Vec<Frame> {
        crate::ipc::notify::drain(&self.session)
    }
}
