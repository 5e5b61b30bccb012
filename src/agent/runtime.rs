//! The runtime (docs/fifo-protocol.md): open the session, start the FIFO readers, and
//! run the main loop over input.fifo — one turn at a time, notify turns on wakeups, the
//! one-shot exit rule, signals, and cleanup on every exit path.
use crate::agent::context::AgentCtx;
use crate::agent::setup::Mode;
use crate::agent::turn::{self, Kind, TurnEnd};
use crate::error::{EXIT_FAIL, EXIT_INTERRUPTED, EXIT_OK};
use crate::ipc::fifo::{InputChannel, InputMsg};
use crate::util::cancel::Cancel;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Signal flags.
pub struct Signals {
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
}

impl Signals {
    /// SIGTERM or SIGHUP arrived (the terminal closed, or someone ended the run).
    pub fn terminated(&self) -> bool {
        self.term.load(Ordering::SeqCst)
    }
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

/// Run one turn with the bookkeeping around it (flag, title, file history, spinner).
fn turn(ctx: &AgentCtx, input: &str, kind: Kind) -> TurnEnd {
    ctx.cancel.reset();
    ctx.running.store(true, Ordering::SeqCst);
    let _flag = crate::ipc::flag::RunningFlag::set(&ctx.session);
    ctx.turn.fetch_add(1, Ordering::SeqCst);
    ctx.out.title(&ctx.session.stats(), true);
    let t0 = std::time::Instant::now();
    let end = turn::run(ctx, input, kind);
    // A custom command narrowed this turn only.
    crate::agent::custom::end_turn(ctx);
    ctx.spinner.end_turn();
    ctx.end_turn();
    ctx.running.store(false, Ordering::SeqCst);
    // Idle, unless sub-agents or background tasks still run.
    let busy = crate::ipc::counter::get(&ctx.session) > 0;
    ctx.out.title(&ctx.session.stats(), busy);
    if ctx.mode != Mode::Interactive {
        ctx.out.finish();
    } else {
        // Extensions: Notification hooks hear that the agent waits for the user.
        crate::agent::extensions::notification(ctx, "bash-agent is waiting for your input");
        bell_after(ctx, t0.elapsed());
    }
    end
}

/// A long turn ended: ring the terminal's bell (the person may be in another window).
/// `BASH_AGENT_BELL_SECS` sets how long is long (default 10; `off` never rings).
fn bell_after(ctx: &AgentCtx, took: Duration) {
    if !ctx.permission.interactive() {
        return;
    }
    let min = match std::env::var("BASH_AGENT_BELL_SECS").ok().as_deref() {
        Some("off") => return,
        Some(v) => v.trim().parse::<u64>().unwrap_or(10),
        None => 10,
    };
    if took.as_secs() >= min {
        use std::io::Write;
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(b"\x07");
        let _ = o.flush();
    }
}

fn idle(ctx: &AgentCtx) -> bool {
    crate::ipc::notify::nothing_pending(&ctx.session)
}

/// The main loop over input.fifo; returns the exit code.
pub fn main_loop(
    ctx: &AgentCtx,
    input: &InputChannel,
    first: Option<String>,
    sig: &Signals,
    editor: Option<&crate::agent::editor::Editor>,
) -> i32 {
    let one_shot = matches!(ctx.mode, Mode::OneShot | Mode::SubAgent);
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
                if one_shot && saw_input && idle(ctx) {
                    break;
                }
                match input.rx.recv_timeout(Duration::from_millis(100)) {
                    Ok(m) => m,
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                        // Interactive: the status line tells of children still running.
                        ctx.spinner
                            .idle(|| crate::ipc::counter::get(&ctx.session) as usize);
                        if sig.term.load(Ordering::SeqCst) {
                            break;
                        }
                        if sig.int.swap(false, Ordering::SeqCst) && ctx.mode != Mode::Interactive {
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
            InputMsg::SessionEnd => {
                // The person ended the session: a failed last turn was already reported.
                if ctx.mode == Mode::Interactive {
                    code = EXIT_OK;
                }
                break;
            }
            InputMsg::Malformed(m) => {
                if let Err(e) = ctx.rec.event(&crate::protocol::Event::error(m)) {
                    ctx.out.warn(&e);
                }
                continue;
            }
            InputMsg::NotifyPending => {
                if !crate::util::fsx::non_empty(&ctx.session.notify_buf())
                    || crate::agent::inject::only_stopped(ctx)
                {
                    continue;
                }
                turn(ctx, "", Kind::Notify)
            }
            InputMsg::UserInput(text) => {
                saw_input = true;
                use crate::agent::slash::Action;
                let action = match ctx.mode {
                    Mode::SubAgent => Action::Turn(text),
                    _ => crate::agent::slash::route(ctx, &text),
                };
                // The editor waits on its line's verdict before reading on (ui::handoff).
                if let Some(ed) = editor {
                    if matches!(action, Action::Restart) {
                        ctx.slash.carry_keys(ed.restarting());
                    } else {
                        ed.input_taken();
                    }
                }
                match action {
                    Action::Handled | Action::Refused => {
                        if matches!(action, Action::Refused) && one_shot {
                            code = EXIT_FAIL;
                        }
                        if let Some(ed) = editor {
                            ed.turn_finished();
                        }
                        continue;
                    }
                    Action::Exit => break,
                    Action::Restart => {
                        ctx.new_requested.store(true, Ordering::SeqCst);
                        // Lines already queued behind the command go with the restart.
                        ctx.slash.carry(pending.drain(..).filter_map(|m| match m {
                            InputMsg::UserInput(t) => Some(t),
                            _ => None,
                        }));
                        break;
                    }
                    Action::Turn(text) => turn(ctx, &text, Kind::UserInput),
                }
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
