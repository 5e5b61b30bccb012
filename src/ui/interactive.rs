//! The interactive front end (docs/interactive.md): a line-editor thread that turns what
//! the user types into frames on input.fifo (USER_INPUT, SESSION_END) and notify.fifo
//! (USER_NOTIFY), while the runtime prints through [`Interactive::printer`].
//!
//! On a terminal it is rustyline (emacs keys, history, Ctrl+R, bracketed paste kept as
//! one input, Ctrl+O inject, Ctrl+V image paste; a newline with `\`+Enter, Alt+Enter or
//! Ctrl+J). The prompt stays at the bottom; lines typed while a turn runs are sent at once
//! and the runtime runs them in order. Esc or Ctrl+C interrupts a running turn; at an idle
//! prompt a second Ctrl+C in a row ends the session. A line read ends with its prompt row
//! erased (vendor patch) and the submitted line printed again through the printer, so the
//! transcript never keeps a stale `> ` row. Without a terminal, stdin is read one input
//! per line until EOF.
use crate::ipc::fifo::FifoWriter;
use crate::ipc::resp::Frame;
use crate::session::Session;
use crate::ui::editor_keys::{
    self, classify, BackslashEnter, EditorHelper, EscHandler, ImagePasteHandler, InjectHandler,
    Submit,
};
use crate::ui::handoff::Handoff;
use crate::ui::printer::{self, Printer};
use crate::util::cancel::Cancel;
use rustyline::error::ReadlineError;
use rustyline::{Cmd, Config, EditMode, Editor, EventHandler, KeyCode, KeyEvent, Modifiers};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;

/// What the editor needs from the runtime.
pub struct InteractiveHooks {
    /// True while a turn runs (set by the runtime).
    pub running: Arc<AtomicBool>,
    /// Cancels the running turn.
    pub cancel: Cancel,
    /// A permission question waiting for the next submitted line.
    pub ask: crate::permission::AskSlot,
    /// USER_INPUT and SESSION_END frames go here.
    pub input_fifo: PathBuf,
    /// Ctrl+O USER_NOTIFY frames go here.
    pub notify_fifo: PathBuf,
    /// The palette's slash commands and the folder `@path` completes in (ui::complete).
    pub commands: &'static [crate::ui::complete::Command],
    pub cwd: PathBuf,
    /// Keys the run this one replaced had read and not handled (ui::handoff).
    pub typeahead: Vec<u8>,
}

/// The running editor.
pub struct Interactive {
    thread: Option<JoinHandle<()>>,
    printer: Printer,
    saved_termios: Option<nix::sys::termios::Termios>,
    tty: bool,
    handoff: Arc<Handoff>,
}

fn send(w: &FifoWriter, frame: &Frame) -> bool {
    w.send(frame).is_ok()
}

fn session_end(w: &FifoWriter) {
    let _ = send(w, &Frame::session_end());
}

