//! Write (docs/tools-and-policy.md): parents created, exact bytes, atomic replace keeping the
//! mode (symlinks are written through), failures reported.
use super::common::{arg, has, resolve};
use super::truncate::{count_lines, file_summary};
use super::{ToolHost, ToolOutput};
use serde_json::Value;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The file to actually replace: a symlink's target (so the link survives), else `path`.
pub fn real_target(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Replace the file's content: temp + rename (mode kept); when the folder is not writable
/// but the file is, fall back to rewriting it in place.
pub fn replace_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    match crate::util::fsx::write_atomic(path, bytes) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied && path.is_file() => {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)?;
            f.write_all(bytes)?;
            f.sync_data()
        }
        Err(e) => Err(e),
    }
}

pub fn run(ctx: &dyn ToolHost, id: &str, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let p = arg(input, "path");
    if p.is_empty() {
        return ToolOutput::error("no path provided", max);
    }
    if !has(input, "content") {
        return ToolOutput::error("no content provided", max);
    }
    let content = arg(input, "content");
    let path = resolve(ctx, &p);
    if path.is_dir() {
        return ToolOutput::error(&format!("{p} is a directory"), max);
    }
    let target = real_target(&path);
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return ToolOutput::error(
                &format!("cannot create directory {}: {e}", dir.display()),
                max,
            );
        }
    }
    ctx.before_file_change(&target, id);
    if let Err(e) = replace_file(&target, content.as_bytes()) {
        return ToolOutput::error(&format!("cannot write {p}: {e}"), max);
    }
    let text = format!("OK: wrote {} bytes to {p}", content.len());
    let summary = file_summary(
        "Write",
        &p,
        count_lines(content.as_bytes()),
        content.len() as u64,
        None,
        None,
    );
    ToolOutput {
        ok: true,
        conv: text.clone(),
        display: format!("{summary}\n{text}"),
        checklist: None,
    }
}
