//! Human display of RESP frames (docs/replay.md, "Display").
//!
//! Tracks the last printed byte (initially `\n`) and whether the previous frame was
//! THINKING. Colours are emitted only when `color` is true (the caller decides from
//! TTY/NO_COLOR); `interactive` adds `\r ESC[K` before TEXT/THINKING/TOOL_CALL at a line
//! start (it erases a `> ` prompt); `collapse` (the interactive agent) cuts a long tool
//! result to its first and last lines and `… N lines` (the full output stays in
//! events.jsonl). With markdown on
//! ([`Display::enable_markdown`]), TEXT is rendered per completed line (`ui::markdown`).
//! ERROR goes to `err`, everything else to `out`.
//! Write errors are ignored: a closed terminal must not stop the agent.
use crate::ipc::resp::Frame;
use std::io::Write;

const GREY: &str = "\x1b[90m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const PURPLE: &str = "\x1b[35m";
const CYAN: &str = "\x1b[36m";
const RESET: &str = "\x1b[0m";

/// Display state: last printed char and whether the previous frame was THINKING.
pub struct Display {
    pub interactive: bool,
    pub color: bool,
    /// Collapse long tool results (the interactive agent; `--replay` shows them whole).
    pub collapse: bool,
    last_char: u8,
    prev_thinking: bool,
    md: Option<crate::ui::markdown::Markdown>,
    /// Shown the markdown renderer's pending line (interactive: the printer's live region).
    preview: Option<Preview>,
}

/// Where a pending (not yet complete) line is shown meanwhile.
pub type Preview = Box<dyn Fn(&str) + Send>;

/// Tool results longer than this many lines are collapsed in interactive mode.
const COLLAPSE_OVER: usize = 8;
/// Lines kept at each end of a collapsed result.
const COLLAPSE_KEEP: usize = 3;

/// `body` cut to its first and last lines around a `… N lines` note.
pub fn collapse(body: &[u8], color: bool) -> Vec<u8> {
    let text = body.strip_suffix(b"\n").unwrap_or(body);
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if lines.len() <= COLLAPSE_OVER {
        return body.to_vec();
    }
    let hidden = lines.len() - 2 * COLLAPSE_KEEP;
    let note = if color {
        format!("{GREY}… {hidden} lines{RESET}")
    } else {
        format!("… {hidden} lines")
    };
    let mut parts: Vec<&[u8]> = lines[..COLLAPSE_KEEP].to_vec();
    parts.push(note.as_bytes());
    parts.extend_from_slice(&lines[lines.len() - COLLAPSE_KEEP..]);
    parts.join(&b'\n')
}

/// The first `n` chars of `s`, plus `more` when it was longer.
pub fn cut_chars(s: &str, n: usize, more: &str) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}{more}", &s[..i]),
        None => s.to_string(),
    }
}

/// Remove terminal escape sequences (CSI `ESC[…x`, OSC `ESC]…BEL|ESC\`) from tool output.
pub fn strip_escapes(s: &[u8], keep_sgr: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] != 0x1b {
            out.push(s[i]);
            i += 1;
            continue;
        }
        match s.get(i + 1) {
            Some(b'[') => {
                let mut j = i + 2;
                while j < s.len() && !(0x40..=0x7e).contains(&s[j]) {
                    j += 1;
                }
                let end = (j + 1).min(s.len());
                if keep_sgr && s.get(j) == Some(&b'm') {
                    out.extend_from_slice(&s[i..end]);
                }
                i = end;
            }
            Some(b']') => {
                let mut j = i + 2;
                while j < s.len() && s[j] != 0x07 && !(s[j] == 0x1b && s.get(j + 1) == Some(&b'\\'))
                {
                    j += 1;
                }
                i = if j < s.len() && s[j] == 0x1b {
                    j + 2
                } else {
                    j + 1
                };
            }
            _ => i += 1,
        }
    }
    out
}

