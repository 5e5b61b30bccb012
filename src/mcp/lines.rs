//! Reading a stdio MCP server's stdout: lines of bytes with a cap, so neither a line that is
//! not UTF-8 nor one without end can end the connection or grow the agent.
use std::io::BufRead;

/// Longest stdout line of a stdio server taken in; a longer one is read to its end and
/// dropped (a server writing without a newline must not grow the agent without end).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// What [`read_line_capped`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line (in `buf`, without its `\n`; also the last one when the stream ends without).
    Whole,
    /// A line longer than the cap: read to its end and dropped (`buf` is empty).
    TooLong,
    /// The stream has ended.
    End,
}

/// Read the next line of bytes into `buf`, holding at most `max` of them.
pub fn read_line_capped(
    r: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut over = false;
    let mut any = false;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (any, over) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong,
                (true, false) => Line::Whole,
            });
        }
        any = true;
        let (part, used, done) = match memchr::memchr(b'\n', chunk) {
            Some(k) => (&chunk[..k], k + 1, true),
            None => (chunk, chunk.len(), false),
        };
        if !over && buf.len() + part.len() <= max {
            buf.extend_from_slice(part);
        } else {
            over = true;
            buf.clear();
        }
        r.consume(used);
        if done {
            return Ok(if over { Line::TooLong } else { Line::Whole });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    #[test]
    fn lines_are_capped_and_bytes_kept_as_they_are() {
        let data = b"{\"a\":1}\n\xff\xfe junk\n0123456789abcdef\nlast".to_vec();
        let mut r = BufReader::with_capacity(4, &data[..]);
        let mut buf = Vec::new();
        let mut got = Vec::new();
        loop {
            let l = read_line_capped(&mut r, &mut buf, 10).unwrap();
            if l == Line::End {
                break;
            }
            got.push((l, buf.clone()));
        }
        assert_eq!(
            got,
            vec![
                (Line::Whole, b"{\"a\":1}".to_vec()),
                (Line::Whole, b"\xff\xfe junk".to_vec()),
                (Line::TooLong, Vec::new()),
                (Line::Whole, b"last".to_vec()),
            ]
        );
    }
}
