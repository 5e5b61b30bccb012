//! A small, fast Server-Sent-Events parser (the subset the model APIs use).
//!
//! Bytes arrive in arbitrary chunks; complete events come out through a callback as
//! `(event name, data)`. Lines end in LF, CRLF or a lone CR (also when the CR and LF are
//! split across chunks). `:` comment lines are ignored, `data:` lines of one event are
//! joined with `\n`, an event without `event:` is called `message`. At end of input
//! [`SseParser::finish`] dispatches a trailing event that lacked its blank line (a stream
//! cut short still delivers what arrived; the normaliser then notices the missing
//! terminal event).
//!
//! Speed: lines are processed straight from the input chunk; only a partial trailing line
//! is copied. Names and data are kept in reused buffers (no per-line allocation).

/// Buffers up to this size are reused between lines; a bigger one (a huge answer) is freed.
const KEEP: usize = 1 << 20;

/// The event callback: `(event name, data)`; the data may be taken.
pub type OnEvent<'a> = dyn FnMut(&str, &mut String) + 'a;

/// Incremental SSE parser. Feed chunks with [`feed`](Self::feed), then call
/// [`finish`](Self::finish) at end of input.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of an incomplete line carried over from the previous chunk.
    partial: Vec<u8>,
    /// The previous chunk ended with CR: an LF at the start of the next one belongs to it.
    skip_lf: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseParser {
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// Parse one chunk; `on_event(name, data)` is called for every completed event.
    pub fn feed(&mut self, chunk: &[u8], on_event: &mut dyn FnMut(&str, &str)) {
        self.feed_owned(chunk, &mut |n, d| on_event(n, d));
    }

    /// End of input: process a last unterminated line and dispatch a pending event.
    pub fn finish(&mut self, on_event: &mut dyn FnMut(&str, &str)) {
        self.finish_owned(&mut |n, d| on_event(n, d));
    }

    /// [`feed`](Self::feed) with the data buffer lent mutably: the consumer may take it
    /// (`std::mem::take`) to free a huge event's data as soon as it is parsed.
    pub fn feed_owned(&mut self, mut chunk: &[u8], on_event: &mut OnEvent) {
        if self.skip_lf && !chunk.is_empty() {
            self.skip_lf = false;
            if chunk.first() == Some(&b'\n') {
                chunk = &chunk[1..];
            }
        }
        while let Some(pos) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            let term = chunk[pos];
            let mut next = pos + 1;
            if term == b'\r' {
                if next < chunk.len() {
                    if chunk[next] == b'\n' {
                        next += 1;
                    }
                } else {
                    self.skip_lf = true;
                }
            }
            if self.partial.is_empty() {
                self.line(&chunk[..pos], on_event);
            } else {
                self.partial.extend_from_slice(&chunk[..pos]);
                let line = std::mem::take(&mut self.partial);
                self.line_owned(line, on_event);
            }
            chunk = &chunk[next..];
        }
        self.partial.extend_from_slice(chunk);
    }

    /// [`finish`](Self::finish) with the data buffer lent mutably.
    pub fn finish_owned(&mut self, on_event: &mut OnEvent) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.line_owned(line, on_event);
        }
        self.line(b"", on_event);
        self.skip_lf = false;
    }

    /// A line that was carried over chunks: the first `data:` line of an event becomes the
    /// event's data in place (a huge answer in one line is never copied); others go
    /// through [`line`](Self::line) and the buffer is kept for the next partial line.
    fn line_owned(&mut self, mut line: Vec<u8>, on_event: &mut OnEvent) {
        if !self.has_data && line.starts_with(b"data:") {
            let skip = if line.get(5) == Some(&b' ') { 6 } else { 5 };
            line.drain(..skip);
            self.has_data = true;
            match String::from_utf8(line) {
                Ok(s) => self.data = s,
                Err(e) => push_utf8(&mut self.data, e.as_bytes()),
            }
            return;
        }
        self.line(&line, on_event);
        if line.capacity() <= KEEP {
            line.clear();
            self.partial = line;
        }
    }

    fn line(&mut self, line: &[u8], on_event: &mut OnEvent) {
        if line.is_empty() {
            if self.has_data {
                let name = if self.event.is_empty() {
                    "message"
                } else {
                    &self.event
                };
                on_event(name, &mut self.data);
            }
            self.event.clear();
            self.data.clear();
            if self.data.capacity() > KEEP {
                self.data = String::new();
            }
            self.has_data = false;
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.has_data = true;
                push_utf8(&mut self.data, value);
            }
            b"event" => {
                self.event.clear();
                push_utf8(&mut self.event, value);
            }
            _ => {} // id, retry and unknown fields are not used by the model APIs
        }
    }
}

