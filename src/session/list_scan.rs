//! The scan behind `--list-sessions`: every session folder of a project with its last
//! activity and preview. Per session it costs two stats (events.jsonl, else the folder;
//! and summary.txt) when the listing cache ([`crate::session::list_cache`]) holds the
//! preview of that very summary.txt, else a stat and the first bytes of the summary.
//!
//! A listing of 10,000 sessions is mostly those 20,000 stats, so the rest is kept out of
//! their way: the rows borrow their names from the folder listing and their previews from
//! the cache's text (no copy per row), and the cache is matched line by line in folder
//! order, parsed by the two scanning threads as they go (no map of every entry first).
use super::list::{cut_preview, first_line, preview, Entry};
use super::list_cache::{self, Cached, Lines, Stamp};
use super::store::activity;
use std::borrow::Cow;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One session as a scan finds it.
#[derive(Debug)]
pub struct Row<'a> {
    pub name: &'a str,
    pub last_activity: i64,
    pub sort_key: i128,
    pub preview: Cow<'a, str>,
}

/// Every session folder of a project, newest activity first (ties by name).
pub fn entries(project_dir: &Path) -> Option<Vec<Entry>> {
    with_rows(project_dir, |rows| {
        rows.iter()
            .map(|r| Entry {
                name: r.name.to_string(),
                path: join(project_dir, r.name),
                last_activity: r.last_activity,
                sort_key: r.sort_key,
                preview: r.preview.to_string(),
            })
            .collect()
    })
}

/// The rows of every session folder of a project, newest activity first (ties by name),
/// handed to `f`; `None` when the folder cannot be listed.
///
/// Lookups are relative to the project folder's descriptor (no path resolution from `/`
/// per file), on two threads when the project has many sessions. The cache is rewritten
/// when what it would hold changed, or when its lines are no longer in folder order.
pub fn with_rows<R>(project_dir: &Path, f: impl FnOnce(&[Row<'_>]) -> R) -> Option<R> {
    let rd = fs::read_dir(project_dir).ok()?;
    // (name, whether a cache line may hold it: a name that is not UTF-8 is shown lossily,
    // and two such names could look the same).
    let names: Vec<(String, bool)> = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .map(|e| match e.file_name().into_string() {
            Ok(n) => (n, true),
            Err(os) => (os.to_string_lossy().into_owned(), false),
        })
        .filter(|(n, _)| !n.starts_with('.'))
        .collect();
    let dir = fs::File::open(project_dir).ok();
    let cache_text = match dir {
        Some(_) => list_cache::load(project_dir),
        None => String::new(),
    };
    let scan = Scan {
        project_dir,
        dir: dir.as_ref(),
        lines: Lines::parse(&cache_text),
        index: OnceLock::new(),
        now: crate::util::time::now_secs(),
    };
    let mut out: Vec<(Row, Kept)> = if names.len() < 256 {
        scan.rows(&names, 0)
    } else {
        let (a, b) = names.split_at(names.len() / 2);
        std::thread::scope(|s| {
            let other = s.spawn(|| scan.rows(b, a.len()));
            let mut first = scan.rows(a, 0);
            match other.join() {
                Ok(rest) => first.extend(rest),
                Err(_) => first.extend(scan.rows(b, a.len())),
            }
            first
        })
    };
    // Rewrite the cache when it would change: a new or changed preview, a recorded session
    // that is gone (or changed and not settled yet), or lines out of folder order.
    let hits = out
        .iter()
        .filter(|(_, k)| matches!(k, Kept::Hit { .. }))
        .count();
    let stale = out.iter().any(|(_, k)| match k {
        Kept::Hit { in_place, .. } => !in_place,
        Kept::Fresh(_) => true,
        Kept::Unsure => false,
    });
    if dir.is_some() && (stale || hits != scan.lines.len()) {
        let text = list_cache::render(out.iter().filter_map(|(r, k)| match k {
            Kept::Hit { summary, .. } | Kept::Fresh(summary) => {
                Some((r.name, *summary, r.preview.as_ref()))
            }
            Kept::Unsure => None,
        }));
        list_cache::store(project_dir, &text);
    }
    // Newest activity first, ties by name (names are unique: the order is total).
    out.sort_unstable_by(|(a, _), (b, _)| {
        b.sort_key.cmp(&a.sort_key).then_with(|| a.name.cmp(b.name))
    });
    let rows: Vec<Row> = out.into_iter().map(|(r, _)| r).collect();
    Some(f(&rows))
}

/// `dir.join(name)` for a name read from the folder (one component: no `/`), built in one
/// allocation.
fn join(dir: &Path, name: &str) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    let d = dir.as_os_str();
    if name.contains('/') || d.is_empty() {
        return dir.join(name);
    }
    let mut s = std::ffi::OsString::with_capacity(d.len() + 1 + name.len());
    s.push(d);
    if !d.as_bytes().ends_with(b"/") {
        s.push("/");
    }
    s.push(name);
    PathBuf::from(s)
}

/// What the cache keeps of one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kept {
    /// The recorded preview was valid and used; `in_place`: found on the line of the
    /// row's own place in the folder order.
    Hit {
        summary: Option<Stamp>,
        in_place: bool,
    },
    /// Read now from a summary.txt with this stamp (`None`: no summary.txt), settled.
    Fresh(Option<Stamp>),
    /// Not recorded (a summary.txt changed a moment ago, or one that cannot be stat'ed).
    Unsure,
}

