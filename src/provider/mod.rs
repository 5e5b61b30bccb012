//! Model providers (docs/providers.md): request building, HTTP with retries, SSE parsing
//! and per-provider normalisation to [`StreamEvent`]s.
//!
//! Entry point: [`stream`]. It blocks, calls `on_event` for every event in order, and
//! always ends with either `Stop` (after `Usage`) or `Error` — a stream that ends without
//! its terminal event is an `Error("Stream interrupted …")`, never a silent success.

use crate::options::{Effort, Thinking};
use crate::session::stats::Usage;
use crate::util::cancel::Cancel;

/// Which wire protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// Anthropic Messages (`claude`, default).
    Claude,
    /// OpenAI chat-completions (`openai`).
    OpenAi,
    /// OpenAI Responses (`responses`).
    Responses,
}

impl ProviderKind {
    pub fn parse(s: &str) -> Option<ProviderKind> {
        match s {
            "claude" => Some(ProviderKind::Claude),
            "openai" => Some(ProviderKind::OpenAi),
            "responses" => Some(ProviderKind::Responses),
            _ => None,
        }
    }
    pub fn name(&self) -> &'static str {
        match self {
            ProviderKind::Claude => "claude",
            ProviderKind::OpenAi => "openai",
            ProviderKind::Responses => "responses",
        }
    }
    /// The default model of the provider, from the model table (`assets/models.json`).
    pub fn default_model(&self) -> &'static str {
        models::default_model(self.name())
    }
    /// The host a provider's own key goes to (OPENAI_API_KEY for both OpenAI APIs);
    /// DeepSeek is chosen by its key or model in `config.rs`, never as a default.
    pub fn default_base_url(&self) -> &'static str {
        match self {
            ProviderKind::Claude => hosts::ANTHROPIC_BASE,
            ProviderKind::OpenAi | ProviderKind::Responses => hosts::OPENAI_BASE,
        }
    }
}

/// Resolved provider settings (see `config.rs` for the resolution order).
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    pub model: String,
    /// May be empty (local servers).
    pub api_key: String,
    /// Base URL without the endpoint suffix (e.g. `http://127.0.0.1:8080/v1` for claude).
    pub base_url: String,
    pub max_tokens: u64,
    /// `None`: not asked for (official APIs then get `high`; other servers get no
    /// reasoning fields, since gateways reject parameters their backend lacks).
    pub effort: Option<Effort>,
    /// `None`: not asked for (official APIs then get `adaptive`; see `effort`).
    pub thinking: Option<Thinking>,
    pub verbose: bool,
}

/// One LLM request.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub system: &'a str,
    /// conversation.jsonl lines (each a JSON object), in order.
    pub messages: &'a [String],
    /// tools.json text (a JSON array) or empty for none.
    pub tools_json: &'a str,
    /// Force thinking off (compaction summary calls).
    pub disable_thinking: bool,
}

/// Normalised stream events (docs/providers.md, "Streaming").
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    Text(String),
    Thinking(String),
    /// An opaque reasoning item to replay with the next requests (a Responses `reasoning`
    /// output item, encrypted content included), as JSON text. Stored on the thinking
    /// block by [`reasoning_extra`].
    Reasoning(String),
    /// The signature of the thinking block that just ended (Anthropic `signature_delta`):
    /// the block is sent back with it, unmodified, in the tool loop.
    ThinkingSignature(String),
    /// A `redacted_thinking` block's `data` (encrypted reasoning), kept and sent back whole.
    RedactedThinking(String),
    /// A block of a tool the provider ran itself (Anthropic's `server_tool_use` with its
    /// input whole, `web_search_tool_result`), as JSON text: shown, stored on the
    /// assistant line and sent back as it came (docs/claude-code.md, "WebSearch").
    ServerBlock(String),
    /// `input_raw` is the accumulated tool-input JSON text as the model sent it
    /// (may be empty or invalid; the caller validates).
    ToolCall {
        name: String,
        id: String,
        input_raw: String,
    },
    /// This many bytes of a tool call's arguments arrived (Anthropic `input_json_delta`,
    /// OpenAI argument deltas): the status line's token count follows them while a long
    /// argument (a file written whole) streams. The arguments themselves come whole in
    /// [`StreamEvent::ToolCall`].
    ToolInputDelta(u64),
    /// Emitted once, right before `Stop`. `speed` = output tok/s over the stream (0 if unknown).
    Usage {
        usage: Usage,
        speed: u64,
    },
    /// Stop reason normalised to Claude semantics (`end_turn`, `tool_use`, `max_tokens`, …).
    Stop(String),
    Error(String),
    /// A new HTTP attempt starts: discard partial state of this call.
    Retry,
}

/// Timing/diagnostics of one call (for the usage ledger).
#[derive(Debug, Clone, Default)]
pub struct CallInfo {
    pub elapsed_ms: u64,
    pub first_token_ms: Option<u64>,
    pub retries: u32,
    /// The server reported no usage: the figures in `Usage` were estimated from the
    /// bytes sent and received.
    pub usage_estimated: bool,
}

pub mod anthropic;
mod attempt;
mod blocks;
pub mod body;
pub mod claude_wire;
mod diag;
pub mod hosts;
pub mod http;
pub mod image;
pub mod models;
pub mod norm;
pub mod omit;
pub mod openai;
pub mod outgoing;
pub mod reasoning_items;
pub mod responses;
pub mod retry;
pub mod server_tools;
pub mod sse;
pub mod transport;

/// Whether the latest call of this process that reported usage had it estimated (the
/// server streamed none): `/status` marks its figures. Not in stats.json, whose keys
/// other programs read.
static LAST_USAGE_ESTIMATED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// See [`LAST_USAGE_ESTIMATED`].
pub fn last_usage_estimated() -> bool {
    LAST_USAGE_ESTIMATED.load(std::sync::atomic::Ordering::Relaxed)
}

pub(crate) fn set_last_usage_estimated(v: bool) {
    LAST_USAGE_ESTIMATED.store(v, std::sync::atomic::Ordering::Relaxed);
}

/// Run one streaming call. Blocks until the stream ends, fails, or `cancel` fires (then
/// it returns promptly without a terminal event; the caller logs `stop interrupted`).
pub fn stream(
    cfg: &ProviderConfig,
    req: &Request,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(StreamEvent),
) -> CallInfo {
    http::run(cfg, req, cancel, on_event)
}

pub use body::build_body;
pub use http::HttpOptions;
pub use reasoning_items::reasoning_extra;

/// [`stream`] with explicit transport settings (retry base, stall timeout; for tests).
pub fn stream_with(
    cfg: &ProviderConfig,
    req: &Request,
    cancel: &Cancel,
    opts: &HttpOptions,
    on_event: &mut dyn FnMut(StreamEvent),
) -> CallInfo {
    http::run_with(cfg, req, cancel, opts, on_event)
}
