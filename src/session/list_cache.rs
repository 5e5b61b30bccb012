//! The listing cache `<project>/.list-cache`: the preview of each session (the first line
//! of its summary.txt) with the stat of the summary.txt it was read from, so that
//! `--list-sessions` stats a summary instead of opening and reading it.
//!
//! Why it can never show a wrong preview:
//! - an entry is used only when a fresh stat of that session's summary.txt gives the very
//!   inode, size, mtime and ctime recorded with it (a file rewritten in place by the shell
//!   version, which does not know the cache, or replaced by a rename, or removed, fails it);
//! - an entry is recorded only when that summary.txt had not changed for [`SETTLED_SECS`]
//!   (its ctime), so two writes within one tick of the file system's clock, the second after
//!   the cache read the first, cannot hide behind an unchanged stat;
//! - the sort key (events.jsonl's mtime) and the session list itself (the folder listing)
//!   are never cached: they are read fresh on every run.
//!
//! The file is only ever a shortcut: missing, unreadable, of another version or truncated,
//! it is ignored (a garbled line: that session's entry) and written anew (temp + rename, no
//! fsync: a crash leaves the old file, or at worst one that fails to parse). The name starts with a dot, so it can never
//! be a session name (docs/sessions.md) and the shell version's `*/` globs skip it.
use nix::sys::stat::FileStat;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::path::Path;

/// The cache's file name in a project folder.
pub const FILE: &str = ".list-cache";

/// First line of the file: the format's name and version.
const HEADER: &str = "bash-agent list-cache 1";

/// How long a summary.txt must have been left alone before its preview is recorded.
pub const SETTLED_SECS: i64 = 2;

/// What tells an unchanged summary.txt. `None` in a [`Cached`] stands for "no summary.txt".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub ino: u64,
    pub size: i64,
    pub mtime: (i64, i64),
    pub ctime: (i64, i64),
}

impl Stamp {
    pub fn of(st: &FileStat) -> Stamp {
        Stamp {
            ino: st.st_ino,
            size: st.st_size,
            mtime: (st.st_mtime, st.st_mtime_nsec),
            ctime: (st.st_ctime, st.st_ctime_nsec),
        }
    }

    /// Unchanged long enough (by the clock `now`) to be recorded.
    pub fn settled(&self, now: i64) -> bool {
        self.ctime.0 < now - SETTLED_SECS && self.mtime.0 < now - SETTLED_SECS
    }
}

/// One recorded preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cached<'a> {
    pub summary: Option<Stamp>,
    pub preview: &'a str,
}

/// Read the cache of a project folder; an empty text when it is missing or not UTF-8.
pub fn load(project_dir: &Path) -> String {
    std::fs::read(project_dir.join(FILE))
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default()
}

