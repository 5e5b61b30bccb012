//! Library layers called in-process: compaction planning and summaries, the system prompt
//! goldens, provider streams against the scripted model server, and every tool.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#[path = "../support/mod.rs"]
mod support;

mod bash_corpus;
mod claude_configs;
mod compact_dp;
mod compact_summary;
mod long_session_body;
mod prompt_golden;
mod provider_mock;
mod provider_real_servers;
mod provider_stream;
mod sandbox_policy;
mod tools_bash;
mod tools_files;
mod tools_misc;
mod tools_policy;
mod tools_search;