/// Start the editor for `session`. On a terminal (stdin and stdout) the rustyline
/// editor; otherwise plain line reading from stdin.
pub fn start(session: &Session, hooks: InteractiveHooks) -> anyhow::Result<Interactive> {
    let writer = FifoWriter::open(&hooks.input_fifo)
        .map_err(|e| anyhow::anyhow!("cannot open the input channel: {e}"))?;
    let tty = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if !tty {
        let thread = std::thread::Builder::new()
            .name("stdin-reader".into())
            .spawn(move || plain_loop(writer))?;
        return Ok(Interactive {
            thread: Some(thread),
            printer: Printer::new(None, printer::term_cols()),
            saved_termios: None,
            tty,
            handoff: Arc::default(),
        });
    }
    let saved_termios = nix::sys::termios::tcgetattr(std::io::stdin()).ok();
    let color = helper_color();
    let images_dir = session.images();
    let (tx, rx) = mpsc::channel::<Option<Box<dyn printer::Sink>>>();
    let printer = Printer::new(None, printer::term_cols());
    let p2 = printer.clone();
    let handoff: Arc<Handoff> = Arc::default();
    let h2 = handoff.clone();
    let thread = std::thread::Builder::new()
        .name("line-editor".into())
        .spawn(move || {
            let helper = crate::ui::complete::Helper {
                inner: EditorHelper { color },
                commands: hooks.commands,
                cwd: hooks.cwd.clone(),
                color,
            };
            let mut rl = match build_editor(helper, &hooks, images_dir, &p2) {
                Ok(rl) => rl,
                Err(e) => {
                    let _ = tx.send(None);
                    crate::util::say::err_line(&format!(
                        "Error: cannot start the line editor: {e}"
                    ));
                    session_end(&writer);
                    return;
                }
            };
            let sink: Option<Box<dyn printer::Sink>> = match rl.create_external_printer() {
                Ok(p) => Some(Box::new(p)),
                Err(_) => None,
            };
            let _ = tx.send(sink);
            rl.set_pending_input(&hooks.typeahead);
            editor_loop(&mut rl, &writer, &hooks, &p2, &h2, color);
        })?;
    if let Some(sink) = rx.recv().ok().flatten() {
        printer.attach(sink);
    }
    Ok(Interactive {
        thread: Some(thread),
        printer,
        saved_termios,
        tty,
        handoff,
    })
}

/// Colours and cursor movement (the status line is drawn): not NO_COLOR, not TERM=dumb.
fn helper_color() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

type Rl = Editor<crate::ui::complete::Helper, rustyline::history::DefaultHistory>;

fn build_editor(
    helper: crate::ui::complete::Helper,
    hooks: &InteractiveHooks,
    images_dir: PathBuf,
    printer: &Printer,
) -> rustyline::Result<Rl> {
    let notify_fifo = hooks.notify_fifo.clone();
    let config = Config::builder()
        .edit_mode(EditMode::Emacs)
        .auto_add_history(false)
        .bracketed_paste(true)
        // A lone Esc is a key of its own (it interrupts a turn), not a Meta prefix that
        // waits for the next key: a terminal sends a sequence's bytes together.
        .keyseq_timeout(Some(25))
        .completion_type(rustyline::CompletionType::List)
        .max_history_size(editor_keys::HISTORY_LOAD * 2)?
        .build();
    let mut rl: Rl = Editor::with_config(config)?;
    rl.set_clear_prompt_on_exit(true);
    rl.set_helper(Some(helper));
    rl.bind_sequence(
        KeyEvent::ctrl('O'),
        EventHandler::Conditional(Box::new(InjectHandler { notify_fifo })),
    );
    rl.bind_sequence(
        KeyEvent::ctrl('V'),
        EventHandler::Conditional(Box::new(ImagePasteHandler {
            images_dir,
            printer: printer.clone(),
        })),
    );
    rl.bind_sequence(
        KeyEvent(KeyCode::BackTab, Modifiers::NONE),
        EventHandler::Conditional(Box::new(editor_keys::ModeCycle {
            ask: hooks.ask.clone(),
            printer: printer.clone(),
            color: helper_color(),
        })),
    );
    // The permission menu's keys (they act only while a question waits on an empty line).
    let menu = |key| {
        EventHandler::Conditional(Box::new(editor_keys::MenuHandler {
            ask: hooks.ask.clone(),
            key,
        }))
    };
    rl.bind_sequence(
        KeyEvent(KeyCode::Up, Modifiers::NONE),
        menu(editor_keys::MenuKey::Step(-1)),
    );
    rl.bind_sequence(
        KeyEvent(KeyCode::Down, Modifiers::NONE),
        menu(editor_keys::MenuKey::Step(1)),
    );
    for n in 1..=9u8 {
        rl.bind_sequence(
            KeyEvent(KeyCode::Char(char::from(b'0' + n)), Modifiers::NONE),
            menu(editor_keys::MenuKey::Number(n.into())),
        );
    }
    // Newlines in the prompt: Alt+Enter, Ctrl+J, and `\` at the end then Enter.
    rl.bind_sequence(KeyEvent(KeyCode::Enter, Modifiers::ALT), Cmd::Newline);
    rl.bind_sequence(KeyEvent::ctrl('J'), Cmd::Newline);
    rl.bind_sequence(
        KeyEvent(KeyCode::Enter, Modifiers::NONE),
        EventHandler::Conditional(Box::new(BackslashEnter)),
    );
    // Esc interrupts a running turn. An Esc and a Ctrl+C read together arrive as
    // Ctrl+Alt+C: both keys count, so the Ctrl+C is never swallowed.
    let esc = |then_interrupt| EscHandler {
        running: hooks.running.clone(),
        cancel: hooks.cancel.clone(),
        then_interrupt,
    };
    rl.bind_sequence(
        KeyEvent(KeyCode::Esc, Modifiers::NONE),
        EventHandler::Conditional(Box::new(esc(false))),
    );
    rl.bind_sequence(
        KeyEvent(KeyCode::Char('C'), Modifiers::CTRL_ALT),
        EventHandler::Conditional(Box::new(esc(true))),
    );
    for entry in editor_keys::load_history(&editor_keys::history_path(), editor_keys::HISTORY_LOAD)
    {
        let _ = rl.add_history_entry(entry);
    }
    Ok(rl)
}

