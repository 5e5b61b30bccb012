//! Reading a streamable HTTP server's SSE stream: events with the fields MCP uses (`data`,
//! `id` for resumption, `retry` for the wait before it), each line read with the stdio
//! transport's cap (lines.rs), so an endless line cannot grow the agent and a result too
//! large to take in is noticed (its `id` kept) instead of dropped silently.
//!
//! Hand-written over `read_line_capped` rather than the provider's parser, which has no cap
//! and ignores `id` and `retry`; the crates.io SSE parsers found are async (futures streams).
use super::lines::{read_line_capped, Line, MAX_LINE};
use std::io::BufRead;

/// One thing read from the stream.
#[derive(Debug, PartialEq, Eq)]
pub enum Item {
    /// An event with data (the `data` lines joined with `\n`).
    Data(String),
    /// A `data` line longer than the cap: its clipped ends (lines::overlong_id reads them).
    TooLong(Vec<u8>),
}

/// An SSE stream being read; `last_id` and `retry` follow the fields seen so far.
pub struct SseReader<R> {
    r: R,
    line: Vec<u8>,
    /// The last `id` field (the SSE "last event ID", sent back as `Last-Event-ID`).
    pub last_id: Option<String>,
    /// The last valid `retry` field, in milliseconds.
    pub retry: Option<u64>,
}

impl<R: BufRead> SseReader<R> {
    pub fn new(r: R) -> Self {
        SseReader {
            r,
            line: Vec::new(),
            last_id: None,
            retry: None,
        }
    }

    /// The next event with data (events without data, like a priming event that only
    /// carries an `id`, update `last_id` and are skipped); `Ok(None)` at the end.
    pub fn next(&mut self) -> std::io::Result<Option<Item>> {
        let mut data = String::new();
        let mut has_data = false;
        loop {
            match read_line_capped(&mut self.r, &mut self.line, MAX_LINE)? {
                Line::End => {
                    // An event cut short by the end of the stream is not dispatched (the
                    // SSE rules), so a half-received message is never taken for a whole one.
                    return Ok(None);
                }
                Line::TooLong => {
                    if self.line.starts_with(b"data") {
                        let clip = std::mem::take(&mut self.line);
                        self.skip_to_blank()?;
                        return Ok(Some(Item::TooLong(clip)));
                    }
                    continue;
                }
                Line::Whole => {}
            }
            let line = self.line.strip_suffix(b"\r").unwrap_or(&self.line);
            if line.is_empty() {
                if has_data {
                    return Ok(Some(Item::Data(data)));
                }
                continue;
            }
            if line[0] == b':' {
                continue;
            }
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (line, &b""[..]),
            };
            let value = String::from_utf8_lossy(value);
            match field {
                b"data" => {
                    if has_data {
                        data.push('\n');
                    }
                    if data.len() + value.len() > MAX_LINE {
                        let clip = data.as_bytes()[..data.len().min(512)].to_vec();
                        self.skip_to_blank()?;
                        return Ok(Some(Item::TooLong(clip)));
                    }
                    has_data = true;
                    data.push_str(&value);
                }
                b"id" if !value.contains('\0') => self.last_id = Some(value.into_owned()),
                b"retry" => {
                    if let Ok(ms) = value.trim().parse::<u64>() {
                        self.retry = Some(ms);
                    }
                }
                _ => {}
            }
        }
    }

    /// The rest of an event whose data was too long: read up to its blank line, dropped.
    fn skip_to_blank(&mut self) -> std::io::Result<()> {
        loop {
            match read_line_capped(&mut self.r, &mut self.line, MAX_LINE)? {
                Line::End => return Ok(()),
                Line::Whole
                    if self
                        .line
                        .strip_suffix(b"\r")
                        .unwrap_or(&self.line)
                        .is_empty() =>
                {
                    return Ok(())
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_ids_and_retry() {
        let s = b": hi\r\nid: e1\r\nretry: 500\r\ndata: \r\n\r\nevent: message\nid: e2\ndata: {\"a\":\ndata: 1}\n\ndata: cut";
        let mut r = SseReader::new(&s[..]);
        // The priming event has an empty data line: dispatched as empty data.
        assert_eq!(r.next().unwrap(), Some(Item::Data(String::new())));
        assert_eq!((r.last_id.as_deref(), r.retry), (Some("e1"), Some(500)));
        assert_eq!(r.next().unwrap(), Some(Item::Data("{\"a\":\n1}".into())));
        assert_eq!(r.last_id.as_deref(), Some("e2"));
        assert_eq!(r.next().unwrap(), None);
    }
}