/// The label shown in `[tool] Name(label)` for a TOOL_CALL frame (the member the tool
/// table names, from the frame's key/value pairs).
pub fn tool_label(frame: &Frame) -> String {
    let Some(key) = crate::tools::lookup(&frame.field(1)).and_then(|t| t.label_key) else {
        return String::new();
    };
    let mut i = 4;
    let mut v = String::new();
    while i + 1 < frame.len() {
        if frame.raw(i) == key.as_bytes() {
            v = frame.field(i + 1);
            break;
        }
        i += 2;
    }
    if key == "command" {
        v = v.replace('\n', " ");
        if v.chars().count() > 80 {
            v = cut_chars(&v, 77, "...");
        }
    }
    v
}

impl Display {
    pub fn new(interactive: bool, color: bool) -> Display {
        Display {
            interactive,
            color,
            collapse: false,
            last_char: b'\n',
            prev_thinking: false,
            md: None,
            preview: None,
        }
    }

    /// Where the line markdown holds back until it is complete is shown meanwhile.
    pub fn set_preview(&mut self, f: Preview) {
        self.preview = Some(f);
    }

    /// Render TEXT as markdown (a colour terminal without `--no-markdown`).
    pub fn enable_markdown(&mut self) {
        self.md = Some(crate::ui::markdown::Markdown::new());
    }

    /// Show what the markdown renderer holds back (a partial line, a table).
    fn flush_markdown(&mut self, out: &mut dyn Write) {
        if let Some(md) = self.md.as_mut() {
            let s = md.flush();
            if let Some(f) = &self.preview {
                f("");
            }
            if !s.is_empty() {
                self.put(out, s.as_bytes());
            }
        }
    }

    /// True when the output is at the start of a line.
    pub fn at_line_start(&self) -> bool {
        self.last_char == b'\n'
    }

    fn put(&mut self, out: &mut dyn Write, bytes: &[u8]) {
        if let Some(&b) = bytes.last() {
            let _ = out.write_all(bytes);
            self.last_char = b;
        }
    }

    fn colored(&mut self, out: &mut dyn Write, color: &str, text: &[u8]) {
        if self.color {
            let _ = out.write_all(color.as_bytes());
            self.put(out, text);
            let _ = out.write_all(RESET.as_bytes());
        } else {
            self.put(out, text);
        }
    }

    fn ensure_nl(&mut self, out: &mut dyn Write) {
        if self.last_char != b'\n' {
            self.put(out, b"\n");
        }
    }

    fn erase_prompt(&mut self, out: &mut dyn Write) {
        if self.interactive && self.last_char == b'\n' {
            let _ = out.write_all(b"\r\x1b[K");
        }
    }

    fn line(&mut self, out: &mut dyn Write, color: &str, text: &str) {
        self.ensure_nl(out);
        self.colored(out, color, text.as_bytes());
        self.put(out, b"\n");
    }

    /// Print any pending newline so the next output starts on a fresh line.
    pub fn finish(&mut self, out: &mut dyn Write) {
        self.flush_markdown(out);
        self.ensure_nl(out);
        let _ = out.flush();
    }

