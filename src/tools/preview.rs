//! What an Edit or Write would change, shown above its permission question so the person
//! approves the change itself, not a file name (Claude Code shows the diff in its dialog).
//! Read-only: the file is read and the diff made as the tool would make it; a call that
//! would fail (no file, no match) shows nothing here and fails as usual when it runs.
use super::common::{arg, resolve};
use super::diff::unified;
use super::write::real_target;
use super::ToolHost;
use serde_json::Value;

/// Lines of the diff shown; the rest is counted.
const MAX_LINES: usize = 40;

/// The diff an Edit or Write call would make ("" for other tools or a call that would fail).
pub fn change(ctx: &dyn ToolHost, tool: &str, input: &Value, color: bool) -> String {
    let p = arg(input, "path");
    if p.is_empty() || !matches!(tool, "Edit" | "Write") {
        return String::new();
    }
    let target = real_target(&resolve(ctx, &p));
    let old = std::fs::read(&target).unwrap_or_default();
    let new = if tool == "Write" {
        arg(input, "content").into_bytes()
    } else {
        let (from, to) = (arg(input, "old_string"), arg(input, "new_string"));
        let Some(at) = find(&old, from.as_bytes()) else {
            return String::new();
        };
        let mut out = Vec::with_capacity(old.len() + to.len());
        out.extend_from_slice(&old[..at]);
        out.extend_from_slice(to.as_bytes());
        out.extend_from_slice(&old[at + from.len()..]);
        out
    };
    if new == old && tool == "Write" && target.exists() {
        return format!("(Write leaves {p} unchanged)");
    }
    cap(&unified(&old, &new, &p, color).text)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

/// At most [`MAX_LINES`] lines, then how many more.
fn cap(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= MAX_LINES {
        return text.to_string();
    }
    format!(
        "{}\n… {} more lines",
        lines[..MAX_LINES].join("\n"),
        lines.len() - MAX_LINES
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_diffs_are_cut() {
        let t: String = (0..50).map(|i| format!("+l{i}\n")).collect();
        let c = cap(&t);
        assert!(c.ends_with("… 10 more lines"), "{c}");
        assert_eq!(find(b"abcabc", b"ca"), Some(2));
        assert_eq!(find(b"ab", b""), None);
    }
}
