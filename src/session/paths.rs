//! Storage root, `project_key`, session ids and name rules (docs/sessions.md).
use std::path::{Path, PathBuf};

/// `${BASH_AGENT_HOME:-$HOME}` (empty values count as unset).
pub fn base_home() -> PathBuf {
    for var in ["BASH_AGENT_HOME", "HOME"] {
        if let Some(v) = std::env::var_os(var) {
            if !v.is_empty() {
                return PathBuf::from(v);
            }
        }
    }
    PathBuf::from("/")
}

/// `<base>/.bash-agent`: history, index.db, global instruction files, config.
pub fn agent_home() -> PathBuf {
    base_home().join(".bash-agent")
}

/// `<base>/.bash-agent/projects`.
pub fn projects_root() -> PathBuf {
    agent_home().join("projects")
}

/// The physical current directory (symlinks resolved), as `pwd -P` prints it.
pub fn physical_cwd() -> std::io::Result<PathBuf> {
    // Start-up asks several times; the symlinks of one folder are resolved once.
    static LAST: std::sync::Mutex<Option<(PathBuf, PathBuf)>> = std::sync::Mutex::new(None);
    let cwd = std::env::current_dir()?;
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, real)) = last.as_ref().filter(|(dir, _)| *dir == cwd) {
        return Ok(real.clone());
    }
    let real = std::fs::canonicalize(&cwd).unwrap_or_else(|_| cwd.clone());
    *last = Some((cwd, real.clone()));
    Ok(real)
}

/// The exact project_key algorithm, bytewise.
pub fn project_key(cwd: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = cwd.as_os_str().as_bytes();
    let mut out = String::with_capacity(bytes.len() + 1);
    let start = bytes.iter().position(|&b| b != b'/').unwrap_or(bytes.len());
    let mut last_dash = false;
    for &b in &bytes[start..] {
        let keep = b.is_ascii_alphanumeric() || b == b'.' || b == b'_';
        if keep {
            out.push(b as char);
            last_dash = false;
        } else if !last_dash {
            out.push('-');
            last_dash = true;
        }
    }
    let trimmed = out.trim_matches('-');
    format!("-{trimmed}")
}

/// `<projects_root>/<project_key(cwd)>`.
pub fn project_dir_for(cwd: &Path) -> PathBuf {
    projects_root().join(project_key(cwd))
}

/// A fresh id `YYYYMMDD-HHMMSS-xxxx` (local time + 16 random bits). Callers check for
/// collisions with [`new_unique_id`].
pub fn new_session_id() -> String {
    format!(
        "{}-{:04x}",
        crate::util::time::local_compact(crate::util::time::now_secs()),
        crate::util::random_u64() & 0xffff
    )
}

/// A fresh id (with `prefix`, e.g. `sub_` or `task_`) whose folder does not exist yet in `dir`.
pub fn new_unique_id(dir: &Path, prefix: &str) -> String {
    for _ in 0..64 {
        let id = format!("{prefix}{}", new_session_id());
        if !dir.join(&id).exists() {
            return id;
        }
    }
    // Astronomically unlikely: fall back to more entropy in the suffix.
    format!(
        "{prefix}{}-{:08x}",
        crate::util::time::local_compact(crate::util::time::now_secs()),
        crate::util::random_u64() as u32
    )
}

/// True for ids in the shell format (`^[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$`).
pub fn is_generated_id(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'-'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'-'
        && b[16..]
            .iter()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
}

/// Session names: `[A-Za-z0-9._-]+`, no leading `.` or `-`, at most 128 bytes.
pub fn validate_session_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("invalid session name: empty".into());
    }
    if name.len() > 128 {
        return Err(format!(
            "invalid session name: longer than 128 bytes ({} bytes)",
            name.len()
        ));
    }
    if name.starts_with('.') || name.starts_with('-') {
        return Err(format!(
            "invalid session name '{name}': must not start with '.' or '-'"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Err(format!(
            "invalid session name '{}': character {:?} not allowed (use A-Z a-z 0-9 . _ -)",
            name.escape_debug(),
            c
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_key_examples() {
        let cases = [
            (
                "/Users/lloyd/My Projects/bash-agent",
                "-Users-lloyd-My-Projects-bash-agent",
            ),
            ("/home/u/代码/x_y.z", "-home-u-x_y.z"),
            ("/srv/a--b/c d", "-srv-a-b-c-d"),
            ("/opt/@scope/pkg+1", "-opt-scope-pkg-1"),
            ("/", "-"),
            ("/tmp/anchor-demo-proj", "-tmp-anchor-demo-proj"),
        ];
        for (cwd, key) in cases {
            assert_eq!(project_key(Path::new(cwd)), key, "{cwd}");
        }
    }

    #[test]
    fn ids() {
        let id = new_session_id();
        assert!(is_generated_id(&id), "{id}");
        assert!(!is_generated_id("demo1"));
    }

    #[test]
    fn names() {
        for ok in ["demo", "a.b_c-d", "sub_20261201-040738-e2e9", "X9"] {
            assert!(validate_session_name(ok).is_ok(), "{ok}");
        }
        let long = "a".repeat(129);
        for bad in [
            "",
            "../x",
            "a/b",
            ".hidden",
            "-x",
            "a b",
            "é",
            long.as_str(),
        ] {
            assert!(validate_session_name(bad).is_err(), "{bad}");
        }
        assert!(validate_session_name(&"a".repeat(128)).is_ok());
    }
}
