//! Terminal front ends: the frame display, replay, the interactive line editor, the title.
pub mod display;
pub mod replay;
