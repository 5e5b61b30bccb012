//! Terminal front ends: the frame display, replay, the interactive line editor, the title.
pub mod cells;
pub mod clipboard;
pub mod complete;
pub mod display;
pub mod editor_keys;
pub mod handoff;
pub mod interactive;
pub mod jscan;
pub mod markdown;
pub mod printer;
pub mod replay;
pub mod replay_select;
pub mod title;
