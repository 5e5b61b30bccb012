//! The runtime (ipc-sessions.md §1.4–1.5): open the session, start the FIFO readers, and
//! run the main loop over input.fifo — one turn at a time, notify turns on wakeups, the
//! one-shot exit rule, signals, and cleanup on every exit path.
use crate::agent::emit::{DisplaySink, Emitter};
use crate::agent::host::Host;
use crate::agent::setup::{open_session, pick_mode, Mode};
use crate::agent::turn::{self, Kind, TurnCtx, TurnEnd};
use crate::app::{EXIT_FAIL, EXIT_INTERRUPTED, EXIT_OK};
use crate::cli::{Cli, Opts};
use crate::config::{self, Config, OutputFormat};
use crate::ipc::fifo::{InputChannel, InputMsg};
use crate::session::Session;
use crate::ui::display::Display;
use crate::util::cancel::Cancel;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Signal flags.
struct Signals {
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
}

fn install_signals(cancel: &Cancel) -> Signals {
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

fn sub_api_key(o: &Opts) -> Opts {
    let mut o = o.clone();
    if let Ok(k) = std::env::var(crate::agent::subagent::API_KEY_ENV) {
        // Internal state (decision 5): consumed here, before any thread or child exists,
        // so tool processes never inherit the key.
        std::env::remove_var(crate::agent::subagent::API_KEY_ENV);
        if o.api_key.is_none() && !k.is_empty() {
            o.api_key = Some(k);
        }
    }
    o
}

/// `bash-agent [flags] [prompt]`: the agent itself.
pub fn cmd_agent(cli: &Cli) -> anyhow::Result<i32> {
    let (mode, first) = pick_mode(cli)?;
    let o = sub_api_key(&cli.opts);
    let cfg = config::resolve(&o, true)?;
    crate::agent::subagent::set_child_api_key(&cfg.provider.api_key);
    crate::sandbox::env::register_provider_keys(&cfg.provider.api_key);
    let stream_json = cfg.output == OutputFormat::StreamJson;
    let (opened, events) = open_session(&o, stream_json && mode != Mode::SubAgent)?;
    let session = opened.session.clone();
    crate::sandbox::configure(cfg.sandbox.clone(), Some(&session.dir));
    if cfg.verbose {
        eprintln!(
            "[verbose] session {} ({}) at {}; provider {} model {} base {}",
            session.id,
            if opened.is_new { "new" } else { "resumed" },
            session.dir.display(),
            cfg.provider.kind.name(),
            cfg.provider.model,
            cfg.provider.base_url
        );
    }
    let recovered = opened.recovered.clone();
    let cancel = Cancel::new();
    let signals = install_signals(&cancel);
    let input = InputChannel::open(&session)?;
    let notify = crate::ipc::notify::spawn_reader(&session, events.clone(), input.writer())?;
    let human = !stream_json && mode != Mode::SubAgent;
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let running = Arc::new(AtomicBool::new(false));
    let (display, editor) = if human {
        let (d, e) = human_display(&session, mode, color, running.clone(), cancel.clone())?;
        (Some(d), e)
    } else {
        (None, None)
    };
    let emit = Emitter {
        events: events.clone(),
        display,
        title_model: (std::io::stderr().is_terminal() && mode != Mode::SubAgent)
            .then(|| cfg.provider.model.clone()),
    };
    if let Some(frames) = recovered {
        emit.note(&format!(
            "Recovered {} undelivered notification(s) from an earlier run; they are delivered with the next turn.",
            frames.len()
        ));
        for f in &frames {
            emit.show(f);
        }
    }
    let cwd = crate::session::paths::physical_cwd()?;
    let host = Host {
        session: session.clone(),
        cfg: cfg.clone(),
        events: events.clone(),
        cancel: cancel.clone(),
        cwd: cwd.clone(),
        depth: o.depth,
        reported: notify.reported(),
        turn: AtomicU64::new(0),
        touched: Mutex::new(Vec::new()),
    };
    let rt = Runtime {
        session: &session,
        cfg: &cfg,
        emit: &emit,
        cancel: &cancel,
        host: &host,
        cwd,
        depth: o.depth,
        mode,
        running: running.clone(),
        spinner: crate::agent::spinner::Spinner::new(
            human && mode == Mode::OneShot && std::io::stderr().is_terminal(),
        ),
        new_requested: AtomicBool::new(false),
    };
    let code = rt.main_loop(&input, first, &signals, editor.as_ref());
    if let Some(ed) = editor {
        ed.join();
        print_goodbye(color, &session.id);
    }
    notify.stop();
    if mode == Mode::SubAgent {
        if let Some(parent) = &o.sub_agent_notify {
            let status = if code == EXIT_OK || code == EXIT_INTERRUPTED {
                "ok"
            } else {
                "failed"
            };
            crate::agent::subagent::send_result(std::path::Path::new(parent), &session, status);
        }
    }
    drop(input);
    session.cleanup_runtime();
    drop(opened.lock);
    if rt.new_requested.load(Ordering::SeqCst) {
        return crate::agent::commands::restart_fresh(&cfg);
    }
    Ok(code)
}

/// The human display: stdout in one-shot mode; in interactive mode the banner, the replay of
/// the last 10 turns, and the line editor whose printer carries all output.
fn human_display(
    session: &Session,
    mode: Mode,
    color: bool,
    running: Arc<AtomicBool>,
    cancel: Cancel,
) -> anyhow::Result<(Mutex<DisplaySink>, Option<crate::agent::editor::Editor>)> {
    let interactive = mode == Mode::Interactive;
    let mut display = Display::new(interactive, color);
    if !interactive {
        let sink = DisplaySink {
            display,
            out: Box::new(std::io::stdout()),
            err: Box::new(std::io::stderr()),
        };
        return Ok((Mutex::new(sink), None));
    }
    print_banner(color);
    if crate::agent::editor::replay(session, 10, &mut display) {
        println!();
    }
    let ed = crate::agent::editor::Editor::start(session, running, cancel)?;
    let sink = DisplaySink {
        display,
        out: ed.printer(),
        err: ed.printer(),
    };
    Ok((Mutex::new(sink), Some(ed)))
}

fn print_banner(color: bool) {
    let t = "bash-agent interactive mode (type 'exit' or Ctrl+D to quit)";
    if color {
        println!("\x1b[36m{t}\x1b[0m");
    } else {
        println!("{t}");
    }
}

fn print_goodbye(color: bool, id: &str) {
    if color {
        println!(
            "\x1b[36mGoodbye!\x1b[0m\n\x1b[90mResume with: --session {id}  or  --continue\x1b[0m"
        );
    } else {
        println!("Goodbye!\nResume with: --session {id}  or  --continue");
    }
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
    fn main_loop(
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
