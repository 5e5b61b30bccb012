//! Framing of input.fifo, decided by the bytes alone (no idle timer decides what a line
//! is): RESP headers and bulk terminators end with CRLF and bulk strings carry their
//! length; plain input lines end with a bare LF. So:
//! - a line ending in LF (not CRLF) outside a frame is plain input, also right after a
//!   malformed frame: the rest of a bad frame is CRLF material and is dropped, a plain
//!   line from another writer is never swallowed with it;
//! - a CRLF line outside a frame is never user input (the rest of a bad frame, a fragment
//!   of a frame torn by an unlocked writer, or a stray header): dropped, reported once;
//! - bytes glued in front of a frame header (`partial*3\r\n`, a writer that left a line
//!   unfinished) are dropped and reported, and the frame is read;
//! - when every writer has closed the FIFO (the reader sees end-of-file), an unfinished
//!   line or frame is dropped and reported instead of being glued to the next writer's
//!   bytes;
//! - a plain line is capped like a bulk string ([`MAX_FIELD_LEN`]): past the cap its
//!   bytes are discarded up to the next LF without being kept, and reported.
use crate::ipc::resp::{parse_count, snippet, Frame, FrameError, MAX_FIELDS, MAX_FIELD_LEN};
use std::collections::VecDeque;

/// Longest plain line kept (the bulk-string cap).
pub const MAX_LINE: usize = MAX_FIELD_LEN;
/// Longest RESP header line (`$` + a 12-digit count + CRLF, with room to spare).
const MAX_HEADER: usize = 64;

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
    /// Inside a frame: `n` fields announced, `fields` read so far.
    Frame {
        n: usize,
        fields: Vec<Vec<u8>>,
        bulk: Bulk,
    },
}

