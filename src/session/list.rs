//! `--list-sessions` (docs/sessions.md; sorted by last activity, newest first) and
//! `--list-sessions --json`.
pub use crate::session::list_scan::entries;
use crate::util::jsonl::Obj;
use std::fs;
use std::path::{Path, PathBuf};

/// One row of the list.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    pub path: PathBuf,
    pub last_activity: i64,
    pub sort_key: i128,
    pub preview: String,
}

/// First non-blank line of summary.txt, cut to 57 chars + `...` when over 60 chars.
/// Reads only as far as that line decides the preview (a summary can be long).
pub fn preview(dir: &Path) -> String {
    let line = fs::File::open(dir.join("summary.txt"))
        .map(first_line)
        .unwrap_or_default();
    cut_preview(line)
}

pub(crate) fn cut_preview(line: String) -> String {
    if line.chars().count() > 60 {
        let cut: String = line.chars().take(57).collect();
        format!("{cut}...")
    } else {
        line
    }
}

/// The first non-blank line of a file (as `str::lines` splits it, lossy UTF-8), read in
/// small chunks: an unfinished line is enough once it has more characters than a preview
/// shows (one more than the cut, and one for a `\r` that may end it).
pub(crate) fn first_line(mut f: fs::File) -> String {
    use std::io::Read;
    const CHUNK: usize = 4096;
    const ENOUGH: usize = 62;
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = [0u8; CHUNK];
    loop {
        let n = match f.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => 0,
        };
        let eof = n == 0;
        buf.extend_from_slice(&chunk[..n]);
        // Blank complete lines never matter again: drop them.
        while let Some(i) = buf.iter().position(|&b| b == b'\n') {
            let text = String::from_utf8_lossy(&buf[..i]);
            let text = text.strip_suffix('\r').unwrap_or(&text);
            if !text.trim().is_empty() {
                return text.to_string();
            }
            buf.drain(..=i);
        }
        if eof {
            let text = String::from_utf8_lossy(&buf);
            return if text.trim().is_empty() {
                String::new()
            } else {
                text.into_owned()
            };
        }
        // Leave out a character cut at the chunk's end.
        let whole = match std::str::from_utf8(&buf) {
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            _ => buf.len(),
        };
        let text = String::from_utf8_lossy(&buf[..whole]);
        if text.chars().count() >= ENOUGH && !text.trim().is_empty() {
            return text.chars().take(ENOUGH).collect();
        }
    }
}

/// The exact text output.
pub fn render_text(project_dir: &Path) -> String {
    crate::session::list_scan::with_rows(project_dir, render_rows)
        .unwrap_or_else(|| "No sessions found.\n".into())
}

fn render_rows(list: &[crate::session::list_scan::Row<'_>]) -> String {
    let mut s =
        String::with_capacity(64 + list.iter().map(|e| 60 + e.preview.len()).sum::<usize>());
    push_row(&mut s, "NAME", "MODIFIED", "PREVIEW");
    if list.is_empty() {
        s.push_str("No sessions found.\n");
    }
    // Rows of the same second (sessions made together) share one conversion.
    let (mut when, mut secs) = (String::with_capacity(16), None);
    for e in list {
        if secs != Some(e.last_activity) {
            when.clear();
            crate::util::time::push_local_minute(&mut when, e.last_activity);
            secs = Some(e.last_activity);
        }
        push_row(&mut s, e.name, &when, &e.preview);
    }
    s
}

/// `format!("{:<40} {:<16} {}\n", name, when, preview)` without the formatting machinery
/// (a listing of 10,000 sessions spent most of its own time padding one character at a time).
fn push_row(s: &mut String, name: &str, when: &str, preview: &str) {
    fn padded(s: &mut String, text: &str, width: usize) {
        const SPACES: &str = "                                        ";
        s.push_str(text);
        let n = if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        };
        let mut left = width.saturating_sub(n);
        while left > 0 {
            let k = left.min(SPACES.len());
            s.push_str(&SPACES[..k]);
            left -= k;
        }
    }
    padded(s, name, 40);
    s.push(' ');
    padded(s, when, 16);
    s.push(' ');
    s.push_str(preview);
    s.push('\n');
}

