//! Read (docs/tools-and-policy.md): `cat -n` style numbered lines, offset/limit, a byte cap with
//! a note saying where to continue, binary files refused, invalid UTF-8 replaced.
use super::common::{arg, int, resolve};
use super::truncate::{file_summary, floor_boundary};
use super::{ToolHost, ToolOutput};
use serde_json::Value;
use std::io::{BufRead, BufReader, ErrorKind, Read};

/// Room kept for the continuation note below the byte cap.
const NOTE_ROOM: usize = 200;

fn open_error(e: &std::io::Error, p: &str) -> String {
    match e.kind() {
        ErrorKind::PermissionDenied => format!("permission denied: {p}"),
        ErrorKind::NotFound => format!("file not found: {p}"),
        _ => format!("cannot read {p}: {e}"),
    }
}

pub fn run(ctx: &dyn ToolHost, input: &Value) -> ToolOutput {
    let max = ctx.limits().max_result_bytes;
    let p = arg(input, "path");
    if p.is_empty() {
        return ToolOutput::error("no path provided", max);
    }
    let (offset, limit) = match (int(input, "offset"), int(input, "limit")) {
        (Ok(o), Ok(l)) => (o, l),
        (Err(e), _) | (_, Err(e)) => return ToolOutput::error(&e, max),
    };
    let path = resolve(ctx, &p);
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) => return ToolOutput::error(&open_error(&e, &p), max),
    };
    if !meta.is_file() {
        return ToolOutput::error(&format!("file not found: {p}"), max);
    }
    let file = match crate::util::fsx::open_read(&path) {
        Ok(f) => f,
        Err(e) => return ToolOutput::error(&open_error(&e, &p), max),
    };
    let mut rd = BufReader::with_capacity(64 * 1024, file);
    // Binary check on the first 8 KiB (what `grep`/`git` look at).
    match rd.fill_buf() {
        Ok(head) => {
            let n = head.len().min(8192);
            if head[..n].contains(&0) {
                return ToolOutput::error(
                    &format!(
                        "{p} is a binary file ({} bytes); Read shows text files only",
                        meta.len()
                    ),
                    max,
                );
            }
        }
        Err(e) => return ToolOutput::error(&open_error(&e, &p), max),
    }
    let first = offset.unwrap_or(1).max(1) as usize;
    let count = limit.filter(|&l| l > 0).map(|l| l as usize);
    let budget = max.saturating_sub(NOTE_ROOM).max(64);
    let mut out = String::new();
    let mut buf = Vec::new();
    let mut n = 0usize;
    let mut shown = 0usize;
    let mut stopped_at: Option<usize> = None;
    loop {
        buf.clear();
        match rd.by_ref().read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return ToolOutput::error(&format!("cannot read {p}: {e}"), max),
        }
        n += 1;
        if n < first || stopped_at.is_some() || count.is_some_and(|c| shown >= c) {
            continue;
        }
        let nl = buf.last() == Some(&b'\n');
        let body = if nl { &buf[..buf.len() - 1] } else { &buf[..] };
        let mut line = format!("{n:6}\t{}", String::from_utf8_lossy(body));
        if out.len() + line.len() + 1 > budget {
            if shown == 0 {
                // A single line larger than the cap: show its start.
                let cut = floor_boundary(&line, budget);
                line.truncate(cut);
                out.push_str(&line);
                out.push_str(&format!("\n[... line {n} cut after {cut} bytes ...]\n"));
                shown += 1;
                stopped_at = Some(n + 1);
            } else {
                stopped_at = Some(n);
            }
            continue;
        }
        out.push_str(&line);
        if nl {
            out.push('\n');
        }
        shown += 1;
    }
    let total = n;
    if let Some(next) = stopped_at.filter(|&s| s <= total) {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!(
            "[... output truncated at {max} bytes: showing lines {first}-{} of {total}; use offset={next} to continue ...]\n",
            next - 1
        ));
    } else if first > total && total > 0 {
        out = format!("(offset {first} is past the end of the file: {total} lines)\n");
    }
    let limit_shown = count.or(if limit.is_some() { Some(total) } else { None });
    let off_shown = offset.map(|_| first);
    let summary = file_summary("Read", &p, total, meta.len(), off_shown, limit_shown);
    let conv = super::truncate::truncate(&out, max);
    ToolOutput {
        ok: true,
        display: format!("{summary}\n{conv}"),
        conv,
        checklist: None,
    }
}
