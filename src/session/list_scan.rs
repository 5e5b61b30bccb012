//! The scan behind `--list-sessions`: every session folder of a project with its last
//! activity and preview. Per session it costs two stats (events.jsonl, else the folder;
//! and summary.txt) when the listing cache ([`crate::session::list_cache`]) holds the
//! preview of that very summary.txt, else a stat and the first bytes of the summary.
use super::list::{cut_preview, first_line, preview, Entry};
use super::list_cache::{self, Cached, Stamp};
use super::store::activity;
use std::fs;
use std::path::{Path, PathBuf};

/// Every session folder of a project, newest activity first (ties by name).
///
/// Lookups are relative to the project folder's descriptor (no path resolution from `/`
/// per file), on two threads when the project has many sessions. The cache is rewritten
/// when what it would hold changed.
pub fn entries(project_dir: &Path) -> Option<Vec<Entry>> {
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
    let cache = list_cache::parse(&cache_text);
    let scan = Scan {
        project_dir,
        dir: dir.as_ref(),
        cache: &cache,
        now: crate::util::time::now_secs(),
    };
    let out: Vec<(Entry, Kept)> = if names.len() < 256 {
        scan.rows(&names)
    } else {
        let (a, b) = names.split_at(names.len() / 2);
        std::thread::scope(|s| {
            let other = s.spawn(|| scan.rows(b));
            let mut first = scan.rows(a);
            match other.join() {
                Ok(rest) => first.extend(rest),
                Err(_) => first.extend(scan.rows(b)),
            }
            first
        })
    };
    // Rewrite the cache when it would change: a new or changed preview, or a recorded
    // session that is gone (or changed and not settled yet).
    let hits = out.iter().filter(|(_, k)| *k == Kept::Hit).count();
    let fresh = out.iter().any(|(_, k)| matches!(k, Kept::Fresh(_)));
    if dir.is_some() && (fresh || hits != cache.len()) {
        let text = list_cache::render(out.iter().filter_map(|(e, k)| {
            match k {
                Kept::Hit => cache
                    .get(e.name.as_str())
                    .map(|c| (e.name.as_str(), c.summary, c.preview)),
                Kept::Fresh(s) => Some((e.name.as_str(), *s, e.preview.as_str())),
                Kept::Unsure => None,
            }
        }));
        list_cache::store(project_dir, &text);
    }
    Some(sorted(out.into_iter().map(|(e, _)| e).collect()))
}

/// Newest activity first, ties by name (names are unique: the order is total). The
/// entries are moved once, after a sort of their keys.
fn sorted(list: Vec<Entry>) -> Vec<Entry> {
    let mut order: Vec<(std::cmp::Reverse<i128>, &str, usize)> = list
        .iter()
        .enumerate()
        .map(|(i, e)| (std::cmp::Reverse(e.sort_key), e.name.as_str(), i))
        .collect();
    order.sort_unstable();
    let order: Vec<usize> = order.into_iter().map(|(_, _, i)| i).collect();
    let mut slots: Vec<Option<Entry>> = list.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
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
    /// The recorded preview was valid and used.
    Hit,
    /// Read now from a summary.txt with this stamp (`None`: no summary.txt), settled.
    Fresh(Option<Stamp>),
    /// Not recorded (a summary.txt changed a moment ago, or one that cannot be stat'ed).
    Unsure,
}

/// What every row of one scan shares.
struct Scan<'a> {
    project_dir: &'a Path,
    dir: Option<&'a fs::File>,
    cache: &'a list_cache::Map<'a>,
    now: i64,
}

impl Scan<'_> {
    fn rows(&self, names: &[(String, bool)]) -> Vec<(Entry, Kept)> {
        // One path buffer for the relative lookups of all rows.
        let mut buf = String::with_capacity(256);
        names
            .iter()
            .map(|(name, cacheable)| self.row(name, *cacheable, &mut buf))
            .collect()
    }

    fn row(&self, name: &str, cacheable: bool, buf: &mut String) -> (Entry, Kept) {
        let path = join(self.project_dir, name);
        let (last_activity, sort_key, preview, kept) = match self.dir {
            Some(d) => {
                let (a, k) = at::activity(d, name, buf).unwrap_or_else(|| activity(&path));
                let known = self.cache.get(name).filter(|_| cacheable);
                let (p, kept) = self.summary_preview(d, name, known, buf);
                (a, k, p, if cacheable { kept } else { Kept::Unsure })
            }
            None => {
                let (a, k) = activity(&path);
                (a, k, preview(&path), Kept::Unsure)
            }
        };
        let e = Entry {
            name: name.to_string(),
            path,
            last_activity,
            sort_key,
            preview,
        };
        (e, kept)
    }

    /// The preview of `<dir>/<name>/summary.txt`: the cached one when the file's stat is
    /// the one recorded with it, else read (nothing to read when it is empty or missing).
    fn summary_preview(
        &self,
        d: &fs::File,
        name: &str,
        known: Option<&Cached<'_>>,
        buf: &mut String,
    ) -> (String, Kept) {
        use nix::errno::Errno;
        let read = || cut_preview(at::summary(d, name).map(first_line).unwrap_or_default());
        match at::stat(d, name, "summary.txt", buf) {
            Ok(st) if at::is_regular(&st) => {
                let stamp = Stamp::of(&st);
                if let Some(c) = known.filter(|c| c.summary == Some(stamp)) {
                    return (c.preview.to_string(), Kept::Hit);
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
                (p, kept)
            }
            // Not a file (a folder, a FIFO): no preview, and nothing opened.
            Ok(_) => (String::new(), Kept::Unsure),
            Err(Errno::ENOENT) | Err(Errno::ENOTDIR) => match known {
                Some(c) if c.summary.is_none() => (String::new(), Kept::Hit),
                _ => (String::new(), Kept::Fresh(None)),
            },
            Err(_) => (read(), Kept::Unsure),
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
