//! `@path` and `!cmd` (docs/interactive.md). `@path` words attach what they name to the
//! message: an image (PNG, JPEG, GIF, WebP) becomes `[Image #N]` (copied into the session's images/ folder, so the
//! stored line and a resumed session keep it; sent natively with --vision on), a text file
//! an `<attached-file>` block (cut at [`MAX_FILE`] with a note), a folder its listing.
//! `!cmd` runs through the Bash tool itself (policy, sandbox, timeout, redaction), shows
//! its output and keeps it for the next message. The file guard of the file tools applies
//! to `@path` too, and keys in a file's text are redacted like any tool result.
use crate::agent::context::AgentCtx;
use crate::tools::policy;
use crate::tools::ToolHost;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most of a text file attached.
pub const MAX_FILE: usize = 100 * 1024;
/// The largest image attached.
const MAX_IMAGE: u64 = 20 << 20;
/// Folder entries listed at most.
const MAX_ENTRIES: usize = 200;

fn resolve(ctx: &AgentCtx, p: &str) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/") {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(rest)
    } else {
        ctx.cwd.join(p)
    }
}

/// The path an `@word` names: the word, else the word without trailing punctuation.
fn target(ctx: &AgentCtx, word: &str) -> Option<(String, PathBuf)> {
    let p = word.strip_prefix('@')?;
    let trimmed = p.trim_end_matches([',', '.', ';', ':', '!', '?', ')', '"', '\'']);
    [p, trimmed]
        .into_iter()
        .filter(|c| !c.is_empty())
        .map(|c| (c.to_string(), resolve(ctx, c)))
        .find(|(_, path)| path.exists())
}

/// The line with image words replaced by `[Image #N]`; other attachments become pending
/// blocks for this message. Each attachment is announced to the user.
pub fn expand(ctx: &AgentCtx, line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while !rest.is_empty() {
        let ws = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..ws]);
        rest = &rest[ws..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        rest = &rest[end..];
        match target(ctx, word) {
            Some((shown, path)) => out.push_str(&attach_one(ctx, word, &shown, &path)),
            None => {
                mcp_resource(ctx, word);
                out.push_str(word)
            }
        }
    }
    out
}

/// `@server:uri` (an MCP resource, as Claude Code mentions them): its text attached like a
/// file's, when `server` is a running server that offers resources; any other word is left.
fn mcp_resource(ctx: &AgentCtx, word: &str) {
    let Some((server, uri)) = word.strip_prefix('@').and_then(|w| w.split_once(':')) else {
        return;
    };
    let Some(read) = crate::agent::extensions::mcp_resource(ctx, server, uri) else {
        return;
    };
    let shown = crate::mcp::shown(&format!("{server}:{uri}"));
    match read {
        Ok(text) => {
            let mut text = crate::sandbox::env::redact(&text).into_owned();
            let total = text.len();
            if total > MAX_FILE {
                let cut = crate::tools::truncate::ceil_boundary(&text, MAX_FILE);
                text.truncate(cut);
                text.push_str("\n[… cut here; read the rest with ReadMcpResourceTool …]");
            }
            ctx.slash.add_pending(format!(
                "<attached-resource uri=\"{}\" server=\"{}\">\n{}\n</attached-resource>",
                uri.replace('"', "%22"),
                server.replace('"', "%22"),
                text.trim_end_matches('\n')
            ));
            ctx.out
                .print(&format!("Attached {shown} ({total} bytes)\n"));
        }
        Err(e) => ctx.out.print(&format!(
            "Not attached {shown}: {}\n",
            crate::mcp::shown(&e)
        )),
    }
}

/// Whether `path` holds an image of a kind sent natively (PNG, JPEG, GIF, WebP).
fn is_image(path: &Path) -> bool {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(16).read_to_end(&mut head))
        .is_ok()
        && crate::ui::clipboard::image_kind(&head).is_some()
}

/// Attach one path; returns what replaces the word in the line.
fn attach_one(ctx: &AgentCtx, word: &str, shown: &str, path: &Path) -> String {
    let places = policy::places_of_run(&ctx.cwd);
    let target = path.to_string_lossy();
    if let Err(e) = policy::check_file(
        &target,
        policy::Access::Read,
        &places,
        ctx.limits().bash_mode,
    ) {
        ctx.out.print(&format!("Not attached {shown}: {e}\n"));
        return word.to_string();
    }
    if path.is_dir() {
        ctx.slash.add_pending(folder_block(shown, path));
        ctx.out
            .print(&format!("Attached folder {shown} (its listing)\n"));
        return word.to_string();
    }
    if is_image(path) {
        return match image(ctx, path) {
            Ok(tag) => {
                ctx.out.print(&format!("Attached image {shown} as {tag}\n"));
                // The word's trailing punctuation stays after the tag.
                format!("{tag}{}", &word[1 + shown.len()..])
            }
            Err(e) => {
                ctx.out.print(&format!("Not attached {shown}: {e}\n"));
                word.to_string()
            }
        };
    }
    match file_block(shown, path) {
        Ok((block, note)) => {
            ctx.slash.add_pending(block);
            ctx.out.print(&format!("Attached {shown}{note}\n"));
        }
        Err(e) => ctx.out.print(&format!("Not attached {shown}: {e}\n")),
    }
    word.to_string()
}

