//! Byte tests the decoder uses to tell frames, text lines and everything else apart.
use crate::ipc::resp::{parse_count, MAX_FIELDS};

/// True when `b` can be (part of) a text line a person or a script wrote: valid UTF-8
/// without control characters other than tab, CR and LF. Random bytes (a binary file,
/// /dev/urandom) fail this almost at once, so their pieces never become user input.
pub(super) fn is_text(b: &[u8]) -> bool {
    if b.iter()
        .any(|&c| (c < 0x20 && !matches!(c, b'\t' | b'\r' | b'\n')) || c == 0x7f)
    {
        return false;
    }
    std::str::from_utf8(b).is_ok()
}

/// `partial*3` → Some(7): where a frame header (`*` + a count) starts after other bytes.
pub(super) fn glued_header(line: &[u8]) -> Option<usize> {
    let at = line.iter().rposition(|b| *b == b'*')?;
    (at > 0 && parse_count(&line[at + 1..]).is_some()).then_some(at)
}

/// `$12`: a bulk-string header (the rest of a bad frame when it comes after one).
pub(super) fn is_bulk_header(line: &[u8]) -> bool {
    line.first() == Some(&b'$') && parse_count(&line[1..]).is_some()
}

/// The first frame start in `buf[from..to]`: `*N\r\n` (N a field count) followed by `$`
/// (or by nothing yet). That is where another writer's frame begins inside the bytes a
/// rejected frame had taken as its own (a torn or lying frame), so the decoder reads it
/// from there instead of losing it.
pub(super) fn embedded_header(buf: &[u8], from: usize, to: usize) -> Option<usize> {
    let mut i = from;
    while i < to {
        let j = i + buf[i..to].iter().position(|b| *b == b'*')?;
        let digits = buf[j + 1..]
            .iter()
            .take(5)
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = j + 1 + digits;
        let counted = (1..=4).contains(&digits)
            && parse_count(&buf[j + 1..end]).is_some_and(|n| (1..=MAX_FIELDS).contains(&n));
        if counted
            && buf.get(end..end + 2) == Some(&b"\r\n"[..])
            && buf.get(end + 2).is_none_or(|b| *b == b'$')
        {
            return Some(j);
        }
        i = j + 1;
    }
    None
}
