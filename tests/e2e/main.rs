//! End to end through the real binary: agent runs against the scripted model server,
//! resume and fork, every tool, compaction, history/undo/search/sessions/usage, the prompt
//! as sent, replay parity with the shell version, the shell-written fixture sessions.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "../support/mod.rs"]
mod support;

mod approvals;
mod background_tools;
mod claude_code_compat;
mod claude_hooks;
mod claude_hooks_gaps;
mod claude_settings;
mod cli_extras;
mod cli_launch;
mod compact_e2e;
mod custom_commands;
mod e2e_agent;
mod e2e_resume;
mod e2e_tools;
mod edges_net_hosts;
mod export_e2e;
mod ext_hooks_scripts;
mod ext_mcp_hooks;
mod ext_mcp_protocol;
mod ext_mcp_stream;
mod features_e2e;
mod features_search;
mod features_sessions;
mod features_undo;
mod features_usage;
mod flags_validation;
mod headless;
mod hosted_anthropic;
mod hosted_anthropic_official;
mod hosted_openai;
mod init_e2e;
mod instructions_e2e;
mod list_cache;
mod mcp_conformance;
mod prompt_e2e;
mod replay_parity;
mod rewind_e2e;
mod settings_apply;
mod settings_e2e;
mod shell_fixture_formats;
mod shell_snapshot;
mod stdin_join;
mod store_fixtures;
mod tools_cli;
mod trust;
mod trust_hostile;
mod trust_paths;
mod trust_urls;
mod webfetch_e2e;
mod webfetch_hostile;
