//! Progress while a turn runs (docs/interactive.md, "Status line").
//!
//! One-shot human mode on a TTY: a spinner with elapsed seconds on stderr while waiting for
//! the first token. Interactive mode on a terminal: the status line below the transcript —
//! spinner, what is happening (waiting for the model, thinking, writing, running
//! `Bash(cmd)` with its last output lines), elapsed time, output tokens so far and
//! `esc to interrupt` — drawn in the printer's live region, so it never mixes into the
//! transcript and is gone when the turn ends. Without colours (NO_COLOR, TERM=dumb) there is
//! no animation and no cursor movement: one plain line each time the agent starts waiting
//! for the model.
use crate::protocol::Event;
use crate::ui::printer::Printer;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub use super::status_line::Phase;
use super::status_line::{live_lines, Progress};

enum Kind {
    Off,
    Stderr,
    /// The interactive status line; `animate` = colours and cursor movement allowed.
    Live {
        printer: Printer,
        animate: bool,
        ask: crate::permission::AskSlot,
    },
}

pub struct Spinner {
    kind: Kind,
    progress: Arc<Mutex<Progress>>,
    state: Mutex<Option<(Arc<AtomicBool>, JoinHandle<()>)>>,
}

fn lock(p: &Mutex<Progress>) -> std::sync::MutexGuard<'_, Progress> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}

impl Spinner {
    /// The one-shot spinner on stderr (`enabled`), or nothing.
    pub fn new(enabled: bool) -> Spinner {
        Spinner::with(if enabled { Kind::Stderr } else { Kind::Off })
    }

    /// The interactive status line through the line editor's printer. `animate`: colours
    /// on and a terminal that moves the cursor (not NO_COLOR, not TERM=dumb).
    /// `ask`: the permission question slot (while it waits, the status says so).
    pub fn live(printer: Printer, animate: bool, ask: crate::permission::AskSlot) -> Spinner {
        // A status line that moves the cursor draws the question's menu.
        ask.set_live_menu(animate);
        Spinner::with(Kind::Live {
            printer,
            animate,
            ask,
        })
    }

    fn with(kind: Kind) -> Spinner {
        Spinner {
            kind,
            progress: Arc::new(Mutex::new(Progress::default())),
            state: Mutex::new(None),
        }
    }

    /// A model call starts. One-shot: the stderr spinner until the first token.
    /// Interactive: the status line shows "waiting for the model".
    pub fn start(&self) {
        match &self.kind {
            Kind::Off => {}
            Kind::Stderr => self.start_stderr(),
            Kind::Live { .. } => {
                // A turn starts while children run: its own clock, not theirs.
                let mut p = lock(&self.progress);
                if let Some(Phase::Children(_)) = p.phase {
                    p.t0 = None;
                }
                drop(p);
                self.set_phase(Phase::Waiting)
            }
        }
    }

    /// The first token arrived (one-shot), or the call ended. The interactive status line
    /// stays until [`Spinner::end_turn`].
    pub fn stop(&self) {
        if let Kind::Stderr = self.kind {
            self.stop_thread();
        }
    }

    /// The turn ended: the status line is removed.
    pub fn end_turn(&self) {
        self.stop_thread();
        *lock(&self.progress) = Progress::default();
        if let Kind::Live {
            printer,
            animate: true,
            ..
        } = &self.kind
        {
            printer.set_live(Vec::new());
        }
    }

    /// Between turns (called by the main loop while it waits): `running` sub-agents and
    /// background tasks still run; the status line says so until none is left.
    pub fn idle(&self, running: impl FnOnce() -> usize) {
        let Kind::Live { animate: true, .. } = self.kind else {
            return;
        };
        let running = running();
        let phase = lock(&self.progress).phase.clone();
        match (phase, running) {
            (None, 0) => self.show_mode(),
            (Some(Phase::Children(_)), 0) => self.end_turn(),
            (None, n) => {
                lock(&self.progress).t0 = Some(Instant::now());
                self.set_phase(Phase::Children(n));
            }
            (Some(Phase::Children(m)), n) if m != n => self.set_phase(Phase::Children(n)),
            _ => {}
        }
    }