/// The transcript copy of a submitted line: the prompt glyph, continuation lines indented.
fn echo(line: &str, color: bool) -> String {
    let body = line.replace('\n', "\n  ");
    if color {
        format!("\x1b[32m>\x1b[0m {body}")
    } else {
        format!("> {body}")
    }
}

fn editor_loop(
    rl: &mut Rl,
    writer: &FifoWriter,
    hooks: &InteractiveHooks,
    printer: &Printer,
    handoff: &Handoff,
    color: bool,
) {
    let history = editor_keys::history_path();
    // A Ctrl+C at an idle prompt arms the exit; the next one (in a row) exits.
    let mut armed = false;
    loop {
        let read = rl.readline(editor_keys::PROMPT);
        // The editor erased its prompt row; a submitted line is kept as a transcript line.
        if let Ok(line) = &read {
            if !line.trim().is_empty() && printer.has_sink() {
                printer.echo(echo(line, color));
            }
        }
        match read {
            Ok(line) => {
                armed = false;
                // An open question during a tool call (an MCP elicitation's field) takes any
                // line, a blank one too (Enter takes the default).
                if hooks.ask.pending() && hooks.ask.free_form() {
                    hooks.ask.answer(&line);
                    continue;
                }
                // A waiting permission question takes an answer (Enter on a blank line takes
                // the menu's selection). Other text was typed ahead for the agent: it is
                // queued as the next input, never taken as a refusal with that text as the
                // reason.
                if hooks.ask.pending() && !line.trim().is_empty() {
                    // A choice's number as a line (pasted, or typed after other keys).
                    let numbered = line.trim().parse().ok();
                    if let Some(a) = numbered.and_then(|n| hooks.ask.menu().numbered(n)) {
                        hooks.ask.answer(a);
                        continue;
                    }
                    if crate::permission::is_answer(&line) {
                        hooks.ask.answer(&line);
                        continue;
                    }
                    let mut p = printer.clone();
                    let _ = p.write_all(
                        b"(queued as your next message; the question still waits: a number, or y, a, p, u or n)\n",
                    );
                } else if hooks.ask.pending() {
                    if let Some(a) = hooks.ask.menu().selected() {
                        hooks.ask.answer(a);
                    }
                    continue;
                }
                match classify(&line) {
                    Submit::Skip => continue,
                    Submit::End => {
                        session_end(writer);
                        return;
                    }
                    Submit::Input => {
                        let _ = rl.add_history_entry(line.as_str());
                        let _ = editor_keys::append_history(&history, &line);
                        // At an idle prompt the runtime routes the line at once, and it
                        // may restart the run: keys typed past it stay unread until the
                        // runtime has said (ui::handoff).
                        let idle = !hooks.running.load(Ordering::SeqCst);
                        if idle {
                            handoff.hold(rl.pending_input());
                        }
                        if !send(writer, &Frame::user_input(line.as_str())) {
                            crate::util::say::err_line("Error: the agent stopped reading input");
                            return;
                        }
                        if idle {
                            handoff.wait();
                        }
                    }
                }
            }
            Err(ReadlineError::Interrupted) => {
                if hooks.running.load(Ordering::SeqCst) {
                    hooks.cancel.cancel();
                    armed = false;
                } else if armed {
                    session_end(writer);
                    return;
                } else {
                    armed = true;
                    let mut p = printer.clone();
                    let _ = p.write_all(b"(Press Ctrl+C again to exit)\n");
                }
            }
            Err(ReadlineError::Eof) => {
                hang_up_if_gone();
                session_end(writer);
                return;
            }
            Err(e) => {
                if !hang_up_if_gone() {
                    crate::util::say::err_line(&format!("Error: line editor: {e}"));
                }
                session_end(writer);
                return;
            }
        }
    }
}

