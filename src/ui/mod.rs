//! Terminal front ends: the frame display, replay, the interactive line editor, the title.
pub mod display;
pub mod jscan;
pub mod replay;
pub mod replay_select;
pub mod title;
pub mod clipboard;
pub mod editor_keys;
pub mod interactive;
pub mod printer;
