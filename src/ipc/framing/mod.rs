//! Framing of input.fifo, decided by the bytes alone (no idle timer decides what a line
//! is): RESP headers and bulk terminators end with CRLF and bulk strings carry their
//! length; plain input lines end with a bare LF. The promise (docs/fifo-protocol.md):
//! every input is a whole valid frame or a whole text line, exactly once; nothing else
//! ever becomes input. So:
//! - a frame is read from the bytes of its writer only: a frame whose declared lengths do
//!   not match what arrived (a lying writer, or one torn by another unlocked writer) is
//!   rejected whole, and the bytes it had taken are scanned again for the next frame start
//!   (`*N\r\n$`), so a frame another writer put inside them is still read, once;
//! - the rest of the line a rejected frame stopped in is its own, dropped; a line ending
//!   in LF after that is plain input again, also right after a malformed frame: the rest of
//!   a bad frame is CRLF material and is dropped, a plain line from another writer is never
//!   swallowed with it;
//! - a plain line must be text (UTF-8, no control characters but tab). Bytes that are not
//!   (random or binary bytes), or a rejected frame that was larger than PIPE_BUF (its text
//!   may arrive later as lines), switch plain lines off until every writer has closed the
//!   FIFO (the reader sees end-of-file): the line boundaries inside such bytes are
//!   accidents. Frames are still read meanwhile;
//! - a CRLF line outside a frame is never user input (the rest of a bad frame, a fragment
//!   of a frame torn by an unlocked writer, or a stray header): dropped, reported once;
//! - bytes glued in front of a frame header (`partial*3\r\n`, a writer that left a line
//!   unfinished) are dropped and reported, and the frame is read;
//! - when every writer has closed the FIFO, an unfinished line or frame is dropped and
//!   reported instead of being glued to the next writer's bytes;
//! - a plain line is capped like a bulk string ([`MAX_FIELD_LEN`]): past the cap its
//!   bytes are discarded up to the next LF without being kept, and reported.
use crate::ipc::resp::{snippet, Frame, FrameError, MAX_FIELD_LEN};
use scan::{glued_header, is_bulk_header, is_text};
use std::collections::VecDeque;

mod frame;
mod scan;

/// Longest plain line kept (the bulk-string cap).
pub const MAX_LINE: usize = MAX_FIELD_LEN;
/// Longest RESP header line (`$` + a 12-digit count + CRLF, with room to spare).
const MAX_HEADER: usize = 64;
/// Most bytes one frame may span (its fields together).
const MAX_FRAME: usize = 2 * MAX_FIELD_LEN;
/// A pipe write up to this size is atomic: a frame no larger cannot have been torn.
const ATOMIC: usize = libc::PIPE_BUF;

/// What the decoder hands on, in stream order.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    Frame(Frame),
    /// A plain input line, without its LF.
    Line(String),
    /// A malformed frame (skipped).
    Malformed(FrameError),
    /// Bytes that were not a frame nor a plain line, dropped (the reason, for an `error`
    /// event).
    Dropped(String),
}

enum State {
    /// Between items.
    Idle,
    /// Inside a frame whose `*` is at `buf[start]`: `n` fields announced, `fields` read so
    /// far (offset from `start` and length). Its bytes stay in the buffer until it ends, so
    /// a rejected frame can be scanned again.
    Frame {
        start: usize,
        n: usize,
        fields: Vec<(usize, usize)>,
        bulk: Bulk,
    },
}

enum Bulk {
    /// The next line is a `$len` header.
    Header,
    /// `len` data bytes plus CRLF, from offset `at` of the frame.
    Data { len: usize, at: usize },
    /// After `$0`: the rest of the line must be empty.
    Empty,
}

