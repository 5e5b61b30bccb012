//! RESP-like framing (docs/fifo-protocol.md): `*N\r\n` then N × `$L\r\n<L bytes>\r\n`.
//!
//! The writer always emits CRLF. The reader is bounded (caps on field count and length),
//! tolerates LF-only headers as the reference does, and on a malformed frame reports an
//! error and resynchronises at the next line starting with `*` instead of giving up.
use std::io::{self, BufRead};

/// Most fields a frame may carry (TOOL_CALL with many kv pairs stays far below).
pub const MAX_FIELDS: usize = 4096;
/// Largest single field accepted (64 MiB).
pub const MAX_FIELD_LEN: usize = 64 << 20;

/// Largest count a frame field may carry ([`Frame::number`]).
pub const MAX_NUMBER: u64 = i64::MAX as u64;

/// One frame: the first field is the type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame(pub Vec<Vec<u8>>);

impl Frame {
    /// `USER_INPUT 0 TEXT`: a prompt for input.fifo.
    pub fn user_input(text: &str) -> Frame {
        Frame::new(["USER_INPUT", "0", text])
    }

    /// `USER_NOTIFY TEXT`: a note injected into the running turn (notify.fifo).
    pub fn user_notify(text: &str) -> Frame {
        Frame::new(["USER_NOTIFY", text])
    }

    /// `SESSION_END 0`: ends a `--listen` or interactive agent.
    pub fn session_end() -> Frame {
        Frame::new(["SESSION_END", "0"])
    }

    /// `ASYNC_TASK_RESULT id exit_code output`: a background task's result.
    pub fn async_task_result(task_id: &str, exit_code: i32, output: &str) -> Frame {
        Frame::new(["ASYNC_TASK_RESULT", task_id, &exit_code.to_string(), output])
    }

    /// Build a frame from string-like fields.
    pub fn new<I, S>(fields: I) -> Frame
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        Frame(fields.into_iter().map(|f| f.as_ref().to_vec()).collect())
    }

    /// The frame type (field 0) as text; empty when the frame has no fields.
    pub fn kind(&self) -> &str {
        self.0
            .first()
            .and_then(|f| std::str::from_utf8(f).ok())
            .unwrap_or("")
    }

    /// Field `i` as (lossy) text; missing fields read as empty.
    pub fn field(&self, i: usize) -> String {
        self.0
            .get(i)
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .unwrap_or_default()
    }

    /// Field `i` as a count: decimal digits only, at most [`MAX_NUMBER`] (what a signed
    /// 64-bit JSON integer holds); an empty or missing field is 0. Anything else (a sign,
    /// spaces, letters, too many digits) is an error naming the field, so a bad frame is
    /// reported instead of counting as 0 or wrapping.
    pub fn number(&self, i: usize) -> Result<u64, String> {
        let raw = self.raw(i);
        if raw.is_empty() {
            return Ok(0);
        }
        let bad = || {
            format!(
                "{} field {i} is not a decimal count: {:?}",
                self.kind(),
                snippet(raw)
            )
        };
        if !raw.iter().all(u8::is_ascii_digit) {
            return Err(bad());
        }
        std::str::from_utf8(raw)
            .ok()
            .and_then(|t| t.parse::<u64>().ok())
            .filter(|n| *n <= MAX_NUMBER)
            .ok_or_else(bad)
    }

    /// Field `i` as raw bytes.
    pub fn raw(&self, i: usize) -> &[u8] {
        self.0.get(i).map(|f| f.as_slice()).unwrap_or(&[])
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Encode to wire bytes.
    pub fn encode(&self) -> Vec<u8> {
        let size: usize = self.0.iter().map(|f| f.len() + 16).sum::<usize>() + 16;
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(format!("*{}\r\n", self.0.len()).as_bytes());
        for f in &self.0 {
            out.extend_from_slice(format!("${}\r\n", f.len()).as_bytes());
            out.extend_from_slice(f);
            out.extend_from_slice(b"\r\n");
        }
        out
    }
}

