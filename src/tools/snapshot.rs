//! The shell snapshot (docs/tools-and-policy.md, "Bash"): a login shell's environment
//! captured once per session instead of a login shell per command.
//!
//! One `bash -lc` (sandboxed like a command, scrubbed environment, stdin /dev/null) prints
//! its functions, aliases, shell options and exported variables after a marker; the
//! agent writes them as `<session dir>/shell-snapshot.sh` (0600, replaced atomically),
//! with the secret-looking variables dropped and every registered secret redacted. Each
//! command then runs as a non-login `bash -c` with `BASH_ENV` pointing at the file, which
//! bash reads before the command (so aliases work and error messages keep `line 1`); the
//! file unsets `BASH_ENV` again so scripts the command starts do not read it.
//!
//! The first line records a stamp of what the snapshot depends on (HOME, the profile
//! files' size and mtime, the agent's own scrubbed environment); a different stamp means
//! a new capture. `BASH_AGENT_SHELL_SNAPSHOT=0`, no session folder, or a capture that fails
//! (a profile that hangs for 10 s, bash missing) all mean `bash -lc` per command.
use crate::sandbox::Prepared;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The snapshot's file name in the session folder.
pub const FILE: &str = "shell-snapshot.sh";
/// Set to `0` to run every command as `bash -lc` (no snapshot).
pub const ENV: &str = "BASH_AGENT_SHELL_SNAPSHOT";
const BEGIN: &str = "__BASH_AGENT_SNAPSHOT_BEGIN__";
const ENV_MARK: &str = "__BASH_AGENT_SNAPSHOT_ENV__";
const END: &str = "__BASH_AGENT_SNAPSHOT_END__";
/// A login profile that takes longer than this is given up on (commands then log in).
const CAPTURE_LIMIT: Duration = Duration::from_secs(10);

/// What the capturing shell prints after its profile ran (builtins only).
const CAPTURE: &str = r#"printf '\n%s\n' __BASH_AGENT_SNAPSHOT_BEGIN__
declare -f
alias -p
shopt -p
set +o
printf '%s\n' __BASH_AGENT_SNAPSHOT_ENV__
for __n in $(compgen -e); do printf '%s=%s\0' "$__n" "${!__n}"; done
printf '\n%s\n' __BASH_AGENT_SNAPSHOT_END__
"#;

/// Profile files whose change means a new snapshot (relative ones are under HOME).
const PROFILES: [&str; 7] = [
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".bashrc",
    "/etc/profile",
    "/etc/bash.bashrc",
    "/etc/profile.d",
];

/// Stamps whose capture failed in this process (not retried for every command).
static FAILED: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// One capture at a time (a foreground and a background command may ask together).
static CAPTURING: Mutex<()> = Mutex::new(());

/// Give `cmd` (a `Command::new("bash")`) its arguments for `command`, confine it
/// (`sandbox::confine`: scrubbed environment, Landlock) and point it at the snapshot.
/// Keep the returned value alive until `spawn` returned.
pub fn confine_shell(cmd: &mut Command, command: &str, cwd: &Path) -> std::io::Result<Prepared> {
    match ensure(cwd) {
        Some(snap) => {
            cmd.arg("-c").arg(command);
            let p = crate::sandbox::confine(cmd, cwd)?;
            cmd.env("BASH_ENV", snap);
            Ok(p)
        }
        None => {
            cmd.arg("-lc").arg(command);
            crate::sandbox::confine(cmd, cwd)
        }
    }
}

/// The snapshot to use, captured or refreshed first when needed; `None`: log in instead.
pub fn ensure(cwd: &Path) -> Option<PathBuf> {
    if std::env::var(ENV).is_ok_and(|v| v.trim() == "0") {
        return None;
    }
    let dir = crate::sandbox::session_dir()?;
    let path = dir.join(FILE);
    let stamp = stamp();
    if first_line(&path).as_deref() == Some(header(&stamp).as_str()) {
        return Some(path);
    }
    let _one = CAPTURING.lock().unwrap_or_else(|p| p.into_inner());
    if first_line(&path).as_deref() == Some(header(&stamp).as_str()) {
        return Some(path);
    }
    if FAILED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .contains(&stamp)
    {
        return None;
    }
    match capture(cwd).and_then(|out| render(&stamp, &out)) {
        Some(text) if write_private(&path, text.as_bytes()).is_ok() => Some(path),
        _ => {
            FAILED.lock().unwrap_or_else(|p| p.into_inner()).push(stamp);
            None
        }
    }
}

fn header(stamp: &str) -> String {
    format!("# bash-agent shell snapshot (docs/tools-and-policy.md); stamp {stamp}")
}

fn first_line(path: &Path) -> Option<String> {
    let mut f = std::fs::File::open(path).ok()?;
    let mut buf = [0u8; 256];
    let n = f.read(&mut buf).ok()?;
    let s = std::str::from_utf8(&buf[..n]).ok()?;
    s.split('\n').next().map(str::to_string)
}