fn image(ctx: &AgentCtx, path: &Path) -> Result<String, String> {
    let len = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if len > MAX_IMAGE {
        return Err(format!("the image is larger than {} MB", MAX_IMAGE >> 20));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let (ext, _) = crate::ui::clipboard::image_kind(&bytes).ok_or("not an image")?;
    crate::ui::clipboard::store_image_as(&ctx.session.images(), &bytes, ext)
        .map_err(|e| e.to_string())
}

/// An `<attached-file>` block and the note for the user (` (cut at 100 KB of N)`).
pub fn file_block(shown: &str, path: &Path) -> Result<(String, String), String> {
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let total = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut buf = Vec::new();
    f.take(MAX_FILE as u64)
        .read_to_end(&mut buf)
        .map_err(|e| e.to_string())?;
    if buf.iter().take(8192).any(|b| *b == 0) {
        return Err("a binary file (only text files and images are attached)".into());
    }
    // Leave out a character cut at the end.
    let whole = match std::str::from_utf8(&buf) {
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        _ => buf.len(),
    };
    let text = String::from_utf8_lossy(&buf[..whole]);
    let text = crate::sandbox::env::redact(&text);
    let cut = total > buf.len() as u64;
    let note = if cut {
        format!(
            " (cut at {} KB of {} bytes)",
            MAX_FILE / 1024,
            crate::ui::title::thousands(total)
        )
    } else {
        format!(" ({} bytes)", crate::ui::title::thousands(total))
    };
    let mut block = format!(
        "<attached-file path=\"{shown}\">\n{}",
        text.trim_end_matches('\n')
    );
    if cut {
        block.push_str(&format!(
            "\n[… the file is cut here: {} KB of its {} bytes are attached; read the rest with the Read tool …]",
            MAX_FILE / 1024,
            total
        ));
    }
    block.push_str("\n</attached-file>");
    Ok((block, note))
}

fn folder_block(shown: &str, path: &Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(path)
        .map(|rd| {
            rd.flatten()
                .map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    if e.path().is_dir() {
                        format!("{n}/")
                    } else {
                        n
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let more = names.len().saturating_sub(MAX_ENTRIES);
    names.truncate(MAX_ENTRIES);
    let mut block = format!("<attached-folder path=\"{shown}\">\n{}", names.join("\n"));
    if more > 0 {
        block.push_str(&format!("\n[… {more} more entries …]"));
    }
    block.push_str("\n</attached-folder>");
    block
}

/// Output lines shown for a `!cmd` at most (head and tail); the model gets all of it.
const SHOWN_HEAD: usize = 10;
const SHOWN_TAIL: usize = 20;

/// A long output as its first and last lines around a `… N more lines` note, so a
/// `!cat big.log` does not flood the screen.
pub fn screen_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= SHOWN_HEAD + SHOWN_TAIL + 1 {
        return text.to_string();
    }
    let hidden = lines.len() - SHOWN_HEAD - SHOWN_TAIL;
    format!(
        "{}\n… {hidden} more lines …\n{}",
        lines[..SHOWN_HEAD].join("\n"),
        lines[lines.len() - SHOWN_TAIL..].join("\n")
    )
}

/// `!cmd`: run it as the Bash tool would, show the output, keep it for the next message.
pub fn shell(ctx: &AgentCtx, cmd: &str) {
    if cmd.is_empty() {
        ctx.out
            .print("Usage: !COMMAND runs COMMAND in the shell now.\n");
        return;
    }
    ctx.cancel.reset();
    ctx.running.store(true, std::sync::atomic::Ordering::SeqCst);
    let input = serde_json::json!({ "command": cmd });
    let out = crate::tools::run(ctx, "user_shell", "Bash", &input);
    ctx.running
        .store(false, std::sync::atomic::Ordering::SeqCst);
    let text = screen_lines(out.display.trim_end_matches('\n'));
    ctx.out.print(&format!("$ {cmd}\n{text}\n"));
    ctx.slash.add_pending(format!(
        "<user-shell-command command={}>\n{}\n</user-shell-command>",
        serde_json::Value::String(cmd.to_string()),
        out.conv.trim_end_matches('\n')
    ));
    ctx.out
        .note("(this output goes to the model with your next message)");
}

#[cfg(test)]
mod tests {
    use super::screen_lines;

    #[test]
    fn long_outputs_are_cut_for_the_screen() {
        let short: String = (1..=31).map(|i| format!("l{i}\n")).collect();
        assert_eq!(screen_lines(short.trim_end()), short.trim_end());
        let long: String = (1..=100).map(|i| format!("l{i}\n")).collect();
        let s = screen_lines(long.trim_end());
        assert!(s.starts_with("l1\nl2\n"));
        assert!(s.contains("l10\n… 70 more lines …\nl81\n"));
        assert!(s.ends_with("l100"));
    }
}
