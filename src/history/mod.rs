//! File history for undo: the before/after state of every file Write and Edit change,
//! recorded per turn in the session folder, and the undo that restores it.
pub mod files;
pub mod undo;
