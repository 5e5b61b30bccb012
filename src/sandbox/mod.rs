//! The second line of defence behind the permission policy: every command the agent runs
//! for the model is confined by the kernel (Landlock) and gets an environment without
//! secrets. The policy guesses from the command's text; the sandbox holds whatever the
//! text hides (`base64 -d | sh`, `python3 -c`, variables, `cd ..` chains).
//!
//! Use: the runtime calls [`configure`] once with the resolved settings; whoever starts a
//! tool process calls [`confine`] on its `Command` (and keeps the returned guard until the
//! spawn returned).
pub mod env;
mod landlock;

pub use self::landlock::{kernel_abi, Prepared};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Environment variable choosing the mode when `--sandbox` is not given.
pub const MODE_ENV: &str = "BASH_AGENT_SANDBOX";

/// What commands may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Write the workspace, the session folder, the temp dir, the terminal devices and
    /// every `--add-dir`; read everywhere.
    #[default]
    WorkspaceWrite,
    /// Write only the temp dir and the devices; read everywhere.
    ReadOnly,
    /// No kernel sandbox (the permission policy and the environment scrub still apply).
    Off,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim() {
            "workspace-write" => Some(Mode::WorkspaceWrite),
            "read-only" => Some(Mode::ReadOnly),
            "off" => Some(Mode::Off),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Mode::WorkspaceWrite => "workspace-write",
            Mode::ReadOnly => "read-only",
            Mode::Off => "off",
        }
    }
}

/// The resolved sandbox flags.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Settings {
    pub mode: Mode,
    /// `--add-dir`: more folders commands may write (physical: symlinks resolved).
    pub add_dirs: Vec<PathBuf>,
    /// The same folders as the user named them, made absolute (not resolved), so the
    /// permission policy counts a path through a symlinked `--add-dir` as workspace too.
    pub add_dir_names: Vec<PathBuf>,
    /// `--no-network`: deny TCP connect and bind (Landlock ABI 4 and later).
    pub no_network: bool,
}

impl Settings {
    /// The flags that give a child agent (sub-agent) the same sandbox.
    pub fn child_args(&self) -> Vec<String> {
        let mut a = vec!["--sandbox".to_string(), self.mode.name().to_string()];
        for d in &self.add_dirs {
            a.push("--add-dir".into());
            a.push(d.to_string_lossy().into_owned());
        }
        if self.no_network {
            a.push("--no-network".into());
        }
        a
    }
}

/// The process-wide settings plus the session folder commands may write. `None` until
/// the runtime configured it: library callers (tests) then run unconfined.
struct Active {
    settings: Settings,
    session_dir: Option<PathBuf>,
}

static ACTIVE: Mutex<Option<Active>> = Mutex::new(None);

/// Set the sandbox for every later command of this process, and say once on stderr what
/// the kernel cannot enforce.
pub fn configure(settings: Settings, session_dir: Option<&Path>) {
    if settings.mode != Mode::Off || settings.no_network {
        let abi = kernel_abi();
        if abi == 0 {
            eprintln!(
                "bash-agent: warning: this kernel has no Landlock; commands run without the sandbox (the permission policy alone applies)"
            );
        } else if settings.no_network && abi < 4 {
            eprintln!(
                "bash-agent: warning: --no-network needs Landlock ABI 4 (this kernel has {abi}); network access is NOT blocked"
            );
        }
    }
    *ACTIVE.lock().unwrap_or_else(|p| p.into_inner()) = Some(Active {
        settings,
        session_dir: session_dir.map(Path::to_path_buf),
    });
}

/// The session folder configured for this process (where the shell snapshot lives).
pub fn session_dir() -> Option<PathBuf> {
    ACTIVE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .and_then(|a| a.session_dir.clone())
}

/// The configured settings (default `Off` when not configured).
pub fn settings() -> Settings {
    ACTIVE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .map(|a| a.settings.clone())
        .unwrap_or(Settings {
            mode: Mode::Off,
            ..Settings::default()
        })
}

