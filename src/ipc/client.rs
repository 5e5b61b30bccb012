//! Script clients: `--session NAME --send TEXT [--wait]` writes a USER_INPUT frame
//! to the running agent's input.fifo, `--inject TEXT` a USER_NOTIFY frame to its
//! notify.fifo. Never blocks on a session nobody serves: exit 1 with
//! `no agent is running on session NAME`.
use crate::ipc::fifo::{self, WriteError};
use crate::ipc::resp::Frame;
use crate::session::Session;
use serde_json::Value;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::{Duration, Instant};

/// Poll interval while following events.jsonl.
const POLL: Duration = Duration::from_millis(20);

/// Why a frame could not be delivered.
#[derive(Debug)]
pub enum SendError {
    /// No agent has the FIFO open.
    NoAgent,
    /// Anything else (the message says what).
    Other(String),
}

fn send(path: &Path, frame: &Frame) -> Result<(), SendError> {
    match fifo::write_frame(path, frame) {
        Ok(()) => Ok(()),
        Err(WriteError::NoReader(_)) => Err(SendError::NoAgent),
        Err(e) => Err(SendError::Other(e.to_string())),
    }
}

/// Send TEXT as a USER_NOTIFY frame to the agent's notify.fifo.
pub fn send_notify(session: &Session, text: &str) -> Result<(), SendError> {
    send(&session.notify_fifo(), &Frame::user_notify(text))
}

/// Send TEXT as a USER_INPUT frame to the agent's input.fifo.
pub fn send_input(session: &Session, text: &str) -> Result<(), SendError> {
    send(
        &session.input_fifo(),
        &Frame::new(["USER_INPUT", "0", text]),
    )
}

/// How waiting for an answer ended.
#[derive(Debug, PartialEq, Eq)]
pub enum WaitEnd {
    Answer(String),
    Error(String),
    Gone,
}

/// Follows events.jsonl from byte `start` through one turn.
#[derive(Default)]
pub struct TurnWatcher {
    started: bool,
    last_stop: Option<String>,
    calls: Vec<String>,
    current: String,
}

impl TurnWatcher {
    /// Feed one event; `Some` when the turn is over. The turn starts at a `user_input`
    /// whose content is `sent` (events of a turn already running are skipped), and ends at
    /// the final double `stop` (reason not `tool_use`) or at an `error`.
    pub fn feed(&mut self, ev: &Value, sent: &str) -> Option<WaitEnd> {
        let ty = ev.get("type").and_then(Value::as_str).unwrap_or("");
        let s = |k: &str| ev.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        if !self.started {
            if ty == "user_input" && s("content") == sent {
                self.started = true;
            }
            return None;
        }
        let stop = (ty == "stop").then(|| s("reason"));
        match ty {
            "text" => self.current.push_str(&s("content")),
            "retry" => self.current.clear(),
            "error" => return Some(WaitEnd::Error(s("message"))),
            "stop" => {
                let reason = s("reason");
                if reason != "tool_use" && self.last_stop.as_deref() == Some(reason.as_str()) {
                    return Some(WaitEnd::Answer(self.answer()));
                }
                if reason == "interrupted" {
                    return Some(WaitEnd::Error("the turn was interrupted".into()));
                }
                let t = std::mem::take(&mut self.current);
                if !t.is_empty() {
                    self.calls.push(t);
                }
            }
            _ => {}
        }
        self.last_stop = stop;
        None
    }

    fn answer(&self) -> String {
        let mut parts = self.calls.clone();
        if !self.current.is_empty() {
            parts.push(self.current.clone());
        }
        parts.join("\n")
    }
}

/// Follow events.jsonl from `start` until the turn for `sent` ends, or the agent is gone.
pub fn wait_answer(session: &Session, start: u64, sent: &str) -> WaitEnd {
    let mut w = TurnWatcher::default();
    let mut pos = start;
    let mut pending: Vec<u8> = Vec::new();
    let mut next_alive_check = Instant::now() + Duration::from_secs(1);
    loop {
        let len = std::fs::metadata(session.events())
            .map(|m| m.len())
            .unwrap_or(0);
        if len > pos {
            if let Ok(mut f) = crate::util::fsx::open_read(&session.events()) {
                let mut chunk = Vec::new();
                if f.seek(SeekFrom::Start(pos)).is_ok() && f.read_to_end(&mut chunk).is_ok() {
                    pos += chunk.len() as u64;
                    pending.extend_from_slice(&chunk);
                }
            }
            while let Some(nl) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=nl).collect();
                if let Ok(v) = serde_json::from_slice::<Value>(&line) {
                    if let Some(end) = w.feed(&v, sent) {
                        return end;
                    }
                }
            }
            continue;
        }
        if Instant::now() >= next_alive_check {
            next_alive_check = Instant::now() + Duration::from_secs(1);
            if !has_reader(&session.input_fifo()) {
                return WaitEnd::Gone;
            }
        }
        std::thread::sleep(POLL);
    }
}

/// True when some process has the FIFO open for reading (a non-blocking writer open works).
pub fn has_reader(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    fifo::is_fifo(path)
        && std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)
            .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_all(lines: &[&str], sent: &str) -> Option<WaitEnd> {
        let mut w = TurnWatcher::default();
        for l in lines {
            let v: Value = serde_json::from_str(l).unwrap();
            if let Some(e) = w.feed(&v, sent) {
                return Some(e);
            }
        }
        None
    }

    #[test]
    fn answer_of_our_turn_only() {
        let lines = [
            r#"{"type":"text","content":"older turn"}"#,
            r#"{"type":"stop","reason":"end_turn"}"#,
            r#"{"type":"user_input","content":"hi"}"#,
            r#"{"type":"text","content":"Reading."}"#,
            r#"{"type":"stop","reason":"tool_use"}"#,
            r#"{"type":"text","content":"Do"}"#,
            r#"{"type":"text","content":"ne"}"#,
            r#"{"type":"stop","reason":"end_turn"}"#,
            r#"{"type":"stop","reason":"end_turn"}"#,
        ];
        assert_eq!(
            feed_all(&lines, "hi"),
            Some(WaitEnd::Answer("Reading.\nDone".into()))
        );
        assert_eq!(feed_all(&lines[..8], "hi"), None);
        let err = [
            r#"{"type":"user_input","content":"hi"}"#,
            r#"{"type":"error","message":"boom"}"#,
        ];
        assert_eq!(feed_all(&err, "hi"), Some(WaitEnd::Error("boom".into())));
    }
}
