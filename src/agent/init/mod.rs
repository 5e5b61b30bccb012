//! `bash-agent init` (and the `/init` slash command): a starter AGENTS.md written by the
//! model from a compact look at the repository ([`repo::summary`]). One model call, no
//! tools, no session: the caller decides where the usage goes (the command prints it in its
//! result; a slash command can add it to its session's ledger).
pub mod repo;

use crate::provider::{CallInfo, ProviderConfig, Request, StreamEvent};
use crate::session::stats::Usage;
use crate::util::cancel::Cancel;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The file written, in the repository's root.
pub const FILE: &str = "AGENTS.md";

/// The system prompt of the call.
const SYSTEM: &str = "You write AGENTS.md files: concise instructions for AI coding agents \
working in a repository. You answer with the file's Markdown content only, no preamble and \
no code fence around the whole file.";

/// What the model is asked, before the repository summary.
pub const INSTRUCTION: &str = "Write a starter AGENTS.md for the repository summarised below. \
Include: a one-paragraph overview of what the project is; the layout (the main folders and \
what they hold); the exact commands to build, test, lint and format, taken from the \
summary (do not invent commands that it does not support); the code style and conventions \
the files show; and anything an agent must not do (generated files, secrets). Keep it under \
about 80 lines. If an existing instruction file is shown, keep what it says that is still \
true. Answer with the file's content only.";

/// A written AGENTS.md and what the call cost.
#[derive(Debug, Clone)]
pub struct InitOutcome {
    pub path: PathBuf,
    /// The file's content as written.
    pub text: String,
    pub usage: Usage,
    /// Output tokens per second of the call (0 when unknown), for a usage ledger line.
    pub speed: u64,
    pub info: CallInfo,
    pub stop_reason: Option<String>,
}

/// Why no file was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InitError {
    /// AGENTS.md is there and `force` was not given (no call was made).
    Exists(PathBuf),
    /// The model call failed, was interrupted, or answered nothing.
    Model(String),
    /// The file could not be written.
    Write(String),
}

impl std::fmt::Display for InitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InitError::Exists(p) => write!(
                f,
                "{} already exists (use --force to replace it)",
                p.display()
            ),
            InitError::Model(m) => write!(f, "init: {m}"),
            InitError::Write(m) => write!(f, "init: {m}"),
        }
    }
}

/// Where `init` writes for a run in `cwd`: the repository's root (the nearest folder
/// holding `.git`, the folder the settings files call the project), else `cwd`.
pub fn root_for(cwd: &Path) -> PathBuf {
    crate::settings::project_root(cwd)
}

/// Write `<root>/AGENTS.md` from one call to `cfg`'s model. Refuses (before any call) when
/// the file exists unless `force`; the file is written atomically (a temp file linked or
/// renamed into place), so a reader never sees half of it and, without `force`, a file
/// that appeared during the call is not replaced. `cancel` ends the call.
pub fn write_agents_md(
    cfg: &ProviderConfig,
    root: &Path,
    force: bool,
    cancel: &Cancel,
) -> Result<InitOutcome, InitError> {
    let path = root.join(FILE);
    if !force && path.exists() {
        return Err(InitError::Exists(path));
    }
    let summary = repo::summary(root);
    let messages = [crate::session::conversation::user_text_line(&format!(
        "{INSTRUCTION}\n\n<repository>\n{summary}</repository>"
    ))];
    let req = Request {
        system: SYSTEM,
        messages: &messages,
        tools_json: "",
        disable_thinking: true,
    };
    let mut text = String::new();
    let mut stop = None;
    let mut error = None;
    let mut billed = None;
    let info = crate::provider::stream(cfg, &req, cancel, &mut |e| match e {
        StreamEvent::Retry => {
            text.clear();
            stop = None;
            error = None;
        }
        StreamEvent::Text(t) => text.push_str(&t),
        StreamEvent::Usage { usage, speed } => billed = Some((usage, speed)),
        StreamEvent::Stop(r) => stop = Some(r),
        StreamEvent::Error(m) => error = Some(m),
        StreamEvent::Thinking(_)
        | StreamEvent::Reasoning(_)
        | StreamEvent::ThinkingSignature(_)
        | StreamEvent::RedactedThinking(_)
        | StreamEvent::ServerBlock(_)
        | StreamEvent::ToolInputDelta(_)
        | StreamEvent::ToolCall { .. } => {}
    });
    if cancel.is_cancelled() {
        return Err(InitError::Model("interrupted".into()));
    }
    if let Some(e) = error {
        return Err(InitError::Model(e));
    }
    let body = unfence(&text);
    if body.trim().is_empty() {
        return Err(InitError::Model(format!(
            "the model answered no text (stop_reason={})",
            stop.as_deref().unwrap_or("none")
        )));
    }
    let body = format!("{}\n", body.trim_end());
    place(&path, body.as_bytes(), force).map_err(InitError::Write)?;
    let (usage, speed) = billed.unwrap_or_default();
    Ok(InitOutcome {
        path,
        text: body,
        usage,
        speed,
        info,
        stop_reason: stop,
    })
}

/// The answer without a code fence wrapped around all of it (models add one despite being
/// asked not to).
fn unfence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let Some(nl) = rest.find('\n') else {
        return t;
    };
    let lang = &rest[..nl];
    if !lang.trim().chars().all(|c| c.is_ascii_alphanumeric()) {
        return t;
    }
    match rest[nl + 1..].trim_end().strip_suffix("```") {
        Some(inner) => inner,
        None => t,
    }
}

/// Put `bytes` at `path` atomically: a synced temp file in the same folder, then renamed
/// over the target (`force`) or hard-linked to it, which fails if it exists.
fn place(path: &Path, bytes: &[u8], force: bool) -> Result<(), String> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let tmp = dir.join(format!(".{FILE}.tmp.{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        if force {
            std::fs::rename(&tmp, path)
        } else {
            std::fs::hard_link(&tmp, path)
        }
    };
    let r = write();
    let _ = std::fs::remove_file(&tmp);
    match r {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(format!(
            "{} already exists (use --force to replace it)",
            path.display()
        )),
        Err(e) => Err(format!("cannot write {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unfence_only_a_whole_file_fence() {
        assert_eq!(unfence("```markdown\n# A\nb\n```\n"), "# A\nb\n");
        assert_eq!(unfence("```\n# A\n```"), "# A\n");
        assert_eq!(unfence("# A\n```sh\nx\n```"), "# A\n```sh\nx\n```");
        assert_eq!(unfence("  # A  "), "# A");
    }

    #[test]
    fn place_refuses_an_existing_file_without_force() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(FILE);
        place(&p, b"one\n", false).unwrap();
        assert!(place(&p, b"two\n", false)
            .unwrap_err()
            .contains("already exists"));
        place(&p, b"three\n", true).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "three\n");
        let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temp file left");
    }
}