/// The lines of a cache file, each parsed only when a session asks for it.
///
/// The file is written in the order of the folder listing, which stays the same while no
/// session is added or removed: a listing then finds session `i`'s entry on line `i` and
/// compares one name, without building a map of them all. The header and the closing
/// count are checked at once (a file of another version or a truncated one gives no
/// lines); a line that fails to parse is a miss for that session only.
#[derive(Debug, Default)]
pub struct Lines<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    /// The lines of a cache file's text; none when the header is not this version's or
    /// the closing count does not match the lines.
    pub fn parse(text: &'a str) -> Lines<'a> {
        Self::split(text).unwrap_or_default()
    }

    fn split(text: &'a str) -> Option<Lines<'a>> {
        let body = text.strip_prefix(HEADER)?.strip_prefix('\n')?;
        let body = body.strip_suffix('\n')?;
        let (lines, end) = match body.rfind('\n') {
            Some(i) => (&body[..i], &body[i + 1..]),
            None => ("", body),
        };
        let count: usize = end.strip_prefix("end ")?.parse().ok()?;
        let mut v: Vec<&str> = Vec::with_capacity(count);
        if !lines.is_empty() {
            let mut at = 0;
            for i in memchr::memchr_iter(b'\n', lines.as_bytes()) {
                v.push(&lines[at..i]);
                at = i + 1;
            }
            v.push(&lines[at..]);
        }
        let lines = v;
        (lines.len() == count).then_some(Lines { lines })
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The session name line `j` is for (up to its first TAB).
    pub fn name(&self, j: usize) -> Option<&'a str> {
        let line = *self.lines.get(j)?;
        let t = memchr::memchr(b'\t', line.as_bytes())?;
        (t > 0).then(|| &line[..t])
    }

    /// Whether line `j` is for the session `name` (a comparison of bytes, no search).
    pub fn is_for(&self, j: usize, name: &str) -> bool {
        self.lines.get(j).is_some_and(|l| {
            l.len() > name.len() && l.as_bytes()[name.len()] == b'\t' && l.starts_with(name)
        })
    }

    /// Line `j` whole: `name TAB stamp TAB length TAB preview`. The preview's byte length
    /// must be the rest of the line exactly (a line cut short or joined fails).
    pub fn entry(&self, j: usize) -> Option<Cached<'a>> {
        let line = *self.lines.get(j)?;
        let t = memchr::memchr(b'\t', line.as_bytes())?;
        let b = line.as_bytes();
        let mut c = Digits(&b[t + 1..]);
        let summary = c.stamp()?;
        let len = usize::try_from(c.num(b'\t')?.1).ok()?;
        let start = b.len() - c.0.len();
        let preview = line.get(start..)?;
        (preview.len() == len).then_some(Cached { summary, preview })
    }

    /// Line numbers by session name (the first line of a name wins): for a listing whose
    /// sessions are no longer in the recorded order.
    pub fn index(&self) -> Map<'a> {
        let mut map = Map::with_capacity_and_hasher(self.lines.len(), Default::default());
        for j in 0..self.lines.len() {
            if let Some(n) = self.name(j) {
                map.entry(n).or_insert(j);
            }
        }
        map
    }
}

/// Line numbers of a cache by session name.
pub type Map<'a> = HashMap<&'a str, usize, BuildHasherDefault<NameHasher>>;

/// FNV-1a over the name: the names are short.
#[derive(Default)]
pub struct NameHasher(u64);

impl std::hash::Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Decimal numbers, each ended by a given byte.
struct Digits<'a>(&'a [u8]);

impl Digits<'_> {
    /// `-` (no summary.txt) or `ino size mtime.ns ctime.ns`, then a TAB.
    fn stamp(&mut self) -> Option<Option<Stamp>> {
        if let Some(rest) = self.0.strip_prefix(b"-\t") {
            self.0 = rest;
            return Some(None);
        }
        let ino = match self.num(b' ')? {
            (false, v) => v,
            (true, _) => return None,
        };
        let size = self.int(b' ')?;
        let mtime = (self.int(b'.')?, self.int(b' ')?);
        let ctime = (self.int(b'.')?, self.int(b'\t')?);
        Some(Some(Stamp {
            ino,
            size,
            mtime,
            ctime,
        }))
    }

    fn int(&mut self, end: u8) -> Option<i64> {
        let (neg, v) = self.num(end)?;
        let v = i64::try_from(v).ok()?;
        Some(if neg { -v } else { v })
    }

    /// (negative, magnitude)
    fn num(&mut self, end: u8) -> Option<(bool, u64)> {
        let b = self.0;
        let (neg, mut i) = match b.first() {
            Some(b'-') => (true, 1),
            _ => (false, 0),
        };
        let start = i;
        let mut v: u64 = 0;
        while let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
            v = v.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
            i += 1;
        }
        if i == start {
            return None;
        }
        if b.get(i) != Some(&end) {
            return None;
        }
        self.0 = &b[i + 1..];
        Some((neg, v))
    }
}

/// Names a line can hold unambiguously (every valid session name is one).
pub fn cacheable_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['\t', '\n'])
}

