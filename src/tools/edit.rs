//! Edit (docs/tools-and-policy.md): replace the first exact occurrence, report `[+A -R lines]`
//! and a coloured unified diff made in-process; the file's mode is kept.
use super::common::{arg, resolve};
use super::diff::unified;
use super::truncate::truncate;
use super::write::{real_target, replace_file};
use super::{ToolHost, ToolOutput};
use serde_json::Value;

/// Byte offsets of the non-overlapping occurrences of `needle` (at most `cap`).
fn occurrences(hay: &[u8], needle: &[u8], cap: usize) -> Vec<usize> {
    let mut found = Vec::new();
    if needle.is_empty() || needle.len() > hay.len() {
        return found;
    }
    if let (Ok(h), Ok(n)) = (std::str::from_utf8(hay), std::str::from_utf8(needle)) {
        found.extend(h.match_indices(n).map(|(i, _)| i).take(cap));
        return found;
    }
    let mut i = 0;
    while i + needle.len() <= hay.len() && found.len() < cap {
        if &hay[i..i + needle.len()] == needle {
            found.push(i);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    found
}

pub fn run(ctx: &dyn ToolHost, id: &str, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let p = arg(input, "path");
    if p.is_empty() {
        return ToolOutput::error("no path provided", max);
    }
    let path = resolve(ctx, &p);
    if !path.is_file() {
        return ToolOutput::error(&format!("file not found: {p}"), max);
    }
    let old = arg(input, "old_string");
    let new = arg(input, "new_string");
    if old.is_empty() {
        return ToolOutput::error("empty old_string", max);
    }
    let target = real_target(&path);
    let bytes = match std::fs::read(&target) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return ToolOutput::error(&format!("permission denied: {p}"), max)
        }
        Err(e) => return ToolOutput::error(&format!("cannot read {p}: {e}"), max),
    };
    let hits = occurrences(&bytes, old.as_bytes(), usize::MAX);
    let at = match hits.first() {
        Some(&i) => i,
        None => {
            return ToolOutput::error(
                &format!("old_string not found in {p}. Hint: Read the file and copy exact bytes (including whitespace/indent/newlines) before retrying Edit."),
                max,
            )
        }
    };
    let mut out = Vec::with_capacity(bytes.len() + new.len());
    out.extend_from_slice(&bytes[..at]);
    out.extend_from_slice(new.as_bytes());
    out.extend_from_slice(&bytes[at + old.len()..]);
    let diff = unified(&bytes, &out, &p, true);
    ctx.before_file_change(&target, id);
    if let Err(e) = replace_file(&target, &out) {
        return ToolOutput::error(&format!("cannot write {p}: {e}"), max);
    }
    let mut first = format!(
        "Success: Edit({p}) [+{} -{} lines]",
        diff.added, diff.removed
    );
    if hits.len() > 1 {
        first.push_str(&format!(
            " (note: old_string occurs {} times; only the first occurrence was replaced)",
            hits.len()
        ));
    }
    ToolOutput {
        ok: true,
        conv: truncate(&first, max),
        display: truncate(&format!("{first}\n{}", diff.text), max),
        checklist: None,
    }
}
