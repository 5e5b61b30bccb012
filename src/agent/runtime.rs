//! The runtime (docs/fifo-protocol.md): open the session, start the FIFO readers, and
//! run the main loop over input.fifo — one turn at a time, notify turns on wakeups, the
//! one-shot exit rule, signals, and cleanup on every exit path.
use crate::agent::emit::Emitter;
use crate::agent::host::Host;
use crate::agent::setup::Mode;
use crate::agent::turn::{self, Kind, TurnCtx, TurnEnd};
use crate::config::Config;
use crate::error::{EXIT_FAIL, EXIT_INTERRUPTED, EXIT_OK};
use crate::ipc::fifo::{InputChannel, InputMsg};
use crate::session::Session;
use crate::util::cancel::Cancel;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Signal flags.
pub struct Signals {
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
}

pub fn install_signals(cancel: &Cancel) -> Signals {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let s = Signals {
        int: Arc::new(AtomicBool::new(false)),
        term: Arc::new(AtomicBool::new(false)),
    };
    let _ = signal_hook::flag::register(SIGINT, cancel.flag());
    let _ = signal_hook::flag::register(SIGINT, s.int.clone());
    for sig in [SIGTERM, SIGHUP] {
        let _ = signal_hook::flag::register(sig, cancel.flag());
        let _ = signal_hook::flag::register(sig, s.term.clone());
    }
    // Writing to a closed pipe must be an error, not a silent death.
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGPIPE,
        Arc::new(AtomicBool::new(false)),
    );
    s
}

/// The main loop's state.
pub struct Runtime<'a> {
    pub session: &'a Session,
    pub cfg: &'a Config,
    pub emit: &'a Emitter,
    pub cancel: &'a Cancel,
    pub host: &'a Host,
    pub cwd: std::path::PathBuf,
    pub depth: u32,
    pub mode: Mode,
    pub running: Arc<AtomicBool>,
    pub spinner: crate::agent::spinner::Spinner,
    pub new_requested: AtomicBool,
}

impl Runtime<'_> {
    fn turn(&self, input: &str, kind: Kind) -> TurnEnd {
        self.cancel.reset();
        self.running.store(true, Ordering::SeqCst);
        let _flag = crate::ipc::flag::RunningFlag::set(self.session);
        self.host.turn.fetch_add(1, Ordering::SeqCst);
        let start = || self.spinner.start();
        let stop = || self.spinner.stop();
        let ctx = TurnCtx {
            session: self.session,
            cfg: self.cfg,
            emit: self.emit,
            cancel: self.cancel,
            host: self.host,
            cwd: self.cwd.clone(),
            depth: self.depth,
            on_first_output: &stop,
            on_call_start: &start,
        };
        self.emit.title(&self.session.stats(), true);
        let end = turn::run(&ctx, input, kind);
        self.spinner.stop();
        self.host.end_turn();
        self.running.store(false, Ordering::SeqCst);
        // Idle, unless sub-agents or background tasks still run.
        let busy = crate::ipc::counter::get(self.session) > 0;
        self.emit.title(&self.session.stats(), busy);
        if self.mode != Mode::Interactive {
            self.emit.finish();
        }
        end
    }

    fn idle(&self) -> bool {
        crate::ipc::notify::nothing_pending(self.session)
    }

    /// Returns the exit code.
    pub fn main_loop(
        &self,
        input: &InputChannel,
        first: Option<String>,
        sig: &Signals,
        editor: Option<&crate::agent::editor::Editor>,
    ) -> i32 {
        let one_shot = matches!(self.mode, Mode::OneShot | Mode::SubAgent);
        let mut code = EXIT_OK;
        let mut saw_input = false;
        let mut pending: std::collections::VecDeque<InputMsg> = Default::default();
        if let Some(p) = first {
            pending.push_back(InputMsg::UserInput(p));
        }
        loop {
            let msg = match pending.pop_front() {
                Some(m) => m,
                None => {
                    if one_shot && saw_input && self.idle() {
                        break;
                    }
                    match input.rx.recv_timeout(Duration::from_millis(100)) {
                        Ok(m) => m,
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                            if sig.term.load(Ordering::SeqCst) {
                                break;
                            }
                            if sig.int.swap(false, Ordering::SeqCst)
                                && self.mode != Mode::Interactive
                            {
                                if one_shot {
                                    code = EXIT_INTERRUPTED;
                                }
                                break;
                            }
                            continue;
                        }
                        Err(_) => break,
                    }
                }
            };
            let end = match msg {
                InputMsg::SessionEnd => break,
                InputMsg::Malformed(m) => {
                    let line = crate::session::events::ev::error(&m);
                    let _ = self.emit.events.append(&line);
                    continue;
                }
                InputMsg::NotifyPending => {
                    if !crate::util::fsx::non_empty(&self.session.notify_buf()) {
                        continue;
                    }
                    self.turn("", Kind::Notify)
                }
                InputMsg::UserInput(text) => {
                    saw_input = true;
                    if self.mode != Mode::SubAgent && text.trim_start().starts_with('/') {
                        match crate::agent::slash::run(self, text.trim()) {
                            crate::agent::slash::Action::Handled => {
                                if let Some(ed) = editor {
                                    ed.turn_finished();
                                }
                                continue;
                            }
                            crate::agent::slash::Action::Exit => break,
                            crate::agent::slash::Action::New => {
                                self.new_requested.store(true, Ordering::SeqCst);
                                break;
                            }
                            crate::agent::slash::Action::NotACommand => {}
                        }
                    }
                    self.turn(&text, Kind::UserInput)
                }
            };
            sig.int.store(false, Ordering::SeqCst);
            match end {
                TurnEnd::Done(_) => {}
                TurnEnd::Error(_) => code = EXIT_FAIL,
                TurnEnd::Interrupted => {
                    if one_shot {
                        code = EXIT_INTERRUPTED;
                        break;
                    }
                }
            }
            if let Some(ed) = editor {
                ed.turn_finished();
            }
            if sig.term.load(Ordering::SeqCst) {
                break;
            }
        }
        code
    }
}
