//! An in-process unified diff (Myers, 3 lines of context), coloured like
//! `diff -u --color=always --label a/<p> --label b/<p>`.

const BOLD: &str = "\x1b[1m";
const CYAN: &str = "\x1b[36m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const RESET: &str = "\x1b[0m";
const CONTEXT: usize = 3;
/// Above this edit distance the middle is shown as one delete + insert block.
const MAX_D: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Equal(usize, usize),
    Delete(usize),
    Insert(usize),
}

/// A rendered diff and its `+`/`-` line counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    pub text: String,
    pub added: usize,
    pub removed: usize,
}

/// Split into lines that keep their `\n` (a last line without one stays as is).
fn lines(b: &[u8]) -> Vec<&[u8]> {
    b.split_inclusive(|&c| c == b'\n').collect()
}

fn myers(a: &[&[u8]], b: &[&[u8]]) -> Option<Vec<Op>> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let max = (n + m) as usize;
    let off = max as isize + 1;
    let mut v = vec![0isize; 2 * max + 3];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let mut found = None;
    for d in 0..=max as isize {
        if d as usize > MAX_D {
            return None;
        }
        trace.push(v[(off - d) as usize..=(off + d) as usize].to_vec());
        let mut k = -d;
        while k <= d {
            let i = (off + k) as usize;
            let mut x = if k == -d || (k != d && v[i - 1] < v[i + 1]) {
                v[i + 1]
            } else {
                v[i - 1] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[i] = x;
            if x >= n && y >= m {
                found = Some(d);
                break;
            }
            k += 2;
        }
        if found.is_some() {
            break;
        }
    }
    let dmax = found?;
    let mut ops = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..=dmax).rev() {
        let snap = &trace[d as usize];
        // snap holds k in [-d, d] of the state before step d (only ±(d-1) are meaningful).
        let at = |k: isize| snap[(k + d) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let px = at(prev_k);
        let py = px - prev_k;
        while x > px && y > py {
            ops.push(Op::Equal(x as usize - 1, y as usize - 1));
            x -= 1;
            y -= 1;
        }
        if x == px {
            ops.push(Op::Insert(y as usize - 1));
        } else {
            ops.push(Op::Delete(x as usize - 1));
        }
        x = px;
        y = py;
    }
    while x > 0 && y > 0 {
        ops.push(Op::Equal(x as usize - 1, y as usize - 1));
        x -= 1;
        y -= 1;
    }
    ops.reverse();
    Some(ops)
}

fn edit_script(a: &[&[u8]], b: &[&[u8]]) -> Vec<Op> {
    let pre = a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut ops: Vec<Op> = (0..pre).map(|i| Op::Equal(i, i)).collect();
    match myers(am, bm) {
        Some(mid) => ops.extend(mid.into_iter().map(|o| match o {
            Op::Equal(i, j) => Op::Equal(i + pre, j + pre),
            Op::Delete(i) => Op::Delete(i + pre),
            Op::Insert(j) => Op::Insert(j + pre),
        })),
        None => {
            ops.extend((0..am.len()).map(|i| Op::Delete(i + pre)));
            ops.extend((0..bm.len()).map(|j| Op::Insert(j + pre)));
        }
    }
    ops.extend((0..suf).map(|i| Op::Equal(a.len() - suf + i, b.len() - suf + i)));
    ops
}

fn range(start: usize, count: usize) -> String {
    match count {
        0 => format!("{},0", start.saturating_sub(1)),
        1 => format!("{start}"),
        _ => format!("{start},{count}"),
    }
}

fn push_line(out: &mut String, color: Option<&str>, sign: char, line: &[u8]) {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let text = String::from_utf8_lossy(body);
    match color {
        Some(c) => out.push_str(&format!("{c}{sign}{text}{RESET}\n")),
        None => out.push_str(&format!("{sign}{text}\n")),
    }
    if !line.ends_with(b"\n") {
        out.push_str("\\ No newline at end of file\n");
    }
}

