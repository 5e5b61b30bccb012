//! bash-agent: a terminal AI coding agent, the native twin of the shell bash-agent.
//!
//! Data flows one way (docs/architecture.md): `app` (the entry point) → `cmd` (one module per
//! subcommand) → `session::select` (which session) → `agent` (runtime, turn, compaction,
//! sub-agents) → `provider` (model APIs) and `tools` → the session recorder (`session`) →
//! the output (`ui`). Beside them: `ipc` (FIFOs and RESP frames), `history` (undo), `rewind`,
//! `usage` (ledger and prices), `export` (transcripts), `search`, `sessions` (management),
//! `sandbox` (Landlock and the tools' scrubbed environment), `mock` (the scripted model server), `util`. Nothing
//! imports `app`; `scripts/import-graph.py` checks it.
pub mod agent;
pub mod app;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod error;
pub mod export;
pub mod history;
pub mod hooks;
pub mod ipc;
pub mod mcp;
pub mod mock;
pub mod options;
pub mod permission;
pub mod protocol;
pub mod provider;
pub mod rewind;
pub mod sandbox;
pub mod search;
pub mod session;
pub mod sessions;
pub mod settings;
pub mod tools;
pub mod ui;
pub mod usage;
pub mod util;
