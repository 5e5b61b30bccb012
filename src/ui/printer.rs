//! The writer the runtime's display uses while the line editor runs.
//!
//! rustyline's external printer clears the prompt, prints a message, ends it with a
//! newline if needed and redraws the prompt with the half-typed line. So output is
//! handed over in whole lines; a partial line is held back until its newline arrives
//! (never cut at the terminal width: the terminal soft-wraps it, so a copy gives the
//! original text and a resize reflows it). An active colour is closed at the end of each
//! message and reopened with the next. When the editor is not running, bytes go straight
//! to stdout.
//!
//! Between the transcript and the prompt sits the *live region* ([`Printer::set_live`]):
//! the line being streamed (the held partial line, or the markdown renderer's pending line
//! from [`Printer::set_preview`]; soft-wrapped, its rows counted), the last lines of a
//! running tool and the status line of a running turn. Every message
//! first erases it (cursor up over its rows, clear to the end of the screen), prints the
//! transcript lines, and draws it again, so it never mixes into the transcript; setting
//! it empty removes it, rows and all.
pub use super::cells::{char_width, fit, term_cols, width};
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// Something that prints a message above the prompt (rustyline's ExternalPrinter).
pub trait Sink: Send {
    fn print(&mut self, msg: String) -> io::Result<()>;
}

impl<T: rustyline::ExternalPrinter + Send> Sink for T {
    fn print(&mut self, msg: String) -> io::Result<()> {
        rustyline::ExternalPrinter::print(self, msg).map_err(|e| io::Error::other(e.to_string()))
    }
}

struct Inner {
    sink: Option<Box<dyn Sink>>,
    partial: Vec<u8>,
    /// The last SGR sequence sent when it was not a reset (reopened after a cut).
    sgr: Vec<u8>,
    cols: usize,
    /// The live region wanted below the transcript (lines without newlines).
    live: Vec<String>,
    /// Display widths of the live lines now on screen (their rows are recounted with the
    /// current width when erased: a terminal reflows them on a resize).
    shown: Vec<usize>,
    /// The pending line another layer holds back (markdown), shown like a partial line.
    preview: String,
    last_draw: Option<std::time::Instant>,
}

/// Rows a streamed line may take in the live region (longer ones show their end).
const PREVIEW_ROWS: usize = 6;

/// `text` made safe to draw in the live region (no controls but escapes, tabs as spaces,
/// colours closed), at most `max` columns: the end of a longer one, after `…`.
fn preview_text(text: &str, max: usize) -> String {
    let clean: String = text
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            '\x1b' => Some(c),
            c if (c as u32) < 0x20 || c == '\x7f' => None,
            c => Some(c),
        })
        .collect();
    let mut out = if width(&clean) <= max {
        clean
    } else {
        let mut tail: Vec<char> = Vec::new();
        let mut w = 1;
        for c in clean.chars().rev() {
            let cw = char_width(c);
            if w + cw > max {
                break;
            }
            w += cw;
            tail.push(c);
        }
        std::iter::once('…').chain(tail.into_iter().rev()).collect()
    };
    out.push_str("\x1b[0m");
    out
}

/// Whether `s` holds anything visible: not only CSI sequences and control bytes.
fn has_text(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            0x1b if s.get(i + 1) == Some(&b'[') => {
                i += 2;
                while i < s.len() && !(0x40..=0x7e).contains(&s[i]) {
                    i += 1;
                }
                i += 1;
            }
            b if b < 0x20 || b == 0x7f => i += 1,
            _ => return true,
        }
    }
    false
}

/// A cloneable, thread-safe writer (see the module docs).
#[derive(Clone)]
pub struct Printer(Arc<Mutex<Inner>>);

