//! Reading a stdio MCP server's stdout: lines of bytes with a cap, so neither a line that is
//! not UTF-8 nor one without end can end the connection or grow the agent.
use std::io::BufRead;

/// Longest stdout line of a stdio server taken in; a longer one is read to its end and
/// dropped (a server writing without a newline must not grow the agent without end).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// How much of each end of an overlong line is kept: enough to find the JSON-RPC `id` of a
/// response (serialisers put it first, `{"jsonrpc":"2.0","id":7,...`, or last, `...,"id":7}`),
/// so the call it answers fails at once instead of waiting for its timeout.
const CLIP: usize = 512;

/// What [`read_line_capped`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line (in `buf`, without its `\n`; also the last one when the stream ends without).
    Whole,
    /// A line longer than the cap: read to its end and dropped; `buf` holds its first
    /// [`CLIP`] bytes, then a NUL, then its last ones (see [`overlong_id`]).
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
    let mut tail: Vec<u8> = Vec::new();
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(match (any, over) {
                (false, _) => Line::End,
                (true, true) => clipped(buf, &tail),
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
            if !over {
                tail = buf[buf.len().saturating_sub(CLIP)..].to_vec();
                buf.truncate(CLIP);
                buf.shrink_to(1 << 16);
            }
            over = true;
            tail.extend_from_slice(&part[part.len().saturating_sub(CLIP)..]);
            let cut = tail.len().saturating_sub(CLIP);
            tail.drain(..cut);
        }
        r.consume(used);
        if done {
            return Ok(if over {
                clipped(buf, &tail)
            } else {
                Line::Whole
            });
        }
    }
}

fn clipped(buf: &mut Vec<u8>, tail: &[u8]) -> Line {
    buf.push(0);
    buf.extend_from_slice(tail);
    Line::TooLong
}

/// The `id` of a JSON-RPC response whose line was too long, from the ends kept in `buf`
/// (`None` when neither end names one, or when the line is a server request or a
/// notification: those carry a `method`).
pub fn overlong_id(clip: &[u8]) -> Option<u64> {
    let text = String::from_utf8_lossy(clip);
    let (head, tail) = text.split_once('\0').unwrap_or((&text, ""));
    if head.contains("\"method\"") {
        return None;
    }
    let number_after = |s: &str| -> Option<u64> {
        let digits: String = s
            .trim_start_matches([' ', ':'])
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    let at_head = head
        .find("\"id\"")
        .filter(|&i| i < 64)
        .and_then(|i| number_after(&head[i + 4..]));
    at_head.or_else(|| {
        let t = tail.trim_end();
        let t = t.strip_suffix('}')?;
        let i = t.rfind("\"id\"")?;
        number_after(&t[i + 4..]).filter(|_| {
            t[i + 4..]
                .trim_start_matches([' ', ':'])
                .trim()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
    })
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
                (Line::TooLong, b"01234567\x000123456789abcdef".to_vec()),
                (Line::Whole, b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn the_id_of_an_overlong_response_is_found_at_either_end() {
        let big = "x".repeat(5000);
        for (line, want) in [
            (
                format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"{big}\"}}"),
                Some(7),
            ),
            (
                format!("{{\"result\":{{\"t\":\"{big}\"}},\"jsonrpc\":\"2.0\",\"id\":12}}"),
                Some(12),
            ),
            (
                format!("{{\"jsonrpc\":\"2.0\",\"method\":\"log\",\"params\":\"{big}\"}}"),
                None,
            ),
        ] {
            let data = format!("{line}\nnext\n");
            let mut r = BufReader::with_capacity(100, data.as_bytes());
            let mut buf = Vec::new();
            assert_eq!(
                read_line_capped(&mut r, &mut buf, 1000).unwrap(),
                Line::TooLong
            );
            assert!(buf.len() <= 2 * CLIP + 1);
            assert_eq!(overlong_id(&buf), want, "{line:.80}");
            assert_eq!(
                read_line_capped(&mut r, &mut buf, 1000).unwrap(),
                Line::Whole
            );
            assert_eq!(buf, b"next");
        }
    }
}
