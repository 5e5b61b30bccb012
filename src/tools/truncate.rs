//! Result truncation (docs/tools-and-policy.md, measured in bytes) and the Read/Write file
//! summary line.

/// The part of the marker that does not depend on the length (used for the head budget).
const MARKER_FIXED: &str = "\n\n[... truncated: showing first/last portions of  bytes ...]\n\n";

/// The largest index `<= i` that is a char boundary of `s`.
pub fn floor_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest index `>= i` that is a char boundary of `s`.
pub fn ceil_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// `tool_format_result`: unchanged when `text.len() <= max`, else head + marker + tail.
pub fn truncate(text: &str, max: usize) -> String {
    truncate_reported(text, text.len(), max)
}

/// Like [`truncate`], but the marker reports `total` bytes (the collector may already have
/// dropped the middle of a huge output; `text` is then its head followed by its tail).
pub fn truncate_reported(text: &str, total: usize, max: usize) -> String {
    if total <= max && text.len() <= max {
        return text.to_string();
    }
    let max = max.max(1);
    let marker =
        format!("\n\n[... truncated: showing first/last portions of {total} bytes ...]\n\n");
    // The tail: the last 5 lines, but never more than a quarter of the budget (a single
    // huge last line must not push the head out).
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut start = body.len();
    for _ in 0..5 {
        match body[..start].rfind('\n') {
            Some(p) => start = p,
            None => {
                start = 0;
                break;
            }
        }
    }
    let mut tail_start = if start == 0 { 0 } else { start + 1 };
    let tail_cap = max / 4;
    if text.len() - tail_start > tail_cap {
        tail_start = ceil_boundary(text, text.len() - tail_cap);
    }
    let tail = &text[tail_start..];
    let overhead = MARKER_FIXED.len() + 20 + tail.len();
    let head_len = if max > overhead {
        max - overhead
    } else {
        max / 2
    };
    let head_end = floor_boundary(text, head_len.min(tail_start));
    let mut out = String::with_capacity(head_end + marker.len() + tail.len());
    out.push_str(&text[..head_end]);
    out.push_str(&marker);
    out.push_str(tail);
    out
}

/// Lines as awk's NR counts them: a final line without `\n` counts.
pub fn count_lines(bytes: &[u8]) -> usize {
    let n = bytes.iter().filter(|&&b| b == b'\n').count();
    if bytes.last().is_some_and(|&b| b != b'\n') {
        n + 1
    } else {
        n
    }
}

/// `<Tool>(<path>) [<L> lines, <B> bytes]` plus `, offset=…, limit=…` when either was given.
pub fn file_summary(
    tool: &str,
    path: &str,
    lines: usize,
    bytes: u64,
    offset: Option<usize>,
    limit: Option<usize>,
) -> String {
    let extra = if offset.is_some() || limit.is_some() {
        format!(
            ", offset={}, limit={}",
            offset.unwrap_or(1),
            limit.unwrap_or(lines)
        )
    } else {
        String::new()
    };
    format!("{tool}({path}) [{lines} lines, {bytes} bytes{extra}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_unchanged() {
        assert_eq!(truncate("abc\n", 10), "abc\n");
        assert_eq!(truncate("", 1), "");
    }

    #[test]
    fn head_and_last_five_lines() {
        let text: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
        let out = truncate(&text, 1000);
        assert!(out.len() <= 1000, "{}", out.len());
        assert!(out.starts_with("line 1\nline 2\n"));
        assert!(out.ends_with("line 4996\nline 4997\nline 4998\nline 4999\nline 5000\n"));
        assert!(!out.contains("line 4995\n"));
        let marker = format!(
            "[... truncated: showing first/last portions of {} bytes ...]",
            text.len()
        );
        assert!(out.contains(&marker));
    }

    #[test]
    fn never_splits_utf8() {
        let text = "é".repeat(100_000);
        for max in [7, 100, 1001, 5000] {
            let out = truncate(&text, max);
            assert!(out.contains("truncated"));
            // Building a String already guarantees validity; check the pieces are whole chars.
            assert!(out.chars().filter(|&c| c == 'é').count() > 0);
        }
    }

    #[test]
    fn huge_single_line_keeps_head() {
        let text = "x".repeat(1_000_000);
        let out = truncate(&text, 1000);
        assert!(out.len() <= 1000);
        assert!(out.starts_with("xxxx"));
        assert!(out.ends_with("xxx"));
    }

    #[test]
    fn summary_and_lines() {
        assert_eq!(count_lines(b"a\nb\nc"), 3);
        assert_eq!(count_lines(b"a\nb\n"), 2);
        assert_eq!(count_lines(b""), 0);
        assert_eq!(
            file_summary("Read", "n.txt", 3, 17, None, None),
            "Read(n.txt) [3 lines, 17 bytes]"
        );
        assert_eq!(
            file_summary("Read", "n.txt", 3, 17, Some(2), None),
            "Read(n.txt) [3 lines, 17 bytes, offset=2, limit=3]"
        );
    }
}