/// HOME, each profile's size and mtime, and the scrubbed environment commands start
/// with, hashed.
pub fn stamp() -> String {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let mut h = crate::util::hash::Fnv::default();
    h.update(home.as_os_str().as_encoded_bytes());
    for p in PROFILES {
        let path = if p.starts_with('/') {
            PathBuf::from(p)
        } else {
            home.join(p)
        };
        let m = std::fs::metadata(&path)
            .map(|m| format!("{}:{}:{}:{}", m.len(), m.mtime(), m.mtime_nsec(), m.ino()))
            .unwrap_or_else(|_| "-".into());
        h.update(p.as_bytes());
        h.update(m.as_bytes());
    }
    let mut env = crate::sandbox::env::tool_env();
    env.sort();
    for (k, v) in env {
        h.update(k.as_encoded_bytes());
        h.update(b"=");
        h.update(v.as_encoded_bytes());
        h.update(b"\0");
    }
    format!("{:016x}", h.finish())
}

/// Run the login shell once and return what it printed after [`BEGIN`], up to [`END`].
fn capture(cwd: &Path) -> Option<Vec<u8>> {
    let mut cmd = Command::new("bash");
    cmd.arg("-lc")
        .arg(CAPTURE)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0);
    let mut child = {
        let _confined = crate::sandbox::confine(&mut cmd, cwd).ok()?;
        cmd.spawn().ok()?
    };
    let pgid = nix::unistd::Pid::from_raw(child.id() as i32);
    let mut out = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("shell-snapshot".into())
        .spawn(move || {
            let mut buf = Vec::new();
            let _ = (&mut out).take(64 << 20).read_to_end(&mut buf);
            let _ = tx.send(buf);
        })
        .ok()?;
    let deadline = Instant::now() + CAPTURE_LIMIT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => break None,
        }
    };
    // A profile may leave a daemon behind holding the pipe: the end marker tells when the
    // capture is complete, and the group goes with the capture either way.
    let buf = rx
        .recv_timeout(if status.is_some() {
            Duration::from_millis(300)
        } else {
            Duration::ZERO
        })
        .ok();
    let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
    if status.is_none() {
        let _ = child.wait();
    }
    let buf = buf?;
    let begin = find(&buf, format!("\n{BEGIN}\n").as_bytes())? + BEGIN.len() + 2;
    let end = find(&buf[begin..], format!("\n{END}\n").as_bytes())? + begin;
    Some(buf[begin..end].to_vec())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The snapshot file's text from the captured output.
fn render(stamp: &str, out: &[u8]) -> Option<String> {
    let mark = format!("{ENV_MARK}\n");
    let at = find(out, mark.as_bytes())?;
    let shell = String::from_utf8_lossy(&out[..at]);
    let env = &out[at + mark.len()..];
    let mut s = header(stamp);
    s.push_str(
        "\n# Functions, aliases and options of the login shell, then its exported variables.\n",
    );
    for line in shell.lines() {
        // Read-only or meaningless outside a login shell.
        if line == "shopt -s login_shell" || line == "shopt -u login_shell" {
            continue;
        }
        if ["history", "monitor", "emacs", "vi"]
            .iter()
            .any(|o| line == format!("set -o {o}") || line == format!("set +o {o}"))
        {
            continue;
        }
        s.push_str(line);
        s.push('\n');
    }
    s.push_str("shopt -s expand_aliases\n");
    let vars: Vec<(OsString, OsString)> = env
        .split(|&b| b == 0)
        .filter_map(|kv| {
            let kv = String::from_utf8_lossy(kv);
            let (k, v) = kv.split_once('=')?;
            let ok = !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            ok.then(|| (OsString::from(k), OsString::from(v)))
        })
        .collect();
    let mut bash_env = None;
    for (k, v) in crate::sandbox::env::scrub(vars) {
        let (k, v) = (
            k.to_string_lossy().into_owned(),
            v.to_string_lossy().into_owned(),
        );
        match k.as_str() {
            "PWD" | "OLDPWD" | "SHLVL" | "_" => {}
            "BASH_ENV" => bash_env = Some(v),
            _ => s.push_str(&format!("export {k}={}\n", quote(&v))),
        }
    }
    s.push_str("unset BASH_ENV\n");
    if let Some(v) = bash_env {
        s.push_str(&format!("export BASH_ENV={}\n", quote(&v)));
    }
    Some(crate::sandbox::env::redact(&s).into_owned())
}

/// Single-quoted for bash.
fn quote(v: &str) -> String {
    format!("'{}'", v.replace('\'', r"'\''"))
}

/// Write `path` as 0600 through a temp file and a rename.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    let res = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(bytes)?;
        std::fs::rename(&tmp, path)
    })();
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_drops_secrets_and_keeps_the_rest() {
        let out = b"f () \n{ \n    echo f\n}\nalias ll='ls -l'\nshopt -u login_shell\nset -o history\n__BASH_AGENT_SNAPSHOT_ENV__\nFOO=a'b\0GITHUB_TOKEN=x\0PWD=/x\0BASH_ENV=/u\0";
        let s = render("abc", out).unwrap();
        assert!(s.starts_with(&header("abc")));
        assert!(s.contains("alias ll='ls -l'\n"));
        assert!(s.contains("export FOO='a'\\''b'\n"));
        assert!(!s.contains("GITHUB_TOKEN") && !s.contains("PWD") && !s.contains("login_shell"));
        assert!(!s.contains("history"));
        assert!(s.ends_with("unset BASH_ENV\nexport BASH_ENV='/u'\n"));
    }
}
