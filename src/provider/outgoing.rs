//! A request body as a list of parts (the stored conversation lines spliced in as they
//! are, borrowed, between the provider's own JSON), and the pipe that streams it to the
//! HTTP worker: a long session's request is never built whole in memory and never copied
//! more than once on its way to the socket.
use std::borrow::Cow;
use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::thread::Thread;
use std::time::Duration;

/// The body of one request: its parts, in order, and their total length in bytes (the
/// `Content-Length`).
#[derive(Debug, Default, Clone)]
pub struct Body<'a> {
    parts: Vec<Cow<'a, str>>,
    len: usize,
}

impl<'a> Body<'a> {
    pub fn new() -> Body<'a> {
        Body::default()
    }

    /// Room for `n` more parts (a long session's list is sized once, not regrown).
    pub fn reserve(&mut self, n: usize) {
        self.parts.reserve(n);
    }

    pub fn push(&mut self, part: impl Into<Cow<'a, str>>) {
        let p = part.into();
        if p.is_empty() {
            return;
        }
        self.len += p.len();
        self.parts.push(p);
    }

    /// The parts `items` joined with `,` (a JSON array's elements).
    pub fn push_joined<I, S>(&mut self, items: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'a, str>>,
    {
        for (i, s) in items.into_iter().enumerate() {
            if i > 0 {
                self.push(",");
            }
            self.push(s);
        }
    }

    /// Total bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first part (the provider's fields before the messages, for every provider).
    pub fn head_mut(&mut self) -> Option<&mut Cow<'a, str>> {
        self.parts.first_mut()
    }

    /// Recompute the length after [`Body::head_mut`] changed a part.
    pub fn recount(&mut self) {
        self.len = self.parts.iter().map(|p| p.len()).sum();
    }

    /// The first `n` characters (the verbose log line).
    pub fn prefix_chars(&self, n: usize) -> String {
        self.parts.iter().flat_map(|p| p.chars()).take(n).collect()
    }

    /// The whole body as one string (tests, and the callers that want it whole).
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(self.len);
        for p in &self.parts {
            s.push_str(p);
        }
        s
    }

    /// Send the body through `pipe` in chunks of about [`CHUNK`] bytes. Returns false when
    /// `stop()` said to stop or the worker hung up (its own error then reaches the caller
    /// over the response channel).
    pub fn feed(&self, pipe: &PipeTx, stop: &dyn Fn() -> bool) -> bool {
        let mut buf: Vec<u8> = Vec::with_capacity(CHUNK);
        for p in &self.parts {
            let mut bytes = p.as_bytes();
            while !bytes.is_empty() {
                let take = (CHUNK - buf.len()).min(bytes.len());
                buf.extend_from_slice(&bytes[..take]);
                bytes = &bytes[take..];
                if buf.len() == CHUNK {
                    let full = std::mem::replace(&mut buf, Vec::with_capacity(CHUNK));
                    if !pipe.send(full, stop) {
                        return false;
                    }
                }
            }
        }
        buf.is_empty() || pipe.send(buf, stop)
    }
}

/// Bytes per chunk handed to the worker (a few of them are in flight at once).
pub const CHUNK: usize = 256 * 1024;
/// Chunks the pipe holds before the feeder waits for the worker.
const DEPTH: usize = 4;

/// The feeding end of a body pipe.
pub struct PipeTx {
    tx: SyncSender<Vec<u8>>,
}

impl PipeTx {
    /// Hand over one chunk, waiting (in 50 ms steps, so `stop` is polled) while the pipe
    /// is full; the reader wakes the feeder each time it takes a chunk.
    fn send(&self, mut chunk: Vec<u8>, stop: &dyn Fn() -> bool) -> bool {
        loop {
            match self.tx.try_send(chunk) {
                Ok(()) => return true,
                Err(TrySendError::Disconnected(_)) => return false,
                Err(TrySendError::Full(c)) => {
                    if stop() {
                        return false;
                    }
                    chunk = c;
                    std::thread::park_timeout(Duration::from_millis(50));
                }
            }
        }
    }
}

/// The worker's end: a reader over the chunks, of a known total length. A feeder that
/// stops early makes it fail (rather than end short of the `Content-Length` it promised).
pub struct PipeRx {
    rx: Receiver<Vec<u8>>,
    feeder: Thread,
    cur: Vec<u8>,
    pos: usize,
    left: usize,
}

/// A pipe for a body of `len` bytes fed from the current thread.
pub fn pipe(len: usize) -> (PipeTx, PipeRx) {
    let (tx, rx) = sync_channel(DEPTH);
    (
        PipeTx { tx },
        PipeRx {
            rx,
            feeder: std::thread::current(),
            cur: Vec::new(),
            pos: 0,
            left: len,
        },
    )
}

impl Read for PipeRx {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 || out.is_empty() {
            return Ok(0);
        }
        while self.pos == self.cur.len() {
            match self.rx.recv() {
                Ok(c) => {
                    self.feeder.unpark();
                    self.cur = c;
                    self.pos = 0;
                }
                Err(_) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "request body cancelled",
                    ))
                }
            }
        }
        let n = (self.cur.len() - self.pos).min(out.len()).min(self.left);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        self.left -= n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_stream_whole_through_the_pipe() {
        let big = "x".repeat(CHUNK + 17);
        let mut b = Body::new();
        b.push("{\"a\":[");
        b.push_joined(["1", big.as_str(), "3"]);
        b.push("]}");
        let want = b.to_text();
        assert_eq!(b.len(), want.len());
        let (tx, mut rx) = pipe(b.len());
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            rx.read_to_string(&mut s).map(|_| s)
        });
        assert!(b.feed(&tx, &|| false));
        drop(tx);
        assert_eq!(reader.join().unwrap().unwrap(), want);
    }

    #[test]
    fn a_feeder_that_stops_early_fails_the_reader() {
        let (tx, mut rx) = pipe(10);
        drop(tx);
        let mut s = Vec::new();
        assert!(rx.read_to_end(&mut s).is_err());
    }
}
