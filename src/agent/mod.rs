//! The agent: system prompt, the turn loop, the runtime around it, compaction, sub-agents
//! and background tasks.
pub mod compact;
pub mod prompt;
pub mod runtime;
pub mod background;
pub mod subagent;
pub mod editor;
pub mod emit;
pub mod host;
pub mod setup;
pub mod slash;
pub mod spinner;
pub mod turn;
