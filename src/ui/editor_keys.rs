//! Pieces of the interactive line editor: the rustyline helper (green prompt), the
//! Ctrl+O / Ctrl+V / Esc / `\`+Enter key handlers, and the history file shared with the shell version
//! (`<agent_home>/history`, one raw line per entry, appended).
use crate::ipc::resp::Frame;
use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Cmd, ConditionalEventHandler, Event, EventContext, Movement, RepeatCount};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// The plain prompt; the helper colours it.
pub const PROMPT: &str = "> ";

/// History entries loaded at start (the newest ones).
pub const HISTORY_LOAD: usize = 1000;

/// The rustyline helper: only the prompt colour.
pub struct EditorHelper {
    pub color: bool,
}

impl Completer for EditorHelper {
    type Candidate = String;
}
impl Hinter for EditorHelper {
    type Hint = String;
}
impl Validator for EditorHelper {}
impl rustyline::Helper for EditorHelper {}

impl Highlighter for EditorHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        default: bool,
    ) -> Cow<'b, str> {
        let _ = default;
        if self.color && prompt == PROMPT {
            Cow::Borrowed("\x1b[32m>\x1b[0m ")
        } else {
            Cow::Borrowed(prompt)
        }
    }
}

/// Ctrl+O: send the current line as a USER_NOTIFY into notify.fifo and clear it.
pub struct InjectHandler {
    pub notify_fifo: PathBuf,
}

impl ConditionalEventHandler for InjectHandler {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        let line = ctx.line();
        if line.trim().is_empty() {
            return Some(Cmd::Noop);
        }
        let frame = Frame::user_notify(line);
        match crate::ipc::fifo::write_frame(&self.notify_fifo, &frame) {
            Ok(()) => Some(Cmd::Kill(Movement::WholeBuffer)),
            // Nobody reads notify.fifo: keep the line so nothing typed is lost.
            Err(_) => Some(Cmd::Noop),
        }
    }
}

/// Esc: interrupt a running turn (at an idle prompt, rustyline's own Esc). With
/// `then_interrupt` (an Esc and a Ctrl+C read as one Ctrl+Alt+C), the Ctrl+C follows.
pub struct EscHandler {
    pub running: std::sync::Arc<std::sync::atomic::AtomicBool>,
    pub cancel: crate::util::cancel::Cancel,
    pub then_interrupt: bool,
}

impl ConditionalEventHandler for EscHandler {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, _: &EventContext) -> Option<Cmd> {
        let running = self.running.load(std::sync::atomic::Ordering::SeqCst);
        if running {
            self.cancel.cancel();
        }
        match (self.then_interrupt, running) {
            (true, _) => Some(Cmd::Interrupt),
            (false, true) => Some(Cmd::Noop),
            (false, false) => None,
        }
    }
}

/// Shift+Tab cycles the permission mode (default → accept-edits → plan), as in Claude
/// Code. The status line shows a mode other than default; without colours a line says it.
pub struct ModeCycle {
    pub ask: crate::permission::AskSlot,
    pub printer: crate::ui::printer::Printer,
    pub color: bool,
}

impl ConditionalEventHandler for ModeCycle {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, _: &EventContext) -> Option<Cmd> {
        let m = self.ask.cycle_mode()?;
        if !self.color {
            let mut p = self.printer.clone();
            let _ = std::io::Write::write_all(
                &mut p,
                format!("permission mode: {} (shift+tab to cycle)\n", m.name()).as_bytes(),
            );
        }
        Some(Cmd::Noop)
    }
}

/// Enter after a `\` at the end of the line: the `\` becomes a newline (the line is not sent).
pub struct BackslashEnter;

impl ConditionalEventHandler for BackslashEnter {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        let line = ctx.line();
        if ctx.pos() == line.len() && line.ends_with('\\') {
            Some(Cmd::Replace(Movement::BackwardChar(1), Some("\n".into())))
        } else {
            None
        }
    }
}

/// Ctrl+V: paste a clipboard PNG as `[Image #N]`; with nothing to paste, a line says so
/// (a key that does nothing and says nothing looks broken).
pub struct ImagePasteHandler {
    pub images_dir: PathBuf,
    pub printer: crate::ui::printer::Printer,
}

impl ConditionalEventHandler for ImagePasteHandler {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, _: &EventContext) -> Option<Cmd> {
        match crate::ui::clipboard::paste_image(&self.images_dir) {
            Ok(tag) => Some(Cmd::Insert(1, tag)),
            Err(why) => {
                let mut p = self.printer.clone();
                let _ = std::io::Write::write_all(&mut p, format!("{why}\n").as_bytes());
                Some(Cmd::Noop)
            }
        }
    }
}

/// `<agent_home>/history`.
pub fn history_path() -> PathBuf {
    crate::session::paths::agent_home().join("history")
}

/// The newest `max` non-empty entries of the history file (oldest first).
pub fn load_history(path: &Path, max: usize) -> Vec<String> {
    let text = crate::util::fsx::read_lossy(path);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(max);
    lines[start..].iter().map(|s| s.to_string()).collect()
}

/// Append one entry as one line (a multi-line entry is joined with spaces, so the file
/// stays one entry per line for the shell version).
pub fn append_history(path: &Path, entry: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let one_line = entry.replace("\r\n", " ").replace(['\n', '\r'], " ");
    crate::util::fsx::append_line(path, &one_line)
}

/// What a submitted line means.
#[derive(Debug, PartialEq, Eq)]
pub enum Submit {
    /// Nothing to do (blank line).
    Skip,
    /// End the session (`exit`, `quit`, `/exit`).
    End,
    /// Send as a USER_INPUT (slash commands too: the runtime handles them).
    Input,
}

pub fn classify(line: &str) -> Submit {
    match line.trim() {
        "" => Submit::Skip,
        "exit" | "quit" | "/exit" => Submit::End,
        _ => Submit::Input,
    }
}

/// A key of the permission menu (permission::menu): while a question waits and nothing is
/// typed, ↑/↓ move the selection and a number answers at once; otherwise the key does what
/// it always does (history, the digit typed).
pub enum MenuKey {
    Step(isize),
    Number(usize),
}

pub struct MenuHandler {
    pub ask: crate::permission::AskSlot,
    pub key: MenuKey,
}

impl ConditionalEventHandler for MenuHandler {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, ctx: &EventContext) -> Option<Cmd> {
        if !self.ask.pending() || self.ask.free_form() || !ctx.line().is_empty() {
            return None;
        }
        match self.key {
            MenuKey::Step(by) => self.ask.menu().step(by).then_some(Cmd::Noop),
            MenuKey::Number(n) => {
                let answer = self.ask.menu().numbered(n)?;
                self.ask.answer(answer);
                Some(Cmd::Noop)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_file_round_trip() {
        let d = tempfile::tempdir().expect("tmp");
        let p = d.path().join("sub/history");
        append_history(&p, "first").expect("a");
        append_history(&p, "multi\nline\r\npaste").expect("a");
        append_history(&p, "third").expect("a");
        assert_eq!(
            std::fs::read_to_string(&p).expect("r"),
            "first\nmulti line paste\nthird\n"
        );
        assert_eq!(load_history(&p, 2), vec!["multi line paste", "third"]);
    }

    #[test]
    fn classifies_lines() {
        assert_eq!(classify("  "), Submit::Skip);
        assert_eq!(classify("exit"), Submit::End);
        assert_eq!(classify(" quit "), Submit::End);
        assert_eq!(classify("/exit"), Submit::End);
        assert_eq!(classify("/status"), Submit::Input);
        assert_eq!(classify("exit now"), Submit::Input);
    }
}
