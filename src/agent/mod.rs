//! The agent: system prompt, the turn loop, the runtime around it, compaction, sub-agents
//! and background tasks.
pub mod compact;
pub mod prompt;
pub mod runtime;
pub mod background;
pub mod subagent;
