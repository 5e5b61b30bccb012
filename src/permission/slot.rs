//! The question channel between the line editor and the permission gate, and the run's
//! permission mode shared with the editor (Shift+Tab cycles it, the status line shows it).
use super::PermMode;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// Where a question waits for its answer: the line editor hands the next submitted line to
/// the waiting tool call instead of sending it to the agent. It also carries the run's
/// permission mode, so the editor can cycle it (Shift+Tab) and the status line can show it.
#[derive(Clone, Default)]
pub struct AskSlot {
    tx: Arc<Mutex<Option<mpsc::Sender<String>>>>,
    /// The gate's mode ([`PermMode::code`]; 0 before a gate took the slot).
    mode: Arc<AtomicU8>,
    /// The run started in bypass: Shift+Tab's cycle includes it.
    with_bypass: Arc<std::sync::atomic::AtomicBool>,
    /// The waiting question takes any line, a blank one too (an MCP elicitation's field,
    /// where Enter takes the default), not only a permission answer.
    free: Arc<std::sync::atomic::AtomicBool>,
    /// The waiting question's choices and selection ([`super::menu`]).
    menu: super::menu::Menu,
    /// The status line draws the menu (a terminal that moves the cursor): the question
    /// then prints no list of its own.
    live_menu: Arc<std::sync::atomic::AtomicBool>,
}

impl AskSlot {
    pub fn new() -> AskSlot {
        AskSlot::default()
    }

    /// A question is waiting.
    pub fn pending(&self) -> bool {
        self.tx.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    /// Give `line` to the waiting question; false when none waits (the line is input).
    pub fn answer(&self, line: &str) -> bool {
        let tx = self.tx.lock().unwrap_or_else(|p| p.into_inner()).take();
        match tx {
            Some(tx) => tx.send(line.to_string()).is_ok(),
            None => false,
        }
    }

    /// The waiting question takes any line (see `free`).
    pub fn free_form(&self) -> bool {
        self.free.load(Ordering::SeqCst)
    }

    pub(super) fn open(&self) -> mpsc::Receiver<String> {
        self.free.store(false, Ordering::SeqCst);
        let (tx, rx) = mpsc::channel();
        *self.tx.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
        rx
    }

    /// Show `text` and wait for the next line submitted (None: interrupted): the channel a
    /// permission question uses, for other questions asked during a tool call.
    pub fn ask_line(
        &self,
        print: &dyn Fn(&str),
        text: &str,
        cancel: &crate::util::cancel::Cancel,
    ) -> Option<String> {
        print(text);
        super::ask::discard_typeahead();
        let rx = self.open();
        self.free.store(true, Ordering::SeqCst);
        loop {
            if cancel.is_cancelled() {
                self.close();
                return None;
            }
            match rx.recv_timeout(std::time::Duration::from_millis(100)) {
                Ok(line) => return Some(line),
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    pub(super) fn close(&self) {
        self.tx.lock().unwrap_or_else(|p| p.into_inner()).take();
    }

    /// The waiting question's menu (the editor's keys move it, the status line draws it).
    pub fn menu(&self) -> &super::menu::Menu {
        &self.menu
    }

    /// The waiting question's menu as the status line draws it (none when none waits).
    pub fn menu_lines(&self, color: bool) -> Vec<String> {
        if self.pending() && !self.free_form() {
            self.menu.lines(color)
        } else {
            Vec::new()
        }
    }

    /// The status line draws the menu (set by the interactive status line when it animates).
    pub fn set_live_menu(&self, on: bool) {
        self.live_menu.store(on, Ordering::SeqCst);
    }

    pub(super) fn live_menu(&self) -> bool {
        self.live_menu.load(Ordering::SeqCst)
    }

    /// The run's permission mode (None before the gate exists).
    pub fn mode(&self) -> Option<PermMode> {
        PermMode::from_code(self.mode.load(Ordering::SeqCst))
    }

    pub(super) fn set_mode(&self, m: PermMode) {
        self.mode.store(m.code(), Ordering::SeqCst);
        if m == PermMode::Bypass {
            self.with_bypass.store(true, Ordering::SeqCst);
        }
    }

    /// Shift+Tab: default → accept-edits → plan → default (a run started in bypass has
    /// bypass in the cycle too, after plan). Returns the new mode.
    pub fn cycle_mode(&self) -> Option<PermMode> {
        let with_bypass = self.with_bypass.load(Ordering::SeqCst);
        let next = |m: u8| PermMode::from_code(m).map(|cur| cur.next(with_bypass).code());
        let _ = self
            .mode
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, next);
        self.mode()
    }
}
