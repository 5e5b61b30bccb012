//! Replay selection (docs/replay.md, "Selection"): the byte offset of the N-th last line that
//! contains `"type":"user_input"` (a plain substring match, like the reference's grep),
//! found by reading the file backwards in blocks, so the cost depends on the size of the
//! last N turns, not on the size of the file. Memory stays bounded even for huge lines.
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

/// The boundary marker the reference greps for.
pub const MARKER: &[u8] = b"\"type\":\"user_input\"";

const BLOCK: usize = 64 * 1024;

fn find_all(hay: &[u8], needle: &[u8], limit: usize) -> Vec<usize> {
    // Positions (< limit) where `needle` starts in `hay`.
    let mut out = Vec::new();
    if needle.is_empty() || hay.len() < needle.len() {
        return out;
    }
    let first = needle[0];
    let mut i = 0;
    while i + needle.len() <= hay.len() && i < limit {
        match hay[i..].iter().position(|&b| b == first) {
            None => break,
            Some(k) => {
                let at = i + k;
                if at >= limit || at + needle.len() > hay.len() {
                    break;
                }
                if &hay[at..at + needle.len()] == needle {
                    out.push(at);
                }
                i = at + 1;
            }
        }
    }
    out
}

/// Offset where replay of the last `turns` turns starts: the start of the `turns`-th last
/// line containing the marker, the earliest such line when there are fewer, 0 when there
/// is none (the whole file). `turns == 0` selects nothing (the file's length).
pub fn start_offset(file: &mut File, turns: usize) -> io::Result<u64> {
    let len = file.seek(SeekFrom::End(0))?;
    if turns == 0 {
        return Ok(len);
    }
    let m = MARKER.len();
    let mut found: Vec<u64> = Vec::new();
    // A match lies on a line whose start has not been seen yet (it is further back).
    let mut pending = false;
    // The first m-1 bytes of the block read before (the one after this one in the file).
    let mut carry: Vec<u8> = Vec::new();
    let mut end = len;
    let mut buf = vec![0u8; BLOCK + m];
    while end > 0 {
        let start = end.saturating_sub(BLOCK as u64);
        let n = (end - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf[..n])?;
        let total = n + carry.len();
        buf[n..total].copy_from_slice(&carry);
        let data = &buf[..total];
        let matches = find_all(data, MARKER, n);
        // Walk the block's lines from the last to the first.
        let mut seg_end = n; // exclusive end of the current segment inside the block
        let mut mi = matches.len();
        loop {
            let nl = data[..seg_end].iter().rposition(|&b| b == b'\n');
            let seg_start = nl.map(|i| i + 1).unwrap_or(0);
            let mut hit = false;
            while mi > 0 && matches[mi - 1] >= seg_start {
                hit = true;
                mi -= 1;
            }
            pending |= hit;
            match nl {
                Some(i) => {
                    if pending {
                        found.push(start + seg_start as u64);
                        pending = false;
                        if found.len() == turns {
                            return Ok(found[turns - 1]);
                        }
                    }
                    seg_end = i;
                }
                None => break,
            }
        }
        carry.clear();
        carry.extend_from_slice(&data[..n.min(m - 1)]);
        end = start;
    }
    if pending {
        found.push(0);
    }
    Ok(found.last().copied().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// The reference: grep -n | tail -n N | head -n 1, else line 1.
    fn naive(content: &[u8], turns: usize) -> u64 {
        if turns == 0 {
            return content.len() as u64;
        }
        let mut starts = Vec::new();
        let mut off = 0u64;
        for line in content.split_inclusive(|&b| b == b'\n') {
            if !find_all(line, MARKER, line.len()).is_empty() {
                starts.push(off);
            }
            off += line.len() as u64;
        }
        if starts.is_empty() {
            return 0;
        }
        starts[starts.len().saturating_sub(turns)]
    }

    fn check(content: &[u8], turns: usize) {
        let mut f = tempfile::tempfile().expect("tempfile");
        f.write_all(content).expect("write");
        let got = start_offset(&mut f, turns).expect("scan");
        assert_eq!(
            got,
            naive(content, turns),
            "turns={turns} len={}",
            content.len()
        );
    }

    #[test]
    fn matches_the_reference_selection() {
        let ui = |i: usize| format!("{{\"type\":\"user_input\",\"content\":\"q{i}\"}}\n");
        let mut s = String::from("{\"type\":\"session_start\",\"session_id\":\"x\"}\n");
        for i in 0..30 {
            s.push_str(&ui(i));
            // Lines of varied size, some longer than a block, some with two markers.
            let big = "x".repeat((i * 7919) % (3 * BLOCK));
            s.push_str(&format!("{{\"type\":\"text\",\"content\":\"{big}\"}}\n"));
            if i % 5 == 0 {
                s.push_str(
                    "{\"type\":\"user_input\",\"content\":\"\\\"type\\\":\\\"user_input\\\"\"}\n",
                );
            }
        }
        for turns in [0, 1, 2, 9, 10, 11, 35, 100] {
            check(s.as_bytes(), turns);
        }
        check(b"", 10);
        check(b"{\"type\":\"text\"}\n", 10);
        check(b"{\"type\":\"user_input\"}", 1);
    }

    #[test]
    fn marker_split_across_blocks() {
        for shift in 0..MARKER.len() + 2 {
            let pad = "y".repeat(BLOCK - shift);
            let s = format!(
                "{{\"a\":\"{pad}\",\"type\":\"user_input\"}}\n{{\"t\":1}}\n{}\n",
                "z".repeat(BLOCK)
            );
            check(s.as_bytes(), 1);
            check(s.as_bytes(), 10);
        }
    }
}
