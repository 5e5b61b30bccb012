//! Glob (docs/tools-and-policy.md): `rg --files <path> -g <pattern>` in-process with the
//! `ignore` crate (same ignore rules: .gitignore in git repos, .ignore, .rgignore, hidden
//! files skipped unless the glob names them), parallel walk, sorted output.
use super::common::pattern_and_root;
use super::{ToolHost, ToolOutput};
use ignore::overrides::{Override, OverrideBuilder};
use ignore::{WalkBuilder, WalkState};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Build rg-style `-g` overrides rooted at the working directory.
pub fn overrides(cwd: &Path, globs: &[&str]) -> Result<Override, String> {
    let mut b = OverrideBuilder::new(cwd);
    for g in globs {
        b.add(g).map_err(|e| format!("invalid glob {g}: {e}"))?;
    }
    b.build().map_err(|e| format!("invalid glob: {e}"))
}

/// A walker configured like ripgrep's defaults.
pub fn walker(root: &Path, ov: Override) -> WalkBuilder {
    let mut w = WalkBuilder::new(root);
    w.overrides(ov).add_custom_ignore_filename(".rgignore");
    w
}

/// How rg prints a found path: relative roots keep the form they were given in.
pub fn shown(given: &str, root: &Path, found: &Path) -> PathBuf {
    if Path::new(given).is_absolute() || given.starts_with('~') {
        return found.to_path_buf();
    }
    match found.strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from(given),
        Ok(rel) => Path::new(given).join(rel),
        Err(_) => found.to_path_buf(),
    }
}

/// All files below `root` passing the ignore rules and `ov`, sorted, as rg would print them.
pub fn list_files(given: &str, root: &Path, ov: Override) -> Vec<PathBuf> {
    let (tx, rx) = std::sync::mpsc::channel::<PathBuf>();
    walker(root, ov).build_parallel().run(|| {
        let tx = tx.clone();
        Box::new(move |res| {
            if let Ok(ent) = res {
                if ent.file_type().is_some_and(|t| t.is_file()) {
                    let _ = tx.send(ent.into_path());
                }
            }
            WalkState::Continue
        })
    });
    drop(tx);
    let mut files: Vec<PathBuf> = rx.into_iter().map(|p| shown(given, root, &p)).collect();
    files.sort();
    files
}

pub fn run(ctx: &dyn ToolHost, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let (pattern, given, root) = match pattern_and_root(ctx, input) {
        Ok(v) => v,
        Err(e) => return e,
    };
    if !root.is_dir() {
        return ToolOutput::error(&format!("directory not found: {given}"), max);
    }
    let ov = match overrides(ctx.cwd(), &[pattern.as_str()]) {
        Ok(o) => o,
        Err(e) => return ToolOutput::error(&e, max),
    };
    let mut out = String::new();
    for f in list_files(&given, &root, ov) {
        out.push_str(&f.to_string_lossy());
        out.push('\n');
    }
    ToolOutput::text(true, &out, max)
}
