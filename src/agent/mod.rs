//! The agent: system prompt, the turn loop, the runtime around it, compaction, sub-agents
//! and background tasks.
pub mod background;
pub mod commands;
pub mod compact;
pub mod editor;
pub mod emit;
pub mod host;
pub mod inject;
pub mod prompt;
pub mod runtime;
pub mod setup;
pub mod slash;
pub mod spinner;
pub mod subagent;
pub mod tool_call;
pub mod turn;
