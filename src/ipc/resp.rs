//! RESP-like framing (ipc-sessions.md §2): `*N\r\n` then N × `$L\r\n<L bytes>\r\n`.
//!
//! The writer always emits CRLF. The reader is bounded (caps on field count and length),
//! tolerates LF-only headers as the reference does, and on a malformed frame reports an
//! error and resynchronises at the next line starting with `*` instead of giving up.
use std::io::{self, BufRead};

/// Most fields a frame may carry (TOOL_CALL with many kv pairs stays far below).
pub const MAX_FIELDS: usize = 4096;
/// Largest single field accepted (64 MiB).
pub const MAX_FIELD_LEN: usize = 64 << 20;

/// One frame: the first field is the type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame(pub Vec<Vec<u8>>);

impl Frame {
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
pub struct Reader<R> {
    inner: R,
    /// Accept lines not starting with `*` as plain text items (input.fifo mode).
    pub allow_plain_lines: bool,
}

impl<R: BufRead> Reader<R> {
    pub fn new(inner: R) -> Self {
        Reader {
            inner,
            allow_plain_lines: false,
        }
    }

    pub fn with_plain_lines(inner: R) -> Self {
        Reader {
            inner,
            allow_plain_lines: true,
        }
    }

    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    fn read_line(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut line = Vec::new();
        let n = self.inner.read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
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
        loop {
            let line = match self.read_line()? {
                Some(l) => l,
                None => return Ok(None),
            };
            if line.is_empty() {
                continue;
            }
            if line[0] != b'*' {
                if self.allow_plain_lines {
                    return Ok(Some(Item::Line(String::from_utf8_lossy(&line).into_owned())));
                }
                return Ok(Some(Item::Malformed(FrameError::BadHeader(
                    String::from_utf8_lossy(&line[..line.len().min(40)]).into_owned(),
                ))));
            }
            return match self.read_body(&line) {
                Ok(f) => Ok(Some(Item::Frame(f))),
                Err(FrameErrorOrIo::Io(e)) => Err(e),
                Err(FrameErrorOrIo::Frame(e)) => Ok(Some(Item::Malformed(e))),
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

    fn read_body(&mut self, header: &[u8]) -> Result<Frame, FrameErrorOrIo> {
        let n = parse_count(&header[1..])
            .ok_or_else(|| FrameError::BadHeader(String::from_utf8_lossy(header).into_owned()))?;
        if n == 0 || n > MAX_FIELDS {
            return Err(FrameError::TooManyFields(n).into());
        }
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            let h = self.read_line()?.ok_or(FrameError::Truncated)?;
            if h.first() != Some(&b'$') {
                return Err(FrameError::BadHeader(String::from_utf8_lossy(&h).into_owned()).into());
            }
            let len = parse_count(&h[1..])
                .ok_or_else(|| FrameError::BadHeader(String::from_utf8_lossy(&h).into_owned()))?;
            if len > MAX_FIELD_LEN {
                return Err(FrameError::FieldTooLong(len).into());
            }
            if len == 0 {
                // The reference consumes up to the next LF.
                let rest = self.read_line()?.ok_or(FrameError::Truncated)?;
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
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(FrameErrorOrIo::Io(e)),
        }
    }
    Ok(())
}

fn parse_count(digits: &[u8]) -> Option<usize> {
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
mod tests {
    use super::*;

    #[test]
    fn exact_reference_frames() {
        let f = encode(&["USER_INPUT", "0", "h\u{e9}llo"]);
        assert_eq!(f, b"*3\r\n$10\r\nUSER_INPUT\r\n$1\r\n0\r\n$6\r\nh\xC3\xA9llo\r\n");
        assert_eq!(f.len(), 40);
        assert_eq!(encode(&["NOTIFY_PENDING"]).len(), 25);
        assert_eq!(encode(&["SESSION_END"]).len(), 22);
        assert_eq!(encode(&["SESSION_END", "0"]).len(), 29);
        assert_eq!(encode(&["USER_NOTIFY", "also check tests"]).len(), 45);
    }

    #[test]
    fn round_trip_and_empty_field() {
        let f = Frame::new(["TEXT", "", "a\r\nb"]);
        let got = decode_all(&f.encode(), |_| panic!("skip"));
        assert_eq!(got, vec![f]);
    }

    #[test]
    fn lf_only_headers_tolerated() {
        let got = decode_all(b"*2\n$4\nTEXT\r\n$2\nhi\r\n", |_| panic!());
        assert_eq!(got[0].field(1), "hi");
    }

    #[test]
    fn malformed_is_skipped_and_resyncs() {
        let mut bytes = b"garbage line\n*x\r\n".to_vec();
        bytes.extend(encode(&["NOTIFY_PENDING"]));
        let mut skipped = 0;
        let got = decode_all(&bytes, |_| skipped += 1);
        assert_eq!(skipped, 2);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].kind(), "NOTIFY_PENDING");
    }

    #[test]
    fn caps_enforced() {
        let mut skipped = Vec::new();
        decode_all(b"*99999\r\n", |e| skipped.push(format!("{e}")));
        assert_eq!(skipped.len(), 1);
        let mut skipped = 0;
        decode_all(b"*1\r\n$999999999999\r\n", |_| skipped += 1);
        assert_eq!(skipped, 1);
    }

    #[test]
    fn plain_lines() {
        let mut r = Reader::with_plain_lines(io::Cursor::new(&b"run the tests\n"[..]));
        match r.next_item().unwrap() {
            Some(Item::Line(l)) => assert_eq!(l, "run the tests"),
            other => panic!("{other:?}"),
        }
    }
}
