//! Session storage: paths and ids, the folder layout, events.jsonl, conversation.jsonl,
//! stats.json, the per-session run lock and the session list.
pub mod conversation;
pub mod durable;
pub mod events;
pub mod line_meta;
mod line_quick;
pub mod list;
pub mod list_cache;
pub mod list_scan;
pub mod lock;
pub mod paths;
pub mod select;
pub mod stats;
pub mod store;
pub mod torn;

pub use store::Session;

/// True when the session already has conversation lines (a sub-agent fork copies only
/// into an empty session).
pub fn fsx_non_empty_conv(s: &Session) -> bool {
    crate::util::fsx::non_empty(&s.conversation())
}