/// The terminal was closed (reads see end-of-file, writes and ioctls fail with EIO): treat
/// it as the SIGHUP a login shell would forward, so the running turn and the run's children
/// end now instead of running on for nobody. Not every close comes with a SIGHUP (a
/// non-interactive shell as the session leader forwards none). True when the terminal is gone.
fn hang_up_if_gone() -> bool {
    if nix::sys::termios::tcgetattr(std::io::stdin()).is_ok() {
        return false;
    }
    let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGHUP);
    true
}

/// No terminal: one input per line of stdin; `exit`/`quit` or EOF ends the session.
fn plain_loop(writer: FifoWriter) {
    let stdin = std::io::stdin();
    let mut r = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match r.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches('\n').trim_end_matches('\r');
        match classify(line) {
            Submit::Skip => continue,
            Submit::End => break,
            Submit::Input => {
                if !send(&writer, &Frame::user_input(line)) {
                    return;
                }
            }
        }
    }
    session_end(&writer);
}

impl Interactive {
    /// The writer for all display output while the editor runs (stdout and errors).
    pub fn printer(&self) -> Box<dyn Write + Send> {
        Box::new(self.printer.clone())
    }

    /// The printer itself (its live region carries the status line).
    pub fn live_printer(&self) -> Printer {
        self.printer.clone()
    }

    /// Whether the editor runs on a terminal (rustyline) rather than plain stdin.
    pub fn is_tty(&self) -> bool {
        self.tty
    }

    /// A turn ended: show any held-back partial output line (the prompt stays below).
    pub fn turn_finished(&self) {
        self.printer.flush_partial();
        if self.tty {
            self.printer.set_cols(printer::term_cols());
        }
    }

    /// The runtime took a line and goes on (see [`Handoff::taken`]).
    pub fn input_taken(&self) {
        self.handoff.taken();
    }

    /// The runtime restarts: the keys the editor read and holds unhandled.
    pub fn restarting(&self) -> Vec<u8> {
        self.handoff.restarting()
    }

    /// Whether the editor thread has ended (the user ended the session or stdin closed).
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(|t| t.is_finished())
    }

    /// The runtime is exiting. A finished editor is joined; one still waiting for a key
    /// (the session ended another way) is left behind after the terminal mode is
    /// restored, since the process is about to exit.
    pub fn join(mut self) {
        self.printer.detach();
        if let Some(t) = self.thread.take() {
            if t.is_finished() {
                let _ = t.join();
                return;
            }
            if let Some(saved) = &self.saved_termios {
                let _ = nix::sys::termios::tcsetattr(
                    std::io::stdin(),
                    nix::sys::termios::SetArg::TCSANOW,
                    saved,
                );
                // Bracketed paste off, cursor to a fresh line.
                let mut out = std::io::stdout();
                let _ = out.write_all(b"\x1b[?2004l\r\n");
                let _ = out.flush();
            }
        }
    }
}