/// Unified diff of `old` → `new` labelled `a/<label>` / `b/<label>` (empty when equal).
pub fn unified(old: &[u8], new: &[u8], label: &str, color: bool) -> Diff {
    let (a, b) = (lines(old), lines(new));
    let ops = edit_script(&a, &b);
    let changes: Vec<usize> = (0..ops.len())
        .filter(|&i| !matches!(ops[i], Op::Equal(..)))
        .collect();
    let mut d = Diff {
        text: String::new(),
        added: 0,
        removed: 0,
    };
    if changes.is_empty() {
        return d;
    }
    let label = label.trim_start_matches('/');
    let (bold, cyan, red, green) = if color {
        (Some(BOLD), Some(CYAN), Some(RED), Some(GREEN))
    } else {
        (None, None, None, None)
    };
    let header = |s: String| match bold {
        Some(c) => format!("{c}{s}{RESET}\n"),
        None => format!("{s}\n"),
    };
    d.text.push_str(&header(format!("--- a/{label}")));
    d.text.push_str(&header(format!("+++ b/{label}")));
    // Group changes into hunks: gaps of more than 2*CONTEXT equal lines split them.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for &c in &changes {
        match groups.last_mut() {
            Some(g) if c - g.1 <= 2 * CONTEXT + 1 => g.1 = c,
            _ => groups.push((c, c)),
        }
    }
    for (first, last) in groups {
        let lo = first.saturating_sub(CONTEXT);
        let hi = (last + CONTEXT + 1).min(ops.len());
        let hunk = &ops[lo..hi];
        // Positions of the hunk in both files.
        let (mut a_start, mut b_start) = (None, None);
        let (mut ac, mut bc) = (0, 0);
        for op in hunk {
            match *op {
                Op::Equal(i, j) => {
                    a_start.get_or_insert(i);
                    b_start.get_or_insert(j);
                    ac += 1;
                    bc += 1;
                }
                Op::Delete(i) => {
                    a_start.get_or_insert(i);
                    ac += 1;
                }
                Op::Insert(j) => {
                    b_start.get_or_insert(j);
                    bc += 1;
                }
            }
        }
        let a_pos = a_start.unwrap_or_else(|| old_pos(&ops, lo)) + 1;
        let b_pos = b_start.unwrap_or_else(|| new_pos(&ops, lo)) + 1;
        let hdr = format!("@@ -{} +{} @@", range(a_pos, ac), range(b_pos, bc));
        match cyan {
            Some(c) => d.text.push_str(&format!("{c}{hdr}{RESET}\n")),
            None => d.text.push_str(&format!("{hdr}\n")),
        }
        for op in hunk {
            match *op {
                Op::Equal(i, _) => push_line(&mut d.text, None, ' ', a[i]),
                Op::Delete(i) => {
                    d.removed += 1;
                    push_line(&mut d.text, red, '-', a[i]);
                }
                Op::Insert(j) => {
                    d.added += 1;
                    push_line(&mut d.text, green, '+', b[j]);
                }
            }
        }
    }
    d
}

/// Number of old-file lines before op index `idx`.
fn old_pos(ops: &[Op], idx: usize) -> usize {
    ops[..idx]
        .iter()
        .filter(|o| !matches!(o, Op::Insert(_)))
        .count()
}

/// Number of new-file lines before op index `idx`.
fn new_pos(ops: &[Op], idx: usize) -> usize {
    ops[..idx]
        .iter()
        .filter(|o| !matches!(o, Op::Delete(_)))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_fixture_colours() {
        let d = unified(
            b"alpha\nbeta\ngamma\n",
            b"alpha\nBETA\ngamma\n",
            "notes.txt",
            true,
        );
        assert_eq!(
            d.text,
            "\u{1b}[1m--- a/notes.txt\u{1b}[0m\n\u{1b}[1m+++ b/notes.txt\u{1b}[0m\n\u{1b}[36m@@ -1,3 +1,3 @@\u{1b}[0m\n alpha\n\u{1b}[31m-beta\u{1b}[0m\n\u{1b}[32m+BETA\u{1b}[0m\n gamma\n"
        );
        assert_eq!((d.added, d.removed), (1, 1));
    }

    #[test]
    fn plain_hunks_like_gnu_diff() {
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new: String = (1..=20)
            .map(|i| match i {
                2 => "two\n".to_string(),
                18 => "eighteen\n".to_string(),
                _ => format!("{i}\n"),
            })
            .collect();
        let d = unified(old.as_bytes(), new.as_bytes(), "/abs/f", false);
        let expect = "--- a/abs/f\n+++ b/abs/f\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n";
        assert_eq!(d.text, expect);
    }

    #[test]
    fn empty_sides_and_missing_newline() {
        let d = unified(b"", b"a\nb\n", "f", false);
        assert_eq!(d.text, "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n");
        let d = unified(b"a\nb", b"a\nb\n", "f", false);
        assert_eq!(
            d.text,
            "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
        );
        assert_eq!(unified(b"same\n", b"same\n", "f", false).text, "");
    }

    #[test]
    fn interior_common_lines_are_context() {
        let d = unified(b"a\nb\nc\nd\ne\n", b"A\nb\nc\nd\nE\n", "f", false);
        assert_eq!(
            d.text,
            "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n-a\n+A\n b\n c\n d\n-e\n+E\n"
        );
        assert_eq!((d.added, d.removed), (2, 2));
    }
}
