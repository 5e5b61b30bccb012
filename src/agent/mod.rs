//! The agent: one context for the run, the runtime's main loop, a turn, tool calls, the
//! recorder and the output, the system prompt, compaction, sub-agents and background tasks.
pub mod background;
mod call_state;
pub mod children;
pub mod commands;
pub mod compact;
pub mod context;
pub mod custom;
pub mod editor;
pub mod extensions;
pub mod fallback;
pub mod headless;
pub mod hook_events;
mod hook_permissions;
pub mod init;
pub mod inject;
pub mod output;
pub mod prompt;
pub mod recorder;
pub mod rule_save;
pub mod runtime;
pub mod setup;
pub mod slash;
pub mod spinner;
pub mod subagent;
pub mod task_reporter;
pub mod tool_call;
pub mod turn;
