//! End to end through the real binary: agent runs against the scripted model server,
//! resume and fork, every tool, compaction, history/undo/search/sessions/usage, the prompt
//! as sent, replay parity with the shell version, the shell-written fixture sessions.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "../support/mod.rs"]
mod support;

mod compact_e2e;
mod e2e_agent;
mod e2e_resume;
mod e2e_tools;
mod ext_mcp_hooks;
mod features_e2e;
mod features_search;
mod features_sessions;
mod features_undo;
mod features_usage;
mod prompt_e2e;
mod replay_parity;
mod store_fixtures;
mod tools_cli;