fn push_utf8(buf: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => buf.push_str(s),
        Err(_) => buf.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> Vec<(String, String)> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        let mut cb = |n: &str, d: &str| out.push((n.to_string(), d.to_string()));
        for c in chunks {
            p.feed(c, &mut cb);
        }
        p.finish(&mut cb);
        out
    }

    fn ev(n: &str, d: &str) -> (String, String) {
        (n.to_string(), d.to_string())
    }

    const SAMPLE: &[u8] = b"event: message_start\ndata: {\"a\":1}\n\n: keep-alive\n\nevent: delta\ndata: line1\ndata: line2\n\ndata: plain\n\nevent: x\ndata:nospace\n\n";

    fn sample_expected() -> Vec<(String, String)> {
        vec![
            ev("message_start", "{\"a\":1}"),
            ev("delta", "line1\nline2"),
            ev("message", "plain"),
            ev("x", "nospace"),
        ]
    }

    #[test]
    fn whole_input() {
        assert_eq!(parse_chunks(&[SAMPLE]), sample_expected());
    }

    #[test]
    fn every_split_point_lf_and_crlf() {
        let crlf: Vec<u8> = String::from_utf8_lossy(SAMPLE)
            .replace('\n', "\r\n")
            .into_bytes();
        let cr: Vec<u8> = String::from_utf8_lossy(SAMPLE)
            .replace('\n', "\r")
            .into_bytes();
        for input in [SAMPLE.to_vec(), crlf, cr] {
            for i in 0..=input.len() {
                for j in i..=input.len() {
                    let got = parse_chunks(&[&input[..i], &input[i..j], &input[j..]]);
                    assert_eq!(got, sample_expected(), "split at {i},{j}");
                }
            }
        }
    }

    #[test]
    fn byte_by_byte() {
        let chunks: Vec<&[u8]> = SAMPLE.chunks(1).collect();
        assert_eq!(parse_chunks(&chunks), sample_expected());
    }

    #[test]
    fn comments_and_unknown_fields_ignored() {
        let got = parse_chunks(&[b":comment\nid: 7\nretry: 10\nevent: e\ndata: d\n\n"]);
        assert_eq!(got, vec![ev("e", "d")]);
    }

    #[test]
    fn event_without_data_is_not_dispatched() {
        let got = parse_chunks(&[b"event: lonely\n\nevent: ok\ndata: 1\n\n"]);
        assert_eq!(got, vec![ev("ok", "1")]);
    }

    #[test]
    fn empty_data_line_counts() {
        let got = parse_chunks(&[b"data:\n\n"]);
        assert_eq!(got, vec![ev("message", "")]);
    }

    #[test]
    fn stream_cut_short() {
        // The last event has no blank line and no final newline: still delivered at finish.
        let got = parse_chunks(&[b"event: a\ndata: 1\n\nevent: b\ndata: {\"par"]);
        assert_eq!(got, vec![ev("a", "1"), ev("b", "{\"par")]);
        // Cut in the middle of a field name: nothing bogus comes out.
        let got = parse_chunks(&[b"event: a\ndata: 1\n\neve"]);
        assert_eq!(got, vec![ev("a", "1")]);
    }

    #[test]
    fn utf8_split_across_chunks() {
        let input = "data: héllo wörld ✓\n\n".as_bytes();
        for i in 0..=input.len() {
            let got = parse_chunks(&[&input[..i], &input[i..]]);
            assert_eq!(got, vec![ev("message", "héllo wörld ✓")], "split at {i}");
        }
    }

    #[test]
    fn long_data_lines_carried_over_chunks() {
        let big = "é".repeat(100_000);
        let input = format!("event: a\ndata: {big}\ndata:{big}\n\ndata: x\n\n: c\ndata:y");
        let chunks: Vec<&[u8]> = input.as_bytes().chunks(16 * 1024 + 1).collect();
        let two = format!("{big}\n{big}");
        assert_eq!(
            parse_chunks(&chunks),
            vec![ev("a", &two), ev("message", "x"), ev("message", "y")]
        );
    }
}