enum Bulk {
    /// The next line is a `$len` header.
    Header,
    /// Reading `len` data bytes plus CRLF into the buffer.
    Data { len: usize, data: Vec<u8> },
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
            discarding: None,
            eof: false,
            stall: false,
            out: VecDeque::new(),
        }
    }

    /// Bytes read from the FIFO.
    pub fn feed(&mut self, bytes: &[u8]) {
        if self.pos > 0 && self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            self.scan = 0;
        } else if self.pos > (1 << 20) && self.pos * 2 > self.buf.len() {
            self.buf.drain(..self.pos);
            self.scan = self.scan.saturating_sub(self.pos);
            self.pos = 0;
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
                report.then(|| {
                    Event::Dropped(format!(
                        "a line longer than {} MiB was dropped ({n} bytes)",
                        MAX_LINE >> 20
                    ))
                })
            }
            None => {
                n += self.rest().len();
                self.pos = self.buf.len();
                self.discarding = Some((n, report));
                None
            }
        }
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
                        self.eof = false;
                        if report {
                            return Some(Event::Dropped(format!(
                                "a line longer than {} MiB was dropped ({n} bytes)",
                                MAX_LINE >> 20
                            )));
                        }
                    }
                    return None;
                }
                continue;
            }
            let progressed = match std::mem::replace(&mut self.state, State::Idle) {
                State::Idle => self.idle_step(),
                State::Frame { n, fields, bulk } => self.frame_step(n, fields, bulk),
            };
            if !progressed && self.out.is_empty() {
                // Nothing more can be read from the bytes at hand.
                self.eof = false;
                self.stall = false;
                return None;
            }
        }
    }

    /// One step between items; false when more bytes are needed.
    fn idle_step(&mut self) -> bool {
        let Some((line, crlf)) = self.take_line() else {
            let left = self.rest().len();
            if left > MAX_LINE {
                self.pos = self.buf.len();
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
        if line.is_empty() {
            return true;
        }
        if line[0] == b'*' {
            self.start_frame(&line);
            return true;
        }
        if crlf {
            if let Some(at) = glued_header(&line) {
                if !self.resync {
                    self.out.push_back(Event::Dropped(format!(
                        "{at} bytes left unfinished by a writer before a frame were dropped ({:?})",
                        snippet(&line[..at])
                    )));
                }
                self.start_frame(&line[at..]);
                return true;
            }
            if !self.resync {
                self.resync = true;
                self.out.push_back(Event::Dropped(format!(
                    "bytes that are not a frame were dropped (a line ending in CRLF outside a frame; plain input lines end with LF): {:?}",
                    snippet(&line)
                )));
            }
            return true;
        }
        if self.resync && is_bulk_header(&line) {
            return true;
        }
        self.resync = false;
        self.out
            .push_back(Event::Line(String::from_utf8_lossy(&line).into_owned()));
        true
    }

    fn start_frame(&mut self, header: &[u8]) {
        match parse_count(&header[1..]) {
            Some(n) if (1..=MAX_FIELDS).contains(&n) => {
                self.resync = false;
                self.state = State::Frame {
                    n,
                    fields: Vec::with_capacity(n.min(64)),
                    bulk: Bulk::Header,
                };
            }
            Some(n) => self.malformed(FrameError::TooManyFields(n)),
            None => self.malformed(FrameError::BadHeader(snippet(header))),
        }
    }

    fn malformed(&mut self, e: FrameError) {
        self.resync = true;
        self.state = State::Idle;
        self.out.push_back(Event::Malformed(e));
    }

    /// The frame cannot finish: its writer is gone (or stalled with the FIFO shared).
    fn cut_off(&mut self) -> bool {
        if self.eof || self.stall {
            self.stall = false;
            self.malformed(FrameError::Truncated);
            return true;
        }
        false
    }

    /// One step inside a frame; false when more bytes are needed.
    fn frame_step(&mut self, n: usize, mut fields: Vec<Vec<u8>>, bulk: Bulk) -> bool {
        match bulk {
            Bulk::Header => {
                let Some((line, crlf)) = self.take_line() else {
                    if self.rest().len() > MAX_HEADER {
                        let bad = snippet(self.rest());
                        self.discarding = Some((0, false));
                        self.malformed(FrameError::BadHeader(bad));
                        return true;
                    }
                    self.state = State::Frame {
                        n,
                        fields,
                        bulk: Bulk::Header,
                    };
                    return self.cut_off();
                };
                if line.first() == Some(&b'$') {
                    let Some(len) = parse_count(&line[1..]) else {
                        self.malformed(FrameError::BadHeader(snippet(&line)));
                        return true;
                    };
                    if len > MAX_FIELD_LEN {
                        self.malformed(FrameError::FieldTooLong(len));
                        return true;
                    }
                    let bulk = if len == 0 {
                        Bulk::Empty
                    } else {
                        Bulk::Data {
                            len,
                            data: Vec::with_capacity(len + 2),
                        }
                    };
                    self.state = State::Frame { n, fields, bulk };
                    return true;
                }
                if !crlf && !line.is_empty() && line[0] != b'*' {
                    // A plain line from another writer: this frame's writer died before
                    // its next field. The frame is dropped, the line is input.
                    self.malformed(FrameError::Truncated);
                    self.resync = false;
                    self.out
                        .push_back(Event::Line(String::from_utf8_lossy(&line).into_owned()));
                    return true;
                }
                self.malformed(FrameError::BadHeader(snippet(&line)));
                true
            }
            Bulk::Empty => {
                let Some((line, _)) = self.take_line() else {
                    self.state = State::Frame {
                        n,
                        fields,
                        bulk: Bulk::Empty,
                    };
                    return self.cut_off();
                };
                if !line.is_empty() {
                    self.malformed(FrameError::BadTerminator);
                    return true;
                }
                fields.push(Vec::new());
                self.field_done(n, fields);
                true
            }
            Bulk::Data { len, mut data } => {
                let want = len + 2 - data.len();
                let take = want.min(self.rest().len());
                data.extend_from_slice(&self.buf[self.pos..self.pos + take]);
                self.pos += take;
                if data.len() < len + 2 {
                    self.state = State::Frame {
                        n,
                        fields,
                        bulk: Bulk::Data { len, data },
                    };
                    return take > 0 || self.cut_off();
                }
                if &data[len..] != b"\r\n" {
                    self.malformed(FrameError::BadTerminator);
                    return true;
                }
                data.truncate(len);
                fields.push(data);
                self.field_done(n, fields);
                true
            }
        }
    }

    fn field_done(&mut self, n: usize, fields: Vec<Vec<u8>>) {
        if fields.len() == n {
            self.out.push_back(Event::Frame(Frame(fields)));
        } else {
            self.state = State::Frame {
                n,
                fields,
                bulk: Bulk::Header,
            };
        }
    }
}

/// `partial*3` → Some(7): where a frame header (`*` + a count) starts after other bytes.
fn glued_header(line: &[u8]) -> Option<usize> {
    let at = line.iter().rposition(|b| *b == b'*')?;
    (at > 0 && parse_count(&line[at + 1..]).is_some()).then_some(at)
}

/// `$12`: a bulk-string header (the rest of a bad frame when it comes after one).
fn is_bulk_header(line: &[u8]) -> bool {
    line.first() == Some(&b'$') && parse_count(&line[1..]).is_some()
}

#[cfg(test)]
mod tests;