/// Encode a frame from string fields (convenience).
pub fn encode<S: AsRef<[u8]>>(fields: &[S]) -> Vec<u8> {
    Frame::new(fields.iter().map(|f| f.as_ref())).encode()
}

/// Why a frame was rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FrameError {
    #[error("malformed frame header: {0:?}")]
    BadHeader(String),
    #[error("frame has too many fields ({0})")]
    TooManyFields(usize),
    #[error("frame field too long ({0} bytes)")]
    FieldTooLong(usize),
    #[error("frame field not terminated by CRLF")]
    BadTerminator,
    #[error("stream ended inside a frame")]
    Truncated,
}

/// Result of reading one item from a stream.
#[derive(Debug)]
pub enum Item {
    Frame(Frame),
    /// A malformed frame was skipped; the reader has resynchronised.
    Malformed(FrameError),
    /// A plain text line (first byte not `*`), only when plain lines are allowed.
    Line(String),
}

/// Streaming frame reader over any `BufRead`.
///
/// An inner reader may return `ErrorKind::TimedOut` when no byte arrives for a while (the
/// FIFO readers do): between frames the error is passed up (call again; a partly read
/// header line is kept), inside a frame it makes the frame `Truncated`, so a writer that
/// died mid-frame cannot swallow the frames that follow.
pub struct Reader<R> {
    inner: R,
    /// Accept lines not starting with `*` as plain text items (input.fifo mode).
    pub allow_plain_lines: bool,
    /// Set after a malformed frame: lines not starting with `*` are the rest of that frame
    /// and are dropped until the next `*` line (or until the input goes idle, see
    /// [`Reader::next_item_with`]).
    pub resync: bool,
    /// Bytes of a header line whose read timed out (kept for the next call).
    partial: Vec<u8>,
}

impl<R: BufRead> Reader<R> {
    pub fn new(inner: R) -> Self {
        Reader {
            inner,
            allow_plain_lines: false,
            resync: false,
            partial: Vec::new(),
        }
    }

