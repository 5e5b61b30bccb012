//! The decoder inside a frame: field headers, bulk data, and the rejection of a frame
//! whose lengths do not match what arrived (scanned again for a frame inside it).
use super::scan::{embedded_header, is_text};
use super::{Bulk, Decoder, Event, State, ATOMIC, MAX_FRAME, MAX_HEADER};
use crate::ipc::resp::{parse_count, snippet, Frame, FrameError, MAX_FIELDS, MAX_FIELD_LEN};

impl Decoder {
    /// A header line `*N` whose `*` is at `buf[start]`.
    pub(super) fn start_frame(&mut self, start: usize, header: &[u8]) {
        match parse_count(&header[1..]) {
            Some(n) if (1..=MAX_FIELDS).contains(&n) => {
                self.resync = false;
                self.state = State::Frame {
                    start,
                    n,
                    fields: Vec::with_capacity(n.min(64)),
                    bulk: Bulk::Header,
                };
            }
            Some(n) => self.reject(FrameError::TooManyFields(n), start, 0, false),
            None => self.reject(FrameError::BadHeader(snippet(header)), start, 0, false),
        }
    }

    /// The frame at `buf[start]` is rejected whole, found bad at `self.pos` (`declared`: the
    /// length of the field being read). Its bytes are scanned again for a frame another
    /// writer started inside them; `mid_line`: the rest of the current line is the frame's.
    fn reject(&mut self, e: FrameError, start: usize, declared: usize, mid_line: bool) {
        self.state = State::Idle;
        self.resync = true;
        let end = self.pos;
        let inner = embedded_header(&self.buf, start + 1, end);
        let torn = inner.is_some() || end - start > ATOMIC || declared > ATOMIC;
        let text = is_text(&self.buf[start..end]);
        self.out.push_back(Event::Malformed(e));
        if !text {
            self.lines_off("a frame holding bytes that are not text was rejected");
        } else if torn {
            // Unlocked writers tear large frames at the same offsets: a later large frame
            // may hold another's rest at just the declared length. None is trusted now.
            self.big_ok = false;
            self.lines_off("a frame larger than PIPE_BUF or torn by another writer was rejected");
        }
        match inner {
            Some(j) => {
                self.pos = j;
                self.scan = j;
            }
            None => self.skip_line = mid_line && end > 0 && self.buf[end - 1] != b'\n',
        }
    }

    /// The frame cannot finish: its writer is gone (or stalled with the FIFO shared).
    fn cut_off(&mut self, start: usize, declared: usize) -> bool {
        if self.eof || self.stall {
            self.stall = false;
            self.reject(FrameError::Truncated, start, declared, false);
            return true;
        }
        false
    }

    /// One step inside a frame; false when more bytes are needed.
    pub(super) fn frame_step(
        &mut self,
        start: usize,
        n: usize,
        mut fields: Vec<(usize, usize)>,
        bulk: Bulk,
    ) -> bool {
        match bulk {
            Bulk::Header => {
                let at = self.pos;
                let Some((line, crlf)) = self.take_line() else {
                    if self.rest().len() > MAX_HEADER {
                        let bad = snippet(self.rest());
                        self.reject(FrameError::BadHeader(bad), start, 0, false);
                        self.skip_line = true;
                        return true;
                    }
                    self.state = State::Frame {
                        start,
                        n,
                        fields,
                        bulk: Bulk::Header,
                    };
                    return self.cut_off(start, 0);
                };
                if line.first() == Some(&b'$') {
                    let Some(len) = parse_count(&line[1..]) else {
                        self.reject(FrameError::BadHeader(snippet(&line)), start, 0, false);
                        return true;
                    };
                    if len > MAX_FIELD_LEN || self.pos - start + len > MAX_FRAME {
                        self.reject(FrameError::FieldTooLong(len), start, len, false);
                        return true;
                    }
                    let bulk = if len == 0 {
                        Bulk::Empty
                    } else {
                        Bulk::Data {
                            len,
                            at: self.pos - start,
                        }
                    };
                    self.state = State::Frame {
                        start,
                        n,
                        fields,
                        bulk,
                    };
                    return true;
                }
                if line.first() == Some(&b'*') || (!crlf && !line.is_empty()) {
                    // Another writer's frame or plain line: this frame's writer died before
                    // its next field. The frame is dropped; the line is read again as
                    // what it is.
                    self.pos = at;
                    self.scan = at;
                    self.reject(FrameError::Truncated, start, 0, false);
                    return true;
                }
                self.reject(FrameError::BadHeader(snippet(&line)), start, 0, false);
                true
            }
            Bulk::Empty => {
                let Some((line, _)) = self.take_line() else {
                    self.state = State::Frame {
                        start,
                        n,
                        fields,
                        bulk: Bulk::Empty,
                    };
                    return self.cut_off(start, 0);
                };
                if !line.is_empty() {
                    self.reject(FrameError::BadTerminator, start, 0, false);
                    return true;
                }
                fields.push((self.pos - start, 0));
                self.field_done(start, n, fields);
                true
            }
            Bulk::Data { len, at } => {
                let end = start + at + len + 2;
                if self.buf.len() < end {
                    let before = self.pos;
                    self.pos = self.buf.len();
                    self.state = State::Frame {
                        start,
                        n,
                        fields,
                        bulk: Bulk::Data { len, at },
                    };
                    return self.pos > before || self.cut_off(start, len);
                }
                self.pos = end;
                if &self.buf[end - 2..end] != b"\r\n" {
                    self.reject(FrameError::BadTerminator, start, len, true);
                    return true;
                }
                fields.push((at, len));
                self.field_done(start, n, fields);
                true
            }
        }
    }

    fn field_done(&mut self, start: usize, n: usize, fields: Vec<(usize, usize)>) {
        if fields.len() == n {
            if !self.big_ok && self.pos - start > ATOMIC {
                self.resync = true;
                self.out.push_back(Event::Dropped(format!(
                    "a frame of {} bytes was dropped: frames torn by unlocked writers came before it, so its bytes may be a mix (frames over PIPE_BUF are read again once every writer has closed input.fifo; use the lock, see docs/fifo-protocol.md)",
                    self.pos - start
                )));
                return;
            }
            let f = fields
                .iter()
                .map(|&(at, len)| self.buf[start + at..start + at + len].to_vec())
                .collect();
            self.out.push_back(Event::Frame(Frame(f)));
        } else {
            self.state = State::Frame {
                start,
                n,
                fields,
                bulk: Bulk::Header,
            };
        }
    }
}
