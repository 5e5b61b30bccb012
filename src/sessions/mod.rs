//! Session management beyond the shell version: remove, prune and show sessions, never
//! touching a running one.
pub mod manage;
pub mod show;
