//! `--follow [N]` with `--session NAME` or `--continue`: attach read-only to a session, show
//! its last N turns, then render each events.jsonl line as its agent appends it (the human
//! display, or the raw lines with `--output-format stream-json`), until the agent ends (its
//! lock is free) or Ctrl-C. Nothing is written to the session.
use crate::cli::Opts;
use crate::error::{Error, Result};
use crate::options::OutputFormat;
use crate::ui::display::Display;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub fn cmd_follow(o: &Opts) -> Result {
    let turns: usize = o
        .follow
        .as_deref()
        .unwrap_or("10")
        .trim()
        .parse()
        .map_err(|_| {
            Error::usage(format!(
                "Invalid --follow: {}",
                o.follow.as_deref().unwrap_or("")
            ))
        })?;
    let stream = crate::config::output_format(o)? == OutputFormat::StreamJson;
    let project = crate::session::select::project_dir()?;
    let session = crate::session::select::existing(o, &project, "follow")?;
    let path = session.events();
    let stop = Arc::new(AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, stop.clone());
    let _ = signal_hook::flag::register(signal_hook::consts::SIGTERM, stop.clone());
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut display = Display::new(false, color);
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr();
    let bytes = std::fs::read(&path)
        .map_err(|e| Error::runtime(format!("cannot read {}: {e}", path.display())))?;
    let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let history = &bytes[..end];
    let mut offset = end as u64;
    let mut show = |line: &[u8], out: &mut dyn Write, d: &mut Display| {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if stream {
            let text = String::from_utf8_lossy(line);
            let clean = crate::agent::headless::strip_line_escapes(&text);
            let _ = out.write_all(clean.as_bytes());
            let _ = out.write_all(b"\n");
        } else {
            crate::ui::replay::line_frames(line, true, &mut |fr| d.render(&fr, out, &mut err));
        }
        let _ = out.flush();
    };
    // The last N turns: from the Nth-last user_input line on.
    let lines: Vec<&[u8]> = history.split(|&b| b == b'\n').collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with(b"{\"type\":\"user_input\""))
        .map(|(i, _)| i)
        .collect();
    let from = if turns == 0 {
        lines.len()
    } else if starts.len() > turns {
        starts[starts.len() - turns]
    } else {
        0
    };
    for l in &lines[from..] {
        show(l, &mut out, &mut display);
    }
    loop {
        let running = crate::session::lock::holder(&session.dir).is_some();
        let data = read_from(&path, offset).unwrap_or_default();
        let whole = data.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        for l in data[..whole].split(|&b| b == b'\n') {
            show(l, &mut out, &mut display);
        }
        offset += whole as u64;
        if !running || stop.load(Ordering::SeqCst) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    if !stream {
        display.finish(&mut out);
    }
    let _ = out.flush();
    Ok(())
}

/// The bytes of `path` from `offset` on.
fn read_from(path: &std::path::Path, offset: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = crate::util::fsx::open_read(path)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut buf = Vec::new();
    f.read_to_end(&mut buf)?;
    Ok(buf)
}
