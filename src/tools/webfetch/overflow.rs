//! A page whose text is longer than the result cap (`TOOL_RESULT_MAX_BYTES`, 100 KB by
//! default): the whole markdown is saved in the session folder (`webfetch/`) and the result
//! shows its first lines with a note naming the file and the Read offset to read on from. A
//! Wikipedia article of 364 KB was cut at 100 KB with no way to read the rest.
use std::path::{Path, PathBuf};

/// `head` (the URL/status lines) and `body` (the page's text) within `max` bytes. When the
/// two are longer, `body` is saved whole under `dir` and cut at a line; the note says where
/// it continues. `None` when they fit as they are.
pub fn fit(dir: &Path, head: &str, body: &str, max: usize) -> Option<String> {
    if head.len() + 1 + body.len() <= max {
        return None;
    }
    let total = body.lines().count();
    let saved = save(dir, body);
    // Room for the note (a path and a few numbers) and the head.
    let room = max.saturating_sub(head.len() + 600);
    let mut cut = 0;
    let mut lines = 0;
    for (k, line) in body.split_inclusive('\n').enumerate() {
        if cut + line.len() > room {
            break;
        }
        cut += line.len();
        lines = k + 1;
    }
    let shown = body[..cut].trim_end();
    let note = match saved {
        Ok(path) => format!(
            "[... the page's text is {} bytes ({total} lines), over the {max}-byte result cap: lines 1-{lines} are shown. The whole text is saved in {}: read on with Read (path as given, offset={}) ...]",
            body.len(),
            path.display(),
            lines + 1
        ),
        Err(e) => format!(
            "[... the page's text is {} bytes ({total} lines), over the {max}-byte result cap: lines 1-{lines} are shown; the whole text could not be saved ({e}) ...]",
            body.len()
        ),
    };
    Some(format!("{head}\n{shown}\n\n{note}"))
}

/// Write `body` to a new file under `dir` (created), atomically; its path.
fn save(dir: &Path, body: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let name = format!(
        "{}-{:04x}.md",
        crate::util::time::now_millis(),
        crate::util::random_u64() & 0xffff
    );
    let path = dir.join(name);
    // Redacted like every result: a key a page echoes goes no further.
    let body = crate::sandbox::env::redact(body);
    crate::util::fsx::write_atomic(&path, body.as_bytes())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn a_long_page_is_saved_whole_and_the_note_says_where_to_read_on() {
        let d = tempfile::tempdir().unwrap();
        let body: String = (1..=5000).map(|i| format!("paragraph {i}\n\n")).collect();
        assert!(fit(d.path(), "URL: u\n", "short", 1000).is_none());
        let out = fit(d.path(), "URL: u\n", &body, 20_000).unwrap();
        assert!(out.len() <= 20_000, "{}", out.len());
        assert!(out.starts_with("URL: u\n\nparagraph 1\n"));
        let path = out
            .split("saved in ")
            .nth(1)
            .unwrap()
            .split(':')
            .next()
            .unwrap();
        assert_eq!(std::fs::read_to_string(path).unwrap(), body);
        // The offset is the first line not shown.
        let offset: usize = out
            .split("offset=")
            .nth(1)
            .unwrap()
            .split(')')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let shown = out.lines().filter(|l| l.starts_with("paragraph")).count();
        let last_shown = body.lines().nth(offset - 2).unwrap();
        assert!(
            out.contains(&format!("{last_shown}\n\n[...")),
            "{last_shown}"
        );
        assert!(shown > 100 && offset > shown);
    }
}
