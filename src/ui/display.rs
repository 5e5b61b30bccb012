//! Human display of RESP frames (ipc-sessions.md §2.4). TODO: replay/UI helper.
use crate::ipc::resp::Frame;
use std::io::Write;

/// Display state: last printed char and whether the previous frame was THINKING.
pub struct Display {
    pub interactive: bool,
    pub color: bool,
    last_char: u8,
    prev_thinking: bool,
}

impl Display {
    pub fn new(interactive: bool, color: bool) -> Display {
        Display { interactive, color, last_char: b'\n', prev_thinking: false }
    }

    /// Render one frame: normal output to `out`, errors to `err`.
    pub fn render(&mut self, frame: &Frame, out: &mut dyn Write, err: &mut dyn Write) {
        let _ = (frame, out, err, self.interactive, self.color, self.last_char, self.prev_thinking);
    }
}