    /// Render one frame: normal output to `out`, errors to `err`.
    pub fn render(&mut self, frame: &Frame, out: &mut dyn Write, err: &mut dyn Write) {
        let was_thinking = std::mem::replace(&mut self.prev_thinking, false);
        if frame.kind() != "TEXT" {
            self.flush_markdown(out);
        }
        match frame.kind() {
            "TEXT" => {
                let t = frame.raw(1);
                if t.is_empty() {
                    self.prev_thinking = was_thinking;
                    return;
                }
                self.erase_prompt(out);
                if was_thinking && self.last_char != b'\n' {
                    self.put(out, b"\n");
                }
                match self.md.as_mut() {
                    Some(md) => {
                        let s = md.push(&String::from_utf8_lossy(t));
                        if let Some(f) = &self.preview {
                            f(&md.preview());
                        }
                        self.put(out, s.as_bytes());
                    }
                    None => self.put(out, t),
                }
            }
            "THINKING" => {
                let t = frame.raw(1).to_vec();
                if !t.is_empty() {
                    self.erase_prompt(out);
                    self.colored(out, GREY, &t);
                }
                self.prev_thinking = true;
            }
            "TOOL_CALL" => {
                self.erase_prompt(out);
                let text = format!("[tool] {}({})", frame.field(1), tool_label(frame));
                self.line(out, YELLOW, &text);
            }
            "TOOL_RESULT" => self.tool_result(frame, out, was_thinking),
            "AGENT_RESULT" | "SUB_AGENT_RESULT" => self.agent_result(frame, out),
            "ASYNC_TASK_RESULT" => {
                let (id, code) = (frame.field(1), frame.field(2));
                if code == "0" {
                    self.line(
                        out,
                        CYAN,
                        &format!("[async-task {id}] completed (exit_code=0)"),
                    );
                } else {
                    let t = format!("[async-task {id}] failed (exit_code={code})");
                    self.line(out, RED, &t);
                }
                let o = frame.field(3);
                let o = cut_chars(&o, 120, "…");
                let o = o.trim_end_matches('\n');
                if !o.is_empty() {
                    self.put(out, o.as_bytes());
                    self.put(out, b"\n");
                }
            }
            "USER_NOTIFY" => {
                self.line(out, YELLOW, &format!("[user inject] {}", frame.field(1)));
            }
            "USER_MESSAGE" => {
                let c = frame.field(1);
                let first = c.split('\n').next().unwrap_or(""); // ok: split yields at least one item
                let first = if first.chars().count() > 80 {
                    cut_chars(first, 77, "...")
                } else {
                    first.to_string()
                };
                self.line(out, GREEN, &format!("> {first}"));
            }
            "STOP" => {
                if let Some(md) = self.md.as_mut() {
                    md.reset();
                }
                self.ensure_nl(out);
                if frame.raw(1) == b"interrupted" {
                    self.line(out, CYAN, "Interrupted.");
                }
            }
            "REWIND" => {
                let (to, turns, files) = (frame.field(2), frame.field(3), frame.field(4));
                let msg = if frame.field(1) == "undo" {
                    format!("Rewind undone: turn {to} onward is back ({turns} turn(s), {files} file(s) put back).")
                } else {
                    format!("Rewound to just before turn {to} ({turns} turn(s) archived, {files} file(s) restored).")
                };
                self.line(out, CYAN, &msg);
            }
            "CONTEXT_UPDATE" => {
                self.line(
                    out,
                    CYAN,
                    &format!("Context compacted ({}).", frame.field(2)),
                );
            }
            "ERROR" => {
                self.ensure_nl(out);
                let _ = out.flush();
                let msg = format!("Error: {}", frame.field(1));
                if self.color {
                    let _ = writeln!(err, "{RED}{msg}{RESET}");
                } else {
                    let _ = writeln!(err, "{msg}");
                }
                let _ = err.flush();
            }
            _ => self.prev_thinking = was_thinking,
        }
        let _ = out.flush();
    }

    fn tool_result(&mut self, frame: &Frame, out: &mut dyn Write, was_thinking: bool) {
        let raw = frame.raw(3);
        let body: &[u8] = match frame.field(2).as_str() {
            "Read" | "Write" => raw.split(|&b| b == b'\n').next().unwrap_or(raw),
            _ => raw,
        };
        // The reference prints tool output verbatim; we drop title/OSC sequences always
        // and colours when colours are off.
        let mut body = strip_escapes(body, self.color);
        if self.collapse {
            body = collapse(&body, self.color);
        }
        if was_thinking && self.last_char != b'\n' {
            self.put(out, b"\n");
        }
        self.put(out, &body);
        self.put(out, b"\n");
    }

    fn agent_result(&mut self, frame: &Frame, out: &mut dyn Write) {
        let sid = frame.field(1);
        if frame.field(2) == "ok" {
            let t = format!(
                "[sub-agent {sid}] completed (in={}, out={})",
                frame.field(3),
                frame.field(4)
            );
            self.line(out, PURPLE, &t);
        } else {
            self.line(out, RED, &format!("[sub-agent {sid}] failed"));
        }
        let thinking = frame.field(5);
        if !thinking.is_empty() {
            let t = cut_chars(&thinking, 120, "…");
            self.colored(out, GREY, t.as_bytes());
            self.put(out, b"\n");
        }
        let text = frame.field(6);
        if !text.is_empty() {
            let t = cut_chars(&text, 120, "…");
            self.put(out, t.as_bytes());
            self.put(out, b"\n");
        }
    }
}

#[cfg(test)]
mod tests;
