//! Glue between the runtime and the interactive front end and replay.
//! TEMPORARY fallback until ui::interactive lands: plain line reading from stdin.
use crate::ipc::resp::Frame;
use crate::session::Session;
use crate::ui::display::Display;
use crate::util::cancel::Cancel;
use std::io::{BufRead, Write};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The running line editor.
pub struct Editor {
    _h: std::thread::JoinHandle<()>,
}

impl Editor {
    pub fn start(
        session: &Session,
        running: Arc<AtomicBool>,
        cancel: Cancel,
    ) -> anyhow::Result<Editor> {
        let _ = (running, cancel);
        let fifo = session.input_fifo();
        let h = std::thread::spawn(move || {
            let send = |f: Frame| {
                let _ = crate::ipc::fifo::write_frame(&fifo, &f);
            };
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                let t = line.trim();
                if t.is_empty() {
                    continue;
                }
                if t == "exit" || t == "quit" {
                    break;
                }
                send(Frame::new(["USER_INPUT", "0", line.as_str()]));
            }
            send(Frame::new(["SESSION_END", "0"]));
        });
        Ok(Editor { _h: h })
    }
    pub fn printer(&self) -> Box<dyn Write + Send> {
        Box::new(std::io::stdout())
    }
    pub fn turn_finished(&self) {}
    pub fn join(self) {}
}

/// Replay the last `turns` turns; true when something was shown.
pub fn replay(session: &Session, turns: usize, d: &mut Display) -> bool {
    let _ = (session, turns, d);
    false
}