/// Incremental input.fifo decoder: [`Decoder::feed`] bytes as they arrive, tell it when
/// every writer has gone ([`Decoder::writers_gone`]) or a frame stalled
/// ([`Decoder::stalled`]), and take [`Decoder::next_event`] until it returns `None`.
pub struct Decoder {
    buf: Vec<u8>,
    /// Start of the unread bytes in `buf` (consumed bytes are compacted away lazily).
    pos: usize,
    /// `buf[pos..scan]` is known to hold no LF (a long line is scanned once, not per read).
    scan: usize,
    state: State,
    /// After a malformed frame: CRLF lines and `$len` lines are its rest, dropped quietly.
    resync: bool,
    /// The rest of the current line belongs to a rejected frame.
    skip_line: bool,
    /// Plain lines are input (off after bytes that are not text or a torn large frame,
    /// until every writer has closed the FIFO).
    lines_ok: bool,
    /// Frames larger than PIPE_BUF are input (off after a torn frame, until every writer
    /// has closed the FIFO).
    big_ok: bool,
    /// Dropping an over-long line up to its LF: bytes dropped so far, and whether to
    /// report it when it ends.
    discarding: Option<(usize, bool)>,
    /// Every writer closed: what is unfinished now is dropped.
    eof: bool,
    /// A writer keeping the FIFO open stopped inside a frame.
    stall: bool,
    out: VecDeque<Event>,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    pub fn new() -> Decoder {
        Decoder {
            buf: Vec::new(),
            pos: 0,
            scan: 0,
            state: State::Idle,
            resync: false,
            skip_line: false,
            lines_ok: true,
            big_ok: true,
            discarding: None,
            eof: false,
            stall: false,
            out: VecDeque::new(),
        }
    }

