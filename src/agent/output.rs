//! The output layer: what the person or the script sees. In human mode every turn event is
//! rendered by the display (through the line editor's printer in interactive mode); in
//! stream-json mode the events.jsonl lines are echoed on stdout by the echo installed on the
//! session's event log ([`stdout_echo`]), so storage itself never prints.
use crate::ipc::resp::Frame;
use crate::protocol::Event;
use crate::session::events::Echo;
use crate::ui::display::Display;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// Where human output goes.
pub struct DisplaySink {
    pub display: Display,
    pub out: Box<dyn Write + Send>,
    pub err: Box<dyn Write + Send>,
}

/// The human display (none in stream-json mode and in sub-agents) and the terminal title.
pub struct Output {
    pub display: Option<Mutex<DisplaySink>>,
    /// Terminal title (`ui::title`): only when stderr is a TTY; holds the model name.
    pub title_model: Option<String>,
    /// text, json and stream-json: the result accumulator every event is fed to.
    pub headless: Option<Arc<crate::agent::headless::Headless>>,
}

/// Print every event line on stdout, whole (stream-json). Terminal escapes (the Edit diff's
/// colours, a coloured command's output in a Bash result) are removed from this copy only:
/// events.jsonl keeps them, as the shell version writes them.
pub fn stdout_echo() -> Echo {
    Arc::new(|line: &str| {
        let line = crate::agent::headless::strip_line_escapes(line);
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(&buf);
        let _ = out.flush();
    })
}

impl Output {
    /// Output for a run without a display (stream-json, sub-agents, `compact`).
    pub fn none() -> Output {
        Output {
            display: None,
            title_model: None,
            headless: None,
        }
    }

    /// Show one turn event.
    pub fn event(&self, e: &Event) {
        if let Some(h) = &self.headless {
            h.feed(e);
        }
        if self.display.is_some() {
            if let Some(f) = crate::ipc::display::frame(e) {
                self.show(&f);
            }
        }
    }

    /// Display only (drained notifications, replays, notes).
    pub fn show(&self, frame: &Frame) {
        if let Some(d) = &self.display {
            let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
            let DisplaySink { display, out, err } = &mut *g;
            display.render(frame, out.as_mut(), err.as_mut());
            let _ = out.flush();
            let _ = err.flush();
        }
    }

    /// Whether the display draws colours (diffs shown before a question follow it).
    pub fn color(&self) -> bool {
        self.display
            .as_ref()
            .is_some_and(|d| d.lock().unwrap_or_else(|p| p.into_inner()).display.color)
    }

    /// A one-line note for the human (grey on the display, stderr otherwise).
    pub fn note(&self, text: &str) {
        if let Some(d) = &self.display {
            let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
            let color = g.display.color;
            let line = if color {
                format!("\x1b[90m{text}\x1b[0m\n")
            } else {
                format!("{text}\n")
            };
            let _ = g.out.write_all(line.as_bytes());
            let _ = g.out.flush();
        } else {
            crate::util::say::err_line(text);
        }
    }

    /// A warning that must not break the run.
    pub fn warn(&self, text: &str) {
        let line = format!("bash-agent: {text}\n");
        match &self.display {
            // Through the display's error sink: in interactive mode that is the editor's
            // printer, so the line being typed is not garbled.
            Some(d) => {
                let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
                let _ = g.err.write_all(line.as_bytes());
                let _ = g.err.flush();
            }
            None => crate::util::say::err(&line),
        }
    }

    /// Refresh the terminal title from stats.json (no-op unless stderr is a TTY).
    pub fn title(&self, stats_path: &std::path::Path, busy: bool) {
        if let Some(model) = &self.title_model {
            let s = crate::session::stats::Stats::load(stats_path);
            let t = crate::ui::title::title(&s, model, busy);
            let mut e = std::io::stderr().lock();
            let _ = e.write_all(t.as_bytes());
            let _ = e.flush();
        }
    }

    /// Finish the display's current line (end of a one-shot run).
    pub fn finish(&self) {
        if let Some(d) = &self.display {
            let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
            let DisplaySink { display, out, .. } = &mut *g;
            display.finish(out.as_mut());
        }
    }

    /// Write raw text to the display's output (slash command output).
    /// An error a command refused with (an unknown slash command, a custom command that
    /// could not be expanded): on stderr, as the README promises for every error, so a
    /// script reading a one-shot run's stdout gets only the answer. In interactive mode the
    /// display's error sink is the editor's printer, so the person still sees it in place.
    pub fn error(&self, text: &str) {
        if let Some(d) = &self.display {
            let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
            let _ = g.err.write_all(text.as_bytes());
            let _ = g.err.flush();
        } else {
            crate::util::say::err(text);
        }
    }

    pub fn print(&self, text: &str) {
        if let Some(d) = &self.display {
            let mut g = d.lock().unwrap_or_else(|p| p.into_inner());
            let _ = g.out.write_all(text.as_bytes());
            let _ = g.out.flush();
        } else {
            crate::util::say::err(text);
        }
    }
}