/// What every row of one scan shares.
struct Scan<'a> {
    project_dir: &'a Path,
    dir: Option<&'a fs::File>,
    lines: Lines<'a>,
    /// Line numbers by name, built only when a session is not on its own line.
    index: OnceLock<list_cache::Map<'a>>,
    now: i64,
}

impl<'a> Scan<'a> {
    /// The rows of `names`, the first of which is session number `first` of the folder.
    fn rows<'n>(&self, names: &'n [(String, bool)], first: usize) -> Vec<(Row<'n>, Kept)>
    where
        'a: 'n,
    {
        // One path buffer for the relative lookups of all rows.
        let mut buf = String::with_capacity(256);
        let mut line = first;
        names
            .iter()
            .map(|(name, cacheable)| {
                let known = if *cacheable {
                    self.known(name, &mut line)
                } else {
                    None
                };
                let (row, kept) = self.row(name, known, &mut buf);
                (row, if *cacheable { kept } else { Kept::Unsure })
            })
            .collect()
    }

    /// The cache's entry for `name` and whether it was on line `*line`, the one its place
    /// in the folder order gives; `*line` moves past the line used.
    fn known(&self, name: &str, line: &mut usize) -> Option<(Cached<'a>, bool)> {
        if !name.is_empty() && !name.contains('\t') && self.lines.is_for(*line, name) {
            let j = *line;
            *line += 1;
            return self.lines.entry(j).map(|c| (c, true));
        }
        // Not on its line (sessions were added or removed since the cache was written):
        // look the name up, and go on from the line found; a session the cache does not
        // hold leaves the cursor where it is.
        if self.lines.is_empty() {
            return None;
        }
        let j = *self.index.get_or_init(|| self.lines.index()).get(name)?;
        *line = j + 1;
        self.lines.entry(j).map(|c| (c, false))
    }

    fn row<'n>(
        &self,
        name: &'n str,
        known: Option<(Cached<'a>, bool)>,
        buf: &mut String,
    ) -> (Row<'n>, Kept)
    where
        'a: 'n,
    {
        let (last_activity, sort_key, preview, kept) = match self.dir {
            Some(d) => {
                let (a, k) = at::activity(d, name, buf)
                    .unwrap_or_else(|| activity(&join(self.project_dir, name)));
                let (p, kept) = self.summary_preview(d, name, known, buf);
                (a, k, p, kept)
            }
            None => {
                let (a, k) = activity(&join(self.project_dir, name));
                let p = preview(&join(self.project_dir, name));
                (a, k, Cow::Owned(p), Kept::Unsure)
            }
        };
        let row = Row {
            name,
            last_activity,
            sort_key,
            preview,
        };
        (row, kept)
    }

    /// The preview of `<dir>/<name>/summary.txt`: the cached one when the file's stat is
    /// the one recorded with it, else read (nothing to read when it is empty or missing).
    fn summary_preview<'n>(
        &self,
        d: &fs::File,
        name: &str,
        known: Option<(Cached<'a>, bool)>,
        buf: &mut String,
    ) -> (Cow<'n, str>, Kept)
    where
        'a: 'n,
    {
        use nix::errno::Errno;
        let read = || cut_preview(at::summary(d, name).map(first_line).unwrap_or_default());
        match at::stat(d, name, "summary.txt", buf) {
            Ok(st) if at::is_regular(&st) => {
                let stamp = Stamp::of(&st);
                if let Some((c, in_place)) = known.filter(|(c, _)| c.summary == Some(stamp)) {
                    let kept = Kept::Hit {
                        summary: Some(stamp),
                        in_place,
                    };
                    return (Cow::Borrowed(c.preview), kept);
                }
                let p = if stamp.size == 0 {
                    String::new()
                } else {
                    read()
                };
                let kept = if stamp.settled(self.now) {
                    Kept::Fresh(Some(stamp))
                } else {
                    Kept::Unsure
                };
                (Cow::Owned(p), kept)
            }
            // Not a file (a folder, a FIFO): no preview, and nothing opened.
            Ok(_) => (Cow::Borrowed(""), Kept::Unsure),
            Err(Errno::ENOENT) | Err(Errno::ENOTDIR) => match known {
                Some((c, in_place)) if c.summary.is_none() => {
                    let kept = Kept::Hit {
                        summary: None,
                        in_place,
                    };
                    (Cow::Borrowed(""), kept)
                }
                _ => (Cow::Borrowed(""), Kept::Fresh(None)),
            },
            Err(_) => (Cow::Owned(read()), Kept::Unsure),
        }
    }
}

/// Lookups relative to the project folder's descriptor.
mod at {
    use nix::fcntl::{openat, AtFlags, OFlag};
    use nix::sys::stat::{fstatat, FileStat, Mode, SFlag};
    use std::fs::File;
    use std::os::fd::{AsRawFd, FromRawFd};

    /// Stat of `<dir>/<name>/<file>` (following links, as an open does), the path built
    /// in `buf`.
    pub fn stat(dir: &File, name: &str, file: &str, buf: &mut String) -> nix::Result<FileStat> {
        buf.clear();
        buf.push_str(name);
        if !file.is_empty() {
            buf.push('/');
            buf.push_str(file);
        }
        fstatat(Some(dir.as_raw_fd()), buf.as_str(), AtFlags::empty())
    }

    pub fn is_regular(st: &FileStat) -> bool {
        SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG
    }

    /// [`crate::session::store::activity`] for `<dir>/<name>`; `None` when neither
    /// events.jsonl nor the folder can be stat'ed this way.
    pub fn activity(dir: &File, name: &str, buf: &mut String) -> Option<(i64, i128)> {
        let st = match stat(dir, name, "events.jsonl", buf) {
            Ok(st) if is_regular(&st) => st,
            _ => stat(dir, name, "", buf).ok()?,
        };
        Some((
            st.st_mtime,
            st.st_mtime as i128 * 1_000_000_000 + st.st_mtime_nsec as i128,
        ))
    }

    /// `<dir>/<name>/summary.txt`, opened for reading.
    pub fn summary(dir: &File, name: &str) -> Option<File> {
        let fd = openat(
            Some(dir.as_raw_fd()),
            format!("{name}/summary.txt").as_str(),
            OFlag::O_RDONLY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .ok()?;
        // SAFETY: `openat` just returned this descriptor and nothing else owns it.
        Some(unsafe { File::from_raw_fd(fd) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_is_path_join() {
        for d in ["/a/b", "/a/b/", "/", "rel", "rel/"] {
            for n in ["s1", "sub_x", "é"] {
                assert_eq!(join(Path::new(d), n), Path::new(d).join(n), "{d} {n}");
            }
        }
    }
}
