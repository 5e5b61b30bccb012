//! The scripted model server (hidden `mock-server` subcommand), for tests and the offline
//! demo. It speaks the three providers' real SSE formats (chosen by the request path),
//! answers from a JSON script and records every request. See `script.rs` for the format.
pub mod script;
pub mod server;
pub mod strict_anthropic;
pub mod strict_cache;
mod strict_deepseek;
pub mod strict_openai;
pub mod strict_prefix;
mod strict_rules;
pub mod web_search;
pub mod wire;

pub use server::Server;