/// One JSON array for scripts.
pub fn render_json(project_dir: &Path) -> String {
    let list = entries(project_dir).unwrap_or_default();
    let mut s = String::from("[");
    for (i, e) in list.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let stats = crate::session::stats::Stats::load(&e.path.join("stats.json"));
        let running = crate::session::lock::holder(&e.path).is_some();
        s.push_str(
            &Obj::new()
                .str("name", &e.name)
                .str("path", &e.path.to_string_lossy())
                .str(
                    "last_activity",
                    &crate::util::time::rfc3339_local(e.last_activity),
                )
                .num("turns", stats.current_turn_count as i64)
                .str("preview", &e.preview)
                .bool("running", running)
                .finish(),
        );
    }
    s.push_str("]\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn rows_are_the_formatted_ones() {
        for (name, when, preview) in [
            ("a", "2026-01-01 00:00", "p"),
            ("", "", ""),
            ("é".repeat(39).as_str(), "x", "y"),
            (
                "n".repeat(41).as_str(),
                "2026-01-01 00:00 extra",
                "long preview",
            ),
        ] {
            let mut s = String::new();
            push_row(&mut s, name, when, preview);
            assert_eq!(s, format!("{name:<40} {when:<16} {preview}\n"));
        }
    }

    #[test]
    fn text_format() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(render_text(&d.path().join("nope")), "No sessions found.\n");
        assert_eq!(
            render_text(d.path()),
            "NAME                                     MODIFIED         PREVIEW\nNo sessions found.\n"
        );
        fs::create_dir(d.path().join("s1")).unwrap();
        fs::write(
            d.path().join("s1/summary.txt"),
            "\n".to_string() + &"x".repeat(70) + "\n",
        )
        .unwrap();
        let t = render_text(d.path());
        let row = t.lines().nth(1).unwrap();
        assert!(row.starts_with(&format!("{:<40} ", "s1")));
        assert!(row.ends_with(&format!("{}...", "x".repeat(57))));
        fs::create_dir(d.path().join("s2")).unwrap();
        let t = render_text(d.path());
        assert!(t.lines().any(|l| l.starts_with("s2") && l.ends_with(' ')));
    }

    /// The bounded read gives the preview a whole read gives.
    #[test]
    fn preview_reads_only_what_it_needs() {
        let whole = |b: &[u8]| {
            let text = String::from_utf8_lossy(b).into_owned();
            let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            if line.chars().count() > 60 {
                format!("{}...", line.chars().take(57).collect::<String>())
            } else {
                line.to_string()
            }
        };
        let d = tempfile::tempdir().unwrap();
        let mut cases: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"   \n\t\n".to_vec(),
            b"short".to_vec(),
            b"\r\nsixty\r\n".to_vec(),
            format!("{}\r\n", "y".repeat(60)).into_bytes(),
            format!("{}\r\n", "y".repeat(61)).into_bytes(),
            format!("{}\n{}", " \n".repeat(5000), "z".repeat(9000)).into_bytes(),
        ];
        // A multi-byte character across every chunk boundary near the cut.
        for pad in 4090..4100 {
            let mut b = vec![b'\n'; pad];
            b.extend("é".repeat(70).as_bytes());
            cases.push(b);
        }
        cases.push(b"\xff\xfe bad\n".to_vec());
        for (i, c) in cases.iter().enumerate() {
            let dir = d.path().join(format!("s{i}"));
            fs::create_dir(&dir).unwrap();
            fs::write(dir.join("summary.txt"), c).unwrap();
            assert_eq!(preview(&dir), whole(c), "case {i}");
        }
    }
}