    /// Bytes read from the FIFO.
    pub fn feed(&mut self, bytes: &[u8]) {
        // Bytes before `keep` are done with (a frame being read keeps its own).
        let keep = match &self.state {
            State::Frame { start, .. } => *start,
            State::Idle => self.pos,
        };
        if keep > 0 && keep == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            self.scan = 0;
        } else if keep > (1 << 20) && keep * 2 > self.buf.len() {
            self.buf.drain(..keep);
            self.pos -= keep;
            self.scan = self.scan.saturating_sub(keep);
            if let State::Frame { start, .. } = &mut self.state {
                *start -= keep;
            }
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Every writer has closed the FIFO (end of file): whatever is unfinished was left by
    /// a writer that is gone.
    pub fn writers_gone(&mut self) {
        self.eof = true;
    }

    /// No byte came for a while in the middle of a frame while a writer still holds the
    /// FIFO open: the frame is cut (its writer died with the FIFO shared).
    pub fn stalled(&mut self) {
        self.stall = true;
    }

    /// True inside a frame (the reader's stall fallback applies only there).
    pub fn in_frame(&self) -> bool {
        matches!(self.state, State::Frame { .. })
    }

    fn rest(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    /// The next complete line (without LF; `crlf` tells whether a CR preceded it).
    fn take_line(&mut self) -> Option<(Vec<u8>, bool)> {
        let from = self.scan.max(self.pos);
        let Some(j) = self.buf[from..].iter().position(|b| *b == b'\n') else {
            self.scan = self.buf.len();
            return None;
        };
        let i = from + j - self.pos;
        let mut line = self.buf[self.pos..self.pos + i].to_vec();
        self.pos += i + 1;
        let crlf = line.last() == Some(&b'\r');
        if crlf {
            line.pop();
        }
        Some((line, crlf))
    }

    /// Drop everything unread up to (not including) the next LF, counting it.
    fn discard(&mut self) -> Option<Event> {
        let (mut n, report) = self.discarding?;
        match self.rest().iter().position(|b| *b == b'\n') {
            Some(i) => {
                n += i;
                self.pos += i + 1;
                self.discarding = None;
                report.then(|| too_long(n))
            }
            None => {
                n += self.rest().len();
                self.pos = self.buf.len();
                self.discarding = Some((n, report));
                None
            }
        }
    }

    /// Every writer closed and everything before is handled: the next writer starts clean.
    fn fresh_start(&mut self) {
        self.eof = false;
        self.lines_ok = true;
        self.big_ok = true;
        self.skip_line = false;
    }

    /// The next event, or `None` when more bytes are needed.
    pub fn next_event(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.out.pop_front() {
                return Some(e);
            }
            if self.discarding.is_some() {
                if let Some(e) = self.discard() {
                    return Some(e);
                }
                if self.discarding.is_some() {
                    if self.eof {
                        let (n, report) = self.discarding.take().unwrap_or_default();
                        self.fresh_start();
                        if report {
                            return Some(too_long(n));
                        }
                    }
                    return None;
                }
                continue;
            }
            let progressed = match std::mem::replace(&mut self.state, State::Idle) {
                State::Idle => self.idle_step(),
                State::Frame {
                    start,
                    n,
                    fields,
                    bulk,
                } => self.frame_step(start, n, fields, bulk),
            };
            if !progressed && self.out.is_empty() {
                // Nothing more can be read from the bytes at hand.
                if self.eof {
                    self.fresh_start();
                }
                self.stall = false;
                return None;
            }
        }
    }

    /// Plain lines are not input any more until every writer has closed the FIFO.
    fn lines_off(&mut self, why: &str) {
        if self.lines_ok {
            self.lines_ok = false;
            if self.eof {
                // Every writer is gone: only the bytes at hand are affected, no news.
                return;
            }
            self.out.push_back(Event::Dropped(format!(
                "{why}; plain lines are not read as input until every writer has closed input.fifo (frames still are)"
            )));
        }
    }

    /// One step between items; false when more bytes are needed.
    fn idle_step(&mut self) -> bool {
        let at = self.pos;
        let Some((line, crlf)) = self.take_line() else {
            let left = self.rest().len();
            if left > MAX_LINE {
                self.pos = self.buf.len();
                self.skip_line = false;
                self.discarding = Some((left, true));
                return true;
            }
            if self.eof && left > 0 {
                self.pos = self.buf.len();
                self.out.push_back(Event::Dropped(format!(
                    "a writer closed input.fifo in the middle of a line: {left} bytes dropped ({:?})",
                    snippet(&self.buf[self.buf.len() - left..])
                )));
                return true;
            }
            return false;
        };
        if std::mem::take(&mut self.skip_line) {
            // The rest of the line a rejected frame stopped in: never input, but a frame
            // header glued at its end starts the next frame.
            if let Some(g) = glued_header(&line).filter(|_| crlf) {
                self.start_frame(at + g, &line[g..]);
            } else if !is_text(&line) {
                self.lines_off("bytes that are not text were dropped");
            }
            return true;
        }
        if line.is_empty() {
            return true;
        }
        if line[0] == b'*' {
            self.start_frame(at, &line);
            return true;
        }
        if crlf {
            if let Some(g) = glued_header(&line) {
                if !self.resync {
                    self.out.push_back(Event::Dropped(format!(
                        "{g} bytes left unfinished by a writer before a frame were dropped ({:?})",
                        snippet(&line[..g])
                    )));
                }
                if !is_text(&line[..g]) {
                    self.lines_off("bytes that are not text were dropped");
                }
                self.start_frame(at + g, &line[g..]);
                return true;
            }
            if !self.resync {
                self.resync = true;
                self.out.push_back(Event::Dropped(format!(
                    "bytes that are not a frame were dropped (a line ending in CRLF outside a frame; plain input lines end with LF): {:?}",
                    snippet(&line)
                )));
            }
            if !is_text(&line) {
                self.lines_off("bytes that are not text were dropped");
            }
            return true;
        }
        if self.resync && is_bulk_header(&line) {
            return true;
        }
        if !is_text(&line) {
            self.lines_off(&format!(
                "{} bytes that are not text were dropped (not a frame, not a text line)",
                line.len() + 1
            ));
            return true;
        }
        if !self.lines_ok {
            return true;
        }
        self.resync = false;
        self.out
            .push_back(Event::Line(String::from_utf8_lossy(&line).into_owned()));
        true
    }
}

fn too_long(n: usize) -> Event {
    Event::Dropped(format!(
        "a line longer than {} MiB was dropped ({n} bytes)",
        MAX_LINE >> 20
    ))
}

#[cfg(test)]
mod tests;
