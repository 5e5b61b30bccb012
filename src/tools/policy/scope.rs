//! Path scopes: which of system / external / network / workspace a path belongs to.
use super::{EXTERNAL, NETWORK, SYSTEM, WORKSPACE};
use std::path::{Path, PathBuf};

/// The places a classification depends on (all compared lower-cased, like the reference).
#[derive(Debug, Clone)]
pub struct Places {
    cwd: String,
    /// Folders the user added (`--add-dir`), as named and as resolved: workspace too.
    added: Vec<String>,
    roots: Vec<String>,
    home: String,
    pub(super) cwd_path: PathBuf,
    pub(super) home_path: PathBuf,
    /// `/tmp` and the session store count as workspace instead of needing nothing: the
    /// permission gate's view, where a delete under `/tmp` is a change, not a read
    /// ([`Places::temp_as_workspace`]).
    temp_as_workspace: bool,
}

impl Places {
    pub fn new(cwd: &Path, projects_root: &Path, home: &Path) -> Places {
        let low = |p: &Path| {
            let s = p.to_string_lossy().to_lowercase();
            let t = s.trim_end_matches('/');
            if t.is_empty() {
                "/".to_string()
            } else {
                t.to_string()
            }
        };
        let mut roots = vec![low(projects_root)];
        if let Ok(real) = std::fs::canonicalize(projects_root) {
            roots.push(low(&real));
        }
        Places {
            cwd: low(cwd),
            added: Vec::new(),
            roots,
            home: low(home),
            cwd_path: cwd.to_path_buf(),
            home_path: home.to_path_buf(),
            temp_as_workspace: false,
        }
    }

    /// The places as the permission gate asks about them: a path under `/tmp` or the
    /// session store is workspace, so writing or deleting there is not a "workspace read"
    /// (the policy bits keep `/tmp` free: plan drafts and scratch files need no bit).
    pub fn temp_as_workspace(mut self) -> Places {
        self.temp_as_workspace = true;
        self
    }

    /// `dirs` count as workspace as well (the `--add-dir` folders: each as named, made
    /// absolute against the workspace, and as its symlinks resolve).
    pub fn with_added(mut self, dirs: &[PathBuf]) -> Places {
        for d in dirs {
            let named = if d.is_absolute() {
                d.clone()
            } else {
                self.cwd_path.join(d)
            };
            let mut forms = vec![lexical(&named.to_string_lossy().to_lowercase())];
            if let Ok(real) = std::fs::canonicalize(&named) {
                forms.push(lexical(&real.to_string_lossy().to_lowercase()));
            }
            for f in forms {
                if f != "/" && !self.added.contains(&f) {
                    self.added.push(f);
                }
            }
        }
        self
    }

    /// Scope shift of a (lower-cased, cleaned) path, or None when it needs no bits.
    pub fn scope(&self, t: &str) -> Option<u32> {
        if t.is_empty() || t.starts_with('&') {
            return None;
        }
        // Normalised first: `/dev/fd/../../etc/passwd` is no device.
        let norm = self.normalize(t);
        if harmless_device(&norm) {
            return None;
        }
        if norm.starts_with("/dev/tcp") || norm.starts_with("/dev/udp") {
            return Some(NETWORK);
        }
        if is_sensitive(t) || is_sensitive(&norm) {
            return Some(SYSTEM);
        }
        if under(&norm, "/tmp") || self.roots.iter().any(|r| under(&norm, r)) {
            return self.temp_as_workspace.then_some(WORKSPACE);
        }
        if self.cwd != "/" && under(&norm, &self.cwd) {
            return Some(WORKSPACE);
        }
        if self.added.iter().any(|d| under(&norm, d)) {
            return Some(WORKSPACE);
        }
        // The home is the home wherever HOME points (also /root): external, not system.
        if !self.home.is_empty() && self.home != "/" && under(&norm, &self.home) {
            return Some(EXTERNAL);
        }
        let first = norm[1..].split('/').next().unwrap_or("");
        if norm == "/" || first.contains(['*', '?', '[']) || is_system_dir(&norm) {
            return Some(SYSTEM);
        }
        Some(EXTERNAL)
    }