    /// Between turns with nothing running: the mode line (none in `default`), redrawn only
    /// when the mode changed (Shift+Tab).
    fn show_mode(&self) {
        let Kind::Live {
            printer,
            animate: true,
            ask,
        } = &self.kind
        else {
            return;
        };
        let mode = ask.mode();
        let mut p = lock(&self.progress);
        if p.shown_mode == mode {
            return;
        }
        p.shown_mode = mode;
        let lines = p.status_in(0, true, false, mode);
        drop(p);
        printer.set_live(lines);
    }

    /// A turn event: the phase and the token count follow it.
    pub fn event(&self, e: &Event) {
        if matches!(self.kind, Kind::Off | Kind::Stderr) {
            return;
        }
        match e {
            Event::Text { content } => {
                lock(&self.progress).bytes += content.len() as u64;
                self.set_phase(Phase::Writing);
            }
            Event::Thinking { content } => {
                lock(&self.progress).bytes += content.len() as u64;
                self.set_phase(Phase::Thinking);
            }
            Event::Usage { tokens, .. } => {
                let mut p = lock(&self.progress);
                p.tokens += tokens.output_tokens;
                p.bytes = 0;
            }
            Event::ToolCall { .. } => {
                let label = crate::ipc::display::frame(e)
                    .map(|f| {
                        let l = crate::ui::display::tool_label(&f);
                        format!("{}({l})", f.field(1))
                    })
                    .unwrap_or_default();
                self.set_phase(Phase::Tool(label));
            }
            Event::ToolResult { .. } => {
                let mut p = lock(&self.progress);
                p.tail.clear();
                p.partial.clear();
            }
            _ => {}
        }
    }

    /// `n` bytes of a tool call's arguments streamed: they are output tokens too, and the
    /// count froze while a long argument (a whole file for Write) arrived.
    pub fn tool_input(&self, n: u64) {
        if matches!(self.kind, Kind::Off | Kind::Stderr) {
            return;
        }
        lock(&self.progress).bytes += n;
        self.set_phase(Phase::Writing);
    }

    /// Output of the running tool (its last lines show under the status line).
    pub fn tool_output(&self, chunk: &[u8]) {
        if let Kind::Live { animate: true, .. } = self.kind {
            lock(&self.progress).tool_output(chunk);
        }
    }

    fn set_phase(&self, phase: Phase) {
        let Kind::Live {
            printer,
            animate,
            ask,
        } = &self.kind
        else {
            return;
        };
        let changed = {
            let mut p = lock(&self.progress);
            if p.t0.is_none() {
                p.t0 = Some(Instant::now());
            }
            let changed = p.phase.as_ref() != Some(&phase);
            p.phase = Some(phase.clone());
            changed
        };
        if !*animate {
            if changed && phase == Phase::Waiting {
                let mut w = printer.clone();
                let _ = w.write_all(format!("… {} (esc to interrupt)\n", phase.label()).as_bytes());
            }
            return;
        }
        if changed {
            printer.set_live(live_lines(&lock(&self.progress), 0, ask));
        }
        self.start_live_thread(printer.clone(), ask.clone());
    }

    fn start_live_thread(&self, printer: Printer, ask: crate::permission::AskSlot) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if st.is_some() {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let progress = self.progress.clone();
        let h = std::thread::spawn(move || {
            let mut i = 0;
            loop {
                std::thread::park_timeout(Duration::from_millis(120));
                if s2.load(Ordering::SeqCst) {
                    break;
                }
                i += 1;
                let lines = live_lines(&lock(&progress), i, &ask);
                printer.set_live(lines);
            }
        });
        *st = Some((stop, h));
    }

    fn start_stderr(&self) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if st.is_some() {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let s2 = stop.clone();
        let h = std::thread::spawn(move || {
            let frames = ['|', '/', '-', '\\'];
            let t0 = Instant::now();
            let mut i = 0;
            while !s2.load(Ordering::SeqCst) {
                let _ = write!(
                    std::io::stderr(),
                    "\r\x1b[90m{} waiting for the model… {}s\x1b[0m",
                    frames[i % 4],
                    t0.elapsed().as_secs()
                );
                i += 1;
                std::thread::park_timeout(Duration::from_millis(100));
            }
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        });
        *st = Some((stop, h));
    }

    fn stop_thread(&self) {
        let taken = self.state.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((flag, h)) = taken {
            flag.store(true, Ordering::SeqCst);
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

#[cfg(test)]
#[path = "spinner_tests.rs"]
mod tests;
