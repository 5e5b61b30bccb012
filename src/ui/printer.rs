//! The writer the runtime's display uses while the line editor runs.
//!
//! rustyline's external printer clears the prompt, prints a message, ends it with a
//! newline if needed and redraws the prompt with the half-typed line. So output is
//! handed over in whole lines; a partial line is held back until its newline arrives, or
//! until it fills whole terminal rows (then the cut falls where the terminal would wrap
//! anyway). An active colour is closed before the cut and reopened after it. When the
//! editor is not running, bytes go straight to stdout.
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
}

/// A cloneable, thread-safe writer (see the module docs).
#[derive(Clone)]
pub struct Printer(Arc<Mutex<Inner>>);

/// Terminal columns of stdout (80 when unknown).
pub fn term_cols() -> usize {
    let mut ws: libc::winsize = unsafe { std::mem::zeroed() }; // ok: plain C struct
                                                               // SAFETY: TIOCGWINSZ fills a winsize struct we own.
    let r = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) };
    if r == 0 && ws.ws_col > 0 {
        ws.ws_col as usize
    } else {
        80
    }
}

fn char_width(c: char) -> usize {
    let cp = c as u32;
    let wide = matches!(cp,
        0x1100..=0x115f | 0x2e80..=0xa4cf | 0xac00..=0xd7a3 | 0xf900..=0xfaff |
        0xfe30..=0xfe4f | 0xff00..=0xff60 | 0xffe0..=0xffe6 | 0x1f300..=0x1f64f |
        0x1f900..=0x1f9ff | 0x20000..=0x3fffd);
    if wide {
        2
    } else if cp < 0x20 || (0x300..0x370).contains(&cp) {
        0
    } else {
        1
    }
}

/// The byte length of the longest prefix of `s` that fills whole rows of `cols` columns
/// (0 when less than one row), skipping escape sequences; plus the last SGR seen in it.
fn full_rows_prefix(s: &str, cols: usize) -> usize {
    let cols = cols.max(1);
    let (mut col, mut cut) = (0usize, 0usize);
    let mut it = s.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c == '\x1b' {
            // Skip CSI/OSC sequences entirely.
            if let Some(&(_, '[')) = it.peek() {
                it.next();
                for (_, d) in it.by_ref() {
                    if ('\x40'..='\x7e').contains(&d) {
                        break;
                    }
                }
            } else if let Some(&(_, ']')) = it.peek() {
                for (_, d) in it.by_ref() {
                    if d == '\x07' {
                        break;
                    }
                }
            }
            continue;
        }
        let w = if c == '\t' {
            8 - col % 8
        } else {
            char_width(c)
        };
        if col + w > cols {
            // The char wraps: everything before it fills the row.
            cut = i;
            col = 0;
        }
        col += w;
        if col == cols {
            cut = i + c.len_utf8();
            col = 0;
        }
    }
    cut
}

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
    fn send(&mut self, chunk: &[u8]) -> io::Result<()> {
        let reopen = std::mem::take(&mut self.sgr);
        self.sgr = last_sgr(chunk, &reopen);
        let mut msg = reopen;
        msg.extend_from_slice(chunk);
        if !self.sgr.is_empty() {
            msg.extend_from_slice(b"\x1b[0m");
        }
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
        }
        let text = String::from_utf8_lossy(&self.partial).into_owned();
        if text.len() == self.partial.len() {
            let cut = full_rows_prefix(&text, self.cols);
            if cut > 0 {
                let rest = self.partial.split_off(cut);
                let rows = std::mem::replace(&mut self.partial, rest);
                self.send(&rows)?;
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

    #[test]
    fn whole_lines_only() {
        let (mut p, log) = printer(80);
        p.write_all(b"Hel").expect("w");
        p.write_all(b"lo\nwor").expect("w");
        assert_eq!(*log.lock().expect("l"), vec!["Hello\n".to_string()]);
        p.write_all(b"ld\n").expect("w");
        p.write_all(b"tail").expect("w");
        p.flush_partial();
        assert_eq!(
            *log.lock().expect("l"),
            vec!["Hello\n", "world\n", "tail\n"]
        );
    }

    #[test]
    fn full_rows_are_released_and_colours_reopened() {
        let (mut p, log) = printer(4);
        p.write_all(b"\x1b[90mabcdefghij").expect("w");
        assert_eq!(
            *log.lock().expect("l"),
            vec!["\x1b[90mabcdefgh\x1b[0m".to_string()]
        );
        p.write_all(b"\x1b[0m\n").expect("w");
        assert_eq!(log.lock().expect("l")[1], "\x1b[90mij\x1b[0m\n");
        assert_eq!(full_rows_prefix("世界x", 4), "世界".len());
        assert_eq!(full_rows_prefix("ab世", 3), 2);
        assert_eq!(full_rows_prefix("ab", 3), 0);
    }
}