/// The last SGR sequence in `s` (empty if the last one was a reset or there is none).
fn last_sgr(s: &[u8], prev: &[u8]) -> Vec<u8> {
    let mut cur = prev.to_vec();
    let mut i = 0;
    while i + 1 < s.len() {
        if s[i] == 0x1b && s[i + 1] == b'[' {
            let mut j = i + 2;
            while j < s.len() && !(0x40..=0x7e).contains(&s[j]) {
                j += 1;
            }
            if j < s.len() && s[j] == b'm' {
                let seq = &s[i..=j];
                cur = if seq == b"\x1b[0m" || seq == b"\x1b[m" {
                    Vec::new()
                } else {
                    seq.to_vec()
                };
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
    cur
}

impl Inner {
    /// Cursor movements that erase the live region now on screen (the cursor stands at
    /// the start of the prompt's first row, which rustyline has just cleared).
    fn erase_live(&mut self) -> Vec<u8> {
        let cols = self.cols.max(1);
        let rows: usize = self.shown.drain(..).map(|w| w.max(1).div_ceil(cols)).sum();
        if rows == 0 {
            return Vec::new();
        }
        format!("\x1b[{rows}A\r\x1b[J").into_bytes()
    }

    /// Whether a live region is wanted (only above the line editor's prompt).
    fn wants_live(&self) -> bool {
        self.sink.is_some()
            && (!self.live.is_empty() || has_text(&self.partial) || !self.preview.is_empty())
    }

    /// The live region: the streamed line (wrapping), then the live lines cut to fit one
    /// row each, joined (no final newline: the external printer adds it before the prompt).
    fn draw_live(&mut self) -> Vec<u8> {
        let cols = self.cols.max(1);
        let max = cols.saturating_sub(1).max(1);
        let mut rows: Vec<String> = Vec::new();
        // A partial line of escapes only (the display's prompt erase, `\r\x1b[K`, before
        // a markdown line it holds back) shows the markdown renderer's pending line.
        let streamed = if !has_text(&self.partial) {
            self.preview.clone()
        } else {
            String::from_utf8_lossy(&self.partial).into_owned()
        };
        if !streamed.is_empty() {
            let reopen = String::from_utf8_lossy(&self.sgr).into_owned();
            rows.push(preview_text(
                &format!("{reopen}{streamed}"),
                PREVIEW_ROWS * cols - 1,
            ));
        }
        rows.extend(self.live.iter().map(|l| fit(l, max)));
        self.shown = rows.iter().map(|l| width(l)).collect();
        self.last_draw = Some(std::time::Instant::now());
        rows.join("\n").into_bytes()
    }

    fn send(&mut self, chunk: &[u8]) -> io::Result<()> {
        let reopen = std::mem::take(&mut self.sgr);
        self.sgr = last_sgr(chunk, &reopen);
        let mut msg = if self.sink.is_some() {
            self.erase_live()
        } else {
            Vec::new()
        };
        msg.extend_from_slice(&reopen);
        msg.extend_from_slice(chunk);
        if !self.sgr.is_empty() {
            msg.extend_from_slice(b"\x1b[0m");
        }
        if self.wants_live() {
            let l = self.draw_live();
            msg.extend_from_slice(&l);
        }
        self.emit(msg)
    }

    /// Draw the live region again (or remove it when nothing is wanted any more).
    fn redraw(&mut self) -> io::Result<()> {
        if self.sink.is_none() {
            return Ok(());
        }
        self.cols = term_cols();
        let had = !self.shown.is_empty();
        let mut msg = self.erase_live();
        if self.wants_live() {
            let l = self.draw_live();
            msg.extend_from_slice(&l);
        } else if had {
            // The printer ends the message with a newline: step up one row more so the
            // prompt comes back where the live region started.
            msg.extend_from_slice(b"\x1b[1A");
        } else {
            return Ok(());
        }
        self.emit(msg)
    }

    fn emit(&mut self, msg: Vec<u8>) -> io::Result<()> {
        match self.sink.as_mut() {
            Some(s) => s.print(String::from_utf8_lossy(&msg).into_owned()),
            None => {
                let mut out = io::stdout().lock();
                out.write_all(&msg)?;
                out.flush()
            }
        }
    }

    fn pump(&mut self) -> io::Result<()> {
        if let Some(nl) = self.partial.iter().rposition(|&b| b == b'\n') {
            let rest = self.partial.split_off(nl + 1);
            let lines = std::mem::replace(&mut self.partial, rest);
            self.send(&lines)?;
        } else if !self.partial.is_empty() && self.sink.is_some() {
            // The streamed line grows: show it in the live region, a few times a second.
            let due = self
                .last_draw
                .is_none_or(|t| t.elapsed() >= std::time::Duration::from_millis(50));
            if due {
                self.redraw()?;
            }
        }
        Ok(())
    }
}

impl Printer {
    /// Output through `sink` (above the prompt); `None` = straight to stdout.
    pub fn new(sink: Option<Box<dyn Sink>>, cols: usize) -> Printer {
        Printer(Arc::new(Mutex::new(Inner {
            sink,
            partial: Vec::new(),
            sgr: Vec::new(),
            cols,
            live: Vec::new(),
            shown: Vec::new(),
            preview: String::new(),
            last_draw: None,
        })))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Print any held-back partial line (ended by a newline).
    pub fn flush_partial(&self) {
        let mut g = self.lock();
        if !g.partial.is_empty() {
            let mut p = std::mem::take(&mut g.partial);
            p.push(b'\n');
            let _ = g.send(&p);
        }
    }

    /// Stop using the sink (the editor has ended): flush, then write to stdout directly.
    pub fn detach(&self) {
        self.flush_partial();
        self.lock().sink = None;
    }

    /// Update the terminal width (after a resize).
    pub fn set_cols(&self, cols: usize) {
        self.lock().cols = cols;
    }

    /// Start printing through `sink` (the line editor is up).
    pub fn attach(&self, sink: Box<dyn Sink>) {
        self.lock().sink = Some(sink);
    }

    /// Whether output goes above the line editor's prompt (a live region can be shown).
    pub fn has_sink(&self) -> bool {
        self.lock().sink.is_some()
    }

    /// Show `lines` as the live region below the transcript (empty: remove it). Redrawn
    /// at once, and after every message until changed.
    pub fn set_live(&self, lines: Vec<String>) {
        let mut g = self.lock();
        g.live = lines;
        let _ = g.redraw();
    }

    /// The line another layer holds back until it is complete (drawn with the live region
    /// at its next redraw; empty: none).
    pub fn set_preview(&self, text: &str) {
        let mut g = self.lock();
        if g.preview != text {
            g.preview = text.to_string();
            // The streamed line grows: show it a few times a second.
            let due = g
                .last_draw
                .is_none_or(|t| t.elapsed() >= std::time::Duration::from_millis(50));
            if due && !text.is_empty() && !has_text(&g.partial) {
                let _ = g.redraw();
            }
        }
    }

    /// The line editor returned a line: print it again as a transcript line (the editor
    /// erased its prompt row), above the live region.
    pub fn echo(&self, line: String) {
        let mut g = self.lock();
        let mut line = line.into_bytes();
        line.push(b'\n');
        let _ = g.send(&line);
    }
}

impl Write for Printer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut g = self.lock();
        if g.sink.is_none() && g.partial.is_empty() {
            let mut out = io::stdout().lock();
            out.write_all(buf)?;
            return Ok(buf.len());
        }
        g.partial.extend_from_slice(buf);
        g.pump()?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let g = self.lock();
        if g.sink.is_none() {
            io::stdout().flush()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rec(Arc<Mutex<Vec<String>>>);
    impl Sink for Rec {
        fn print(&mut self, msg: String) -> io::Result<()> {
            self.0.lock().map_err(|_| io::ErrorKind::Other)?.push(msg);
            Ok(())
        }
    }

    fn printer(cols: usize) -> (Printer, Arc<Mutex<Vec<String>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        (Printer::new(Some(Box::new(Rec(log.clone()))), cols), log)
    }

    /// The transcript the messages leave: each one's live-region erase and redraw dropped.
    fn transcript(log: &Arc<Mutex<Vec<String>>>) -> String {
        let mut t = String::new();
        for m in log.lock().expect("l").iter() {
            let m = match m.find("\r\x1b[J") {
                Some(i) if m.starts_with("\x1b[") => &m[i + 4..],
                _ => m.as_str(),
            };
            if let Some(nl) = m.rfind('\n') {
                t.push_str(&m[..=nl]);
            }
        }
        t
    }

    #[test]
    fn whole_lines_only() {
        let (mut p, log) = printer(80);
        p.write_all(b"Hel").expect("w");
        // The partial line shows in the live region, not in the transcript.
        assert_eq!(*log.lock().expect("l"), vec!["Hel\x1b[0m".to_string()]);
        p.write_all(b"lo\nwor").expect("w");
        assert_eq!(transcript(&log), "Hello\n");
        p.write_all(b"ld\n").expect("w");
        p.write_all(b"tail").expect("w");
        p.flush_partial();
        assert_eq!(transcript(&log), "Hello\nworld\ntail\n");
    }

    #[test]
    fn escapes_alone_are_no_streamed_text() {
        assert!(!has_text(b"\r\x1b[K"));
        assert!(!has_text(b""));
        assert!(has_text(b"\r\x1b[Kab"));
        assert!(has_text(b"\x1b[1mx"));
    }

    #[test]
    fn long_lines_are_held_whole_and_colours_reopened() {
        let (mut p, log) = printer(4);
        p.write_all(b"\x1b[90mabcdefghij").expect("w");
        assert_eq!(transcript(&log), "");
        p.write_all(b"\x1b[0m\nnext\n").expect("w");
        assert_eq!(transcript(&log), "\x1b[90mabcdefghij\x1b[0m\nnext\n");
        assert_eq!(preview_text("a\tb\x07c", 10), "a bc\x1b[0m");
        assert_eq!(preview_text("abcdef", 4), "…def\x1b[0m");
    }

    #[test]
    fn the_live_region_is_erased_and_redrawn_around_messages() {
        let (mut p, log) = printer(80);
        p.set_live(vec!["status".into()]);
        p.write_all(b"text\n").expect("w");
        p.set_live(Vec::new());
        let l = log.lock().expect("l");
        assert_eq!(l[0], "status");
        assert_eq!(l[1], "\x1b[1A\r\x1b[Jtext\nstatus");
        assert_eq!(l[2], "\x1b[1A\r\x1b[J\x1b[1A");
        assert_eq!(width("\x1b[1mab世\x1b[0m"), 4);
        assert_eq!(fit("abcdef", 4), "abc…\x1b[0m");
    }
}
