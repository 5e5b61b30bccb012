//! bash-agent: a terminal AI coding agent, the native twin of the shell bash-agent.
//!
//! Module map: `cli` (flags), `config` (provider/model/key resolution), `session`
//! (storage), `ipc` (FIFOs and RESP frames), `provider` (model APIs), `agent` (the loop,
//! prompt, compaction), `tools`, `ui` (display, replay, interactive), `features` (undo,
//! usage ledger, search, session management), `mock` (the scripted model server),
//! `sandbox` (Landlock and the tool environment).
pub mod agent;
pub mod app;
pub mod cli;
pub mod config;
pub mod features;
pub mod ipc;
pub mod mock;
pub mod provider;
pub mod sandbox;
pub mod session;
pub mod tools;
pub mod ui;
pub mod util;