/// The text of a cache holding `entries` (name, summary stamp, preview).
pub fn render<'a>(entries: impl Iterator<Item = (&'a str, Option<Stamp>, &'a str)>) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(64 * 1024);
    s.push_str(HEADER);
    s.push('\n');
    let mut n = 0usize;
    for (name, stamp, preview) in entries {
        if !cacheable_name(name) || preview.contains('\n') {
            continue;
        }
        n += 1;
        s.push_str(name);
        s.push('\t');
        match stamp {
            None => s.push('-'),
            Some(t) => {
                let _ = write!(
                    s,
                    "{} {} {}.{} {}.{}",
                    t.ino, t.size, t.mtime.0, t.mtime.1, t.ctime.0, t.ctime.1
                );
            }
        }
        let _ = write!(s, "\t{}\t", preview.len());
        s.push_str(preview);
        s.push('\n');
    }
    let _ = writeln!(s, "end {n}");
    s
}

/// Replace the cache (temp + rename, owner-only like the session folders). Failures are
/// ignored: the cache is never required.
pub fn store(project_dir: &Path, text: &str) {
    let _ = crate::util::fsx::write_atomic_nosync(&project_dir.join(FILE), text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(i: u64) -> Stamp {
        Stamp {
            ino: i,
            size: 7,
            mtime: (1_700_000_000, 5),
            ctime: (1_700_000_001, 999_999_999),
        }
    }

    #[test]
    fn round_trip() {
        let rows = [
            ("a", Some(stamp(1)), "first\tline with a tab"),
            ("b", None, ""),
            ("sub_c", Some(stamp(3)), "é…"),
        ];
        let text = render(rows.iter().map(|(n, s, p)| (*n, *s, *p)));
        let lines = Lines::parse(&text);
        assert_eq!(lines.len(), 3);
        for (j, (n, s, p)) in rows.into_iter().enumerate() {
            assert_eq!(lines.name(j), Some(n));
            assert_eq!(
                lines.entry(j),
                Some(Cached {
                    summary: s,
                    preview: p
                })
            );
            assert_eq!(lines.index().get(n), Some(&j));
        }
        assert!(Lines::parse(&render(std::iter::empty())).is_empty());
        assert_eq!(render(std::iter::empty()), format!("{HEADER}\nend 0\n"));
    }

    #[test]
    fn damaged_files_give_nothing() {
        let text = render([("a", Some(stamp(1)), "x"), ("b", None, "y")].into_iter());
        let cut = &text[..text.len() - "end 2\n".len()];
        let cases = [
            String::new(),
            "garbage".into(),
            text.replace("list-cache 1", "list-cache 9"),
            cut.to_string(),
            text.replace("end 2", "end 3"),
            text[..text.len() - 1].to_string(),
        ];
        for (i, c) in cases.iter().enumerate() {
            assert!(Lines::parse(c).is_empty(), "case {i}: {c:?}");
        }
    }

    #[test]
    fn a_damaged_line_is_a_miss_for_its_session_only() {
        let text = render([("a", Some(stamp(1)), "x"), ("b", None, "y")].into_iter());
        for bad in [
            text.replace("\t1\tx\n", "\n"),
            text.replace("\t1\tx\n", "\t2\tx\n"),
            text.replace("\t1\tx\n", "\t0\tx\n"),
            text.replace(" 7 ", " seven "),
            text.replace(" 7 ", " -7 ").replace("\t1 ", "\t-1 "),
            text.replace("a\t1 ", "a\t1"),
        ] {
            let lines = Lines::parse(&bad);
            assert_eq!(lines.len(), 2, "{bad:?}");
            assert_eq!(lines.entry(0), None, "{bad:?}");
            assert_eq!(
                lines.entry(1),
                Some(Cached {
                    summary: None,
                    preview: "y"
                })
            );
        }
        // Two lines of one name: the first is the one looked up.
        let twice = text.replace("b\t-", "a\t-");
        assert_eq!(Lines::parse(&twice).index().get("a"), Some(&0));
    }

    #[test]
    fn names_a_line_cannot_hold_are_left_out() {
        let text = render([("a\tb", None, "x"), ("c", None, "y\nz"), ("d", None, "w")].into_iter());
        let lines = Lines::parse(&text);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines.name(0), Some("d"));
    }
}