    pub fn with_plain_lines(inner: R) -> Self {
        Reader {
            inner,
            allow_plain_lines: true,
            resync: false,
            partial: Vec::new(),
        }
    }

    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// One line without its LF (and CR). A `TimedOut` error (see [`Reader`]) keeps the
    /// bytes read so far for the next call.
    fn read_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = std::mem::take(&mut self.partial);
        match self.inner.read_until(b'\n', &mut line) {
            Ok(0) if line.is_empty() => return Ok(None),
            Ok(_) => {}
            Err(e) => {
                self.partial = line;
                return Err(e);
            }
        }
        if line.ends_with(b"\n") {
            line.pop();
            if line.ends_with(b"\r") {
                line.pop();
            }
        }
        Ok(Some(line))
    }

    /// Read the next item. `Ok(None)` at a clean end of stream.
    pub fn next_item(&mut self) -> io::Result<Option<Item>> {
        self.next_item_with(|_| false)
    }

    /// Like [`Reader::next_item`]; `idle(inner)` is asked before each line read while
    /// resynchronising: when it says the input is idle (everything the bad writer sent has
    /// been consumed), resynchronisation ends, so a later plain line is not swallowed.
    pub fn next_item_with(&mut self, mut idle: impl FnMut(&R) -> bool) -> io::Result<Option<Item>> {
        loop {
            if self.resync && idle(&self.inner) {
                self.resync = false;
            }
            let line = match self.read_line()? {
                Some(l) => l,
                None => return Ok(None),
            };
            if line.is_empty() {
                continue;
            }
            if line[0] != b'*' {
                if self.resync {
                    continue;
                }
                if self.allow_plain_lines {
                    return Ok(Some(Item::Line(
                        String::from_utf8_lossy(&line).into_owned(),
                    )));
                }
                self.resync = true;
                return Ok(Some(Item::Malformed(FrameError::BadHeader(
                    String::from_utf8_lossy(&line[..line.len().min(40)]).into_owned(),
                ))));
            }
            self.resync = false;
            return match self.read_body(&line) {
                Ok(f) => Ok(Some(Item::Frame(f))),
                Err(FrameErrorOrIo::Io(e)) => Err(e),
                Err(FrameErrorOrIo::Frame(e)) => {
                    self.resync = true;
                    Ok(Some(Item::Malformed(e)))
                }
            };
        }
    }

    /// Read the next well-formed frame, passing malformed ones and plain lines to `on_skip`.
    pub fn next_frame(&mut self, mut on_skip: impl FnMut(&Item)) -> io::Result<Option<Frame>> {
        loop {
            match self.next_item()? {
                None => return Ok(None),
                Some(Item::Frame(f)) => return Ok(Some(f)),
                Some(other) => on_skip(&other),
            }
        }
    }

    /// A header line inside a frame: the stream ending or stalling (`TimedOut`) there
    /// makes the frame truncated.
    fn body_line(&mut self) -> Result<Vec<u8>, FrameErrorOrIo> {
        match self.read_line() {
            Ok(Some(l)) => Ok(l),
            Ok(None) => Err(FrameError::Truncated.into()),
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                self.partial.clear();
                Err(FrameError::Truncated.into())
            }
            Err(e) => Err(e.into()),
        }
    }

    fn read_body(&mut self, header: &[u8]) -> Result<Frame, FrameErrorOrIo> {
        let n = parse_count(&header[1..]).ok_or_else(|| FrameError::BadHeader(snippet(header)))?;
        if n == 0 || n > MAX_FIELDS {
            return Err(FrameError::TooManyFields(n).into());
        }
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            let h = self.body_line()?;
            if h.first() != Some(&b'$') {
                return Err(FrameError::BadHeader(snippet(&h)).into());
            }
            let len = parse_count(&h[1..]).ok_or_else(|| FrameError::BadHeader(snippet(&h)))?;
            if len > MAX_FIELD_LEN {
                return Err(FrameError::FieldTooLong(len).into());
            }
            if len == 0 {
                // The reference consumes up to the next LF.
                let rest = self.body_line()?;
                if !rest.is_empty() {
                    return Err(FrameError::BadTerminator.into());
                }
                fields.push(Vec::new());
                continue;
            }
            let mut data = vec![0u8; len + 2];
            read_exact_or_truncated(&mut self.inner, &mut data)?;
            if &data[len..] != b"\r\n" {
                return Err(FrameError::BadTerminator.into());
            }
            data.truncate(len);
            fields.push(data);
        }
        Ok(Frame(fields))
    }
}

fn read_exact_or_truncated<R: BufRead>(r: &mut R, buf: &mut [u8]) -> Result<(), FrameErrorOrIo> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => return Err(FrameError::Truncated.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {
                return Err(FrameError::Truncated.into())
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(FrameErrorOrIo::Io(e)),
        }
    }
    Ok(())
}

/// The start of a bad line, for error messages.
pub(crate) fn snippet(b: &[u8]) -> String {
    String::from_utf8_lossy(&b[..b.len().min(40)]).into_owned()
}

pub(crate) fn parse_count(digits: &[u8]) -> Option<usize> {
    if digits.is_empty() || digits.len() > 12 || !digits.iter().all(|b| b.is_ascii_digit()) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

enum FrameErrorOrIo {
    Frame(FrameError),
    Io(io::Error),
}

impl From<FrameError> for FrameErrorOrIo {
    fn from(e: FrameError) -> Self {
        FrameErrorOrIo::Frame(e)
    }
}

impl From<io::Error> for FrameErrorOrIo {
    fn from(e: io::Error) -> Self {
        FrameErrorOrIo::Io(e)
    }
}

/// Decode every frame in a byte buffer (e.g. a notify.buf snapshot); malformed parts are
/// reported through `on_skip` and skipped.
pub fn decode_all(bytes: &[u8], mut on_skip: impl FnMut(&FrameError)) -> Vec<Frame> {
    let mut r = Reader::new(io::Cursor::new(bytes));
    let mut out = Vec::new();
    while let Ok(Some(item)) = r.next_item() {
        match item {
            Item::Frame(f) => out.push(f),
            Item::Malformed(e) => on_skip(&e),
            Item::Line(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests;
