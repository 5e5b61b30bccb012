//! Full-text search over past sessions: an SQLite FTS5 index kept in step with the sessions'
//! events (incremental by byte offset) and the query built from the user's words.
pub mod index;
pub mod query;
mod sync;
pub mod writer;