    /// Lexically absolute, `~`/`$home` expanded, `.`/`..` resolved.
    fn normalize(&self, t: &str) -> String {
        let expanded = if t == "~" || t == "$home" || t == "${home}" {
            self.home.clone()
        } else if let Some(rest) = t
            .strip_prefix("~/")
            .or_else(|| t.strip_prefix("$home/"))
            .or_else(|| t.strip_prefix("${home}/"))
        {
            format!("{}/{rest}", self.home)
        } else if t.starts_with('/') {
            t.to_string()
        } else {
            format!("{}/{t}", self.cwd)
        };
        // The kernel's aliases: /dev/fd is /proc/self/fd; /proc/<self|pid>/root is `/`
        // and …/cwd the working directory.
        let expanded = match expanded.strip_prefix("/dev/fd/") {
            Some(rest) => format!("/proc/self/fd/{rest}"),
            None if expanded == "/dev/fd" => "/proc/self/fd".to_string(),
            None => expanded,
        };
        let mut norm = lexical(&expanded);
        loop {
            let parts: Vec<&str> = norm.splitn(5, '/').collect();
            // ["", "proc", "<who>", "root"|"cwd", rest?]
            if parts.len() >= 4
                && parts[1] == "proc"
                && (parts[2] == "self"
                    || parts[2] == "thread-self"
                    || parts[2].bytes().all(|b| b.is_ascii_digit()))
                && (parts[3] == "root" || parts[3] == "cwd")
            {
                let base = if parts[3] == "root" {
                    ""
                } else {
                    self.cwd.as_str()
                };
                norm = lexical(&format!("{base}/{}", parts.get(4).unwrap_or(&"")));
            } else {
                break;
            }
        }
        norm
    }
}

/// The path the kernel would reach for `p` (absolute): every existing symlink on the way
/// is followed, and a `..` goes to the physical parent of what came before it (so
/// `link/new/../f` is `f` beside the link's *target*). Components past the first missing
/// one are taken as written (a tool creating them gets exactly those).
pub fn physical(p: &Path) -> PathBuf {
    use std::collections::VecDeque;
    use std::ffi::OsString;
    use std::path::Component;
    let names = |p: &Path| -> Vec<OsString> {
        p.components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_os_string()),
                Component::ParentDir => Some(OsString::from("..")),
                _ => None,
            })
            .collect()
    };
    let mut queue: VecDeque<OsString> = names(p).into();
    let mut out = PathBuf::from("/");
    let mut exists = true;
    let mut links = 0;
    while let Some(c) = queue.pop_front() {
        if c == ".." {
            out.pop();
            continue;
        }
        out.push(&c);
        if !exists {
            continue;
        }
        match std::fs::symlink_metadata(&out) {
            Ok(m) if m.file_type().is_symlink() && links < 40 => {
                links += 1;
                let Ok(target) = std::fs::read_link(&out) else {
                    exists = false;
                    continue;
                };
                out.pop();
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                for n in names(&target).into_iter().rev() {
                    queue.push_front(n);
                }
            }
            Ok(_) => {}
            Err(_) => exists = false,
        }
    }
    out
}

fn lexical(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

fn under(p: &str, dir: &str) -> bool {
    if dir == "/" {
        return true;
    }
    p == dir || (p.starts_with(dir) && p.as_bytes().get(dir.len()) == Some(&b'/'))
}

fn is_system_dir(p: &str) -> bool {
    [
        "/etc", "/usr", "/bin", "/sbin", "/var", "/library", "/system", "/dev", "/boot", "/root",
        "/proc", "/sys", "/lib", "/lib64",
    ]
    .iter()
    .any(|d| under(p, d))
}

pub(super) fn harmless_device(t: &str) -> bool {
    matches!(
        t,
        "/dev/null"
            | "/dev/zero"
            | "/dev/stdin"
            | "/dev/stdout"
            | "/dev/stderr"
            | "/dev/tty"
            | "/dev/random"
            | "/dev/urandom"
    ) || t
        .strip_prefix("/proc/self/fd/")
        .or_else(|| t.strip_prefix("/dev/fd/"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Files and folders holding secrets: `~/.ssh`, `.env`, `*.pem`, `*.key`, credentials…
pub fn is_sensitive(t: &str) -> bool {
    let t = t.to_lowercase();
    let comps: Vec<&str> = t.split('/').filter(|c| !c.is_empty()).collect();
    let dirs = [
        ".ssh",
        ".gnupg",
        ".aws",
        ".docker",
        ".kube",
        ".password-store",
    ];
    if comps.iter().any(|c| dirs.contains(c)) {
        return true;
    }
    let base = match comps.last() {
        Some(b) => *b,
        None => return false,
    };
    if [".example", ".sample", ".template", ".dist"]
        .iter()
        .any(|s| base.ends_with(s))
    {
        return false;
    }
    base == ".env"
        || base.starts_with(".env.")
        || base.ends_with(".env")
        || [".pem", ".key", ".p12", ".pfx", ".keystore"]
            .iter()
            .any(|s| base.ends_with(s))
        || ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"]
            .iter()
            .any(|s| base.starts_with(s))
        || [".netrc", ".pgpass", ".git-credentials", "shadow", "gshadow"].contains(&base)
        || (base.contains('.') || comps.len() > 1)
            && ["credential", "secret", "token"]
                .iter()
                .any(|w| base.contains(w))
}