/// Folders commands may write under the current settings, for a workspace `cwd`
/// (`None` when the kernel sandbox is off).
pub fn writable_roots(cwd: &Path) -> Option<Vec<PathBuf>> {
    let g = ACTIVE.lock().unwrap_or_else(|p| p.into_inner());
    let a = g.as_ref()?;
    let mut roots = vec![std::env::temp_dir()];
    match a.settings.mode {
        Mode::Off => return None,
        Mode::ReadOnly => {}
        Mode::WorkspaceWrite => {
            roots.push(cwd.to_path_buf());
            roots.extend(a.session_dir.iter().cloned());
            roots.extend(a.settings.add_dirs.iter().cloned());
        }
    }
    // Compare physical paths: a link to a folder must not widen or narrow the set.
    Some(
        roots
            .into_iter()
            .map(|r| std::fs::canonicalize(&r).unwrap_or(r))
            .collect(),
    )
}

/// Devices a confined command may always write.
const DEVICES: [&str; 4] = ["/dev/null", "/dev/tty", "/dev/pts", "/dev/zero"];

/// Confine the process `cmd` will start: the scrubbed environment always, the Landlock
/// ruleset when the mode (or `--no-network`) asks for it. The ruleset is built here, in
/// the parent; the child only makes two raw system calls before exec. Keep the returned
/// value alive until `spawn` returned.
pub fn confine(cmd: &mut std::process::Command, cwd: &Path) -> std::io::Result<Prepared> {
    env::apply(cmd);
    confine_kernel(cmd, cwd)
}

/// The Landlock half of [`confine`], for a caller that builds the child's environment
/// itself from [`env::tool_env`] (an MCP server adds its entry's own variables).
pub fn confine_kernel(cmd: &mut std::process::Command, cwd: &Path) -> std::io::Result<Prepared> {
    let s = settings();
    if s.mode == Mode::Off && !s.no_network {
        return Ok(Prepared::none());
    }
    let write: Vec<PathBuf> = match writable_roots(cwd) {
        Some(mut r) => {
            r.extend(DEVICES.iter().map(PathBuf::from));
            r
        }
        None => Vec::new(),
    };
    let p = self::landlock::prepare(s.mode != Mode::Off, &write, s.no_network)?;
    p.install(cmd);
    Ok(p)
}

/// The agent's line under a command's own error when the sandbox probably refused it.
pub fn refusal_note(output: &str) -> Option<String> {
    let s = settings();
    if s.mode == Mode::Off || kernel_abi() == 0 {
        return None;
    }
    // Landlock refuses with EACCES, which every tool prints as "Permission denied".
    if !output.to_lowercase().contains("permission denied") {
        return None;
    }
    Some(match s.mode {
        Mode::ReadOnly => "[sandbox read-only: commands may write only the temp dir; use --sandbox workspace-write, or --add-dir DIR with it]".to_string(),
        _ => "[sandbox workspace-write: writes outside the workspace, the session folder and the temp dir are refused; allow a folder with --add-dir DIR]".to_string(),
    })
}

/// Is `path` (physical) inside a folder the sandbox lets commands write, or the session
/// folder (the agent's own plan draft, even read-only)? Always true when the sandbox is
/// off. The file tools use it so they promise no more than Bash may do.
pub fn may_write(path: &Path, cwd: &Path) -> bool {
    let Some(mut roots) = writable_roots(cwd) else {
        return true;
    };
    let session = ACTIVE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .and_then(|a| a.session_dir.clone());
    if let Some(d) = session {
        roots.push(std::fs::canonicalize(&d).unwrap_or(d));
    }
    roots.iter().any(|r| path.starts_with(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_child_args() {
        assert_eq!(Mode::parse("read-only"), Some(Mode::ReadOnly));
        assert_eq!(Mode::parse("nope"), None);
        assert_eq!(Mode::default(), Mode::WorkspaceWrite);
        let s = Settings {
            mode: Mode::ReadOnly,
            add_dirs: vec![PathBuf::from("/a b")],
            add_dir_names: vec![],
            no_network: true,
        };
        assert_eq!(
            s.child_args(),
            [
                "--sandbox",
                "read-only",
                "--add-dir",
                "/a b",
                "--no-network"
            ]
        );
    }
}
