//! Glue between the runtime and the interactive front end (`ui::interactive`) and replay.
use crate::session::Session;
use crate::ui::display::Display;
use crate::util::cancel::Cancel;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The running line editor.
pub struct Editor {
    inner: crate::ui::interactive::Interactive,
}

impl Editor {
    pub fn start(
        session: &Session,
        running: Arc<AtomicBool>,
        cancel: Cancel,
        ask: crate::permission::AskSlot,
    ) -> anyhow::Result<Editor> {
        let cwd = crate::session::paths::physical_cwd().unwrap_or_default();
        let inner = crate::ui::interactive::start(
            session,
            crate::ui::interactive::InteractiveHooks {
                running,
                cancel,
                ask,
                input_fifo: session.input_fifo(),
                notify_fifo: session.notify_fifo(),
                commands: crate::agent::custom::palette(&cwd),
                cwd,
                typeahead: crate::ui::handoff::inherited(),
            },
        )?;
        Ok(Editor { inner })
    }

    /// Output (and errors) go through the editor so the line being typed stays intact.
    pub fn printer(&self) -> Box<dyn Write + Send> {
        self.inner.printer()
    }

    /// The printer whose live region shows the status line.
    pub fn live_printer(&self) -> crate::ui::printer::Printer {
        self.inner.live_printer()
    }

    /// Whether the editor runs on a terminal (questions can be asked).
    pub fn is_tty(&self) -> bool {
        self.inner.is_tty()
    }

    /// The runtime took the line the editor sent and goes on: the editor reads again.
    pub fn input_taken(&self) {
        self.inner.input_taken()
    }

    /// The runtime restarts: the keys typed past the restarting line that the editor
    /// read and holds (the new run's editor handles them first).
    pub fn restarting(&self) -> Vec<u8> {
        self.inner.restarting()
    }

    pub fn turn_finished(&self) {
        self.inner.turn_finished()
    }

    pub fn join(self) {
        self.inner.join()
    }
}

/// Replay the last `turns` turns; true when something was shown.
pub fn replay(session: &Session, turns: usize, d: &mut Display) -> bool {
    let mut out = std::io::stdout();
    let mut err = std::io::stderr();
    crate::ui::replay::replay_to_terminal(&session.events(), turns, d, &mut out, &mut err)
}
