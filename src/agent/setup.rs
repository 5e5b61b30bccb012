//! Run setup: mode selection, session choice (`--session`, `--continue`, `--fork`,
//! sub-agent), the run lock, init and stale-state recovery.
use crate::cli::{Cli, Opts};
use crate::error::Error;
use crate::session::events::EventLog;
use crate::session::lock::SessionLock;
use crate::session::Session;
use std::io::{IsTerminal, Read};

/// How this process interacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    OneShot,
    Interactive,
    Listen,
    SubAgent,
}

/// The chosen mode and the first input (if any).
pub fn pick_mode(cli: &Cli) -> Result<(Mode, Option<String>), Error> {
    let o = &cli.opts;
    if o.sub_agent_notify.is_some() {
        let p = cli.prompt.clone().unwrap_or_default();
        return Ok((Mode::SubAgent, Some(p)));
    }
    if o.listen {
        return Ok((Mode::Listen, cli.prompt.clone()));
    }
    // A prompt given with -i becomes the first input (the shell version dropped it).
    if o.interactive {
        return Ok((Mode::Interactive, cli.prompt.clone()));
    }
    if let Some(p) = &cli.prompt {
        if p.trim().is_empty() {
            return Err(Error::Usage("empty prompt".into()));
        }
        let piped = match stdin_is_data() {
            true => read_stdin_capped()?,
            false => String::new(),
        };
        return Ok((Mode::OneShot, Some(join_stdin(p, &piped))));
    }
    if std::io::stdin().is_terminal() {
        return Ok((Mode::Interactive, None));
    }
    let text = read_stdin_capped()?;
    let text = text.trim_end_matches(['\n', '\r']);
    if text.trim().is_empty() {
        // An empty prompt is an error, never the text "0" (docs/differences-from-shell.md).
        return Err(Error::Usage(
            "empty prompt: give a prompt argument or pipe text on stdin".into(),
        ));
    }
    Ok((Mode::OneShot, Some(text.to_string())))
}

/// The most stdin is read (as a prompt or as context for one).
pub const STDIN_MAX: u64 = 10 * 1024 * 1024;

/// Read stdin whole, refusing more than [`STDIN_MAX`] bytes.
fn read_stdin_capped() -> Result<String, Error> {
    let mut buf = Vec::new();
    std::io::stdin()
        .lock()
        .take(STDIN_MAX + 1)
        .read_to_end(&mut buf)
        .map_err(|e| Error::Runtime(format!("cannot read stdin: {e}")))?;
    if buf.len() as u64 > STDIN_MAX {
        return Err(Error::Usage(format!(
            "stdin is larger than {} MB; pass a smaller input (or a file path in the prompt)",
            STDIN_MAX / (1024 * 1024)
        )));
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Stdin holds data to read alongside a prompt: a pipe or a redirected file. A terminal,
/// /dev/null or a socket is not read, so a prompt given on the command line never waits on
/// an inherited stdin that nobody writes to.
fn stdin_is_data() -> bool {
    use nix::sys::stat::{fstat, SFlag};
    match fstat(0) {
        Ok(st) => {
            let kind = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
            kind == SFlag::S_IFIFO || kind == SFlag::S_IFREG
        }
        Err(_) => false,
    }
}

/// The prompt with piped stdin as its context (`git diff | bash-agent "review this"`);
/// the prompt alone when stdin held nothing.
pub fn join_stdin(prompt: &str, stdin: &str) -> String {
    let body = stdin.trim_end_matches(['\n', '\r']);
    if body.trim().is_empty() {
        return prompt.to_string();
    }
    format!("{prompt}\n\n<stdin>\n{body}\n</stdin>")
}

/// An opened, locked, initialised session.
pub struct Opened {
    pub session: Session,
    pub lock: SessionLock,
    pub is_new: bool,
    pub forked_from: Option<String>,
    /// Undelivered notifications left by an earlier run (surfaced, then drained).
    pub recovered: Option<Vec<crate::ipc::resp::Frame>>,
}

/// Choose the session, take its lock, fork if asked, init it.
pub fn open_session(
    o: &Opts,
    echo: Option<crate::session::events::Echo>,
) -> crate::error::Result<(Opened, EventLog)> {
    open_session_with(o, echo, &|_| {})
}

/// [`open_session`], calling `on_open` once the session is chosen and locked, before its
/// first event line is written (stream-json's `init` record comes before `session_start`).
pub fn open_session_with(
    o: &Opts,
    echo: Option<crate::session::events::Echo>,
    on_open: &dyn Fn(&Session),
) -> crate::error::Result<(Opened, EventLog)> {
    let project = crate::session::select::project_dir()?;
    let (id, forked_from) = crate::session::select::for_run(o, &project)?;
    let session = Session::new(&project, &id);
    session.create_dir()?;
    let lock = SessionLock::acquire(&session.dir, &id).map_err(crate::error::Error::runtime)?;
    // Before init: init replaces a regular file named notify.fifo (left by an orphaned
    // shell child) with a FIFO; recovery moves its frames into notify.buf first.
    let recovered = crate::ipc::notify::recover_stale(&session);
    if let Some(src) = &forked_from {
        session.fork_from(&Session::new(&project, src))?;
    }
    if let Some(parent) = &o.parent_dir {
        let p = std::path::PathBuf::from(parent);
        if p.is_dir() && !crate::session::fsx_non_empty_conv(&session) {
            session.fork_from(&Session {
                id: String::new(),
                dir: p,
            })?;
        }
    }
    on_open(&session);
    let events = EventLog::new(session.events(), echo);
    let is_new = session.init(&events)?;
    // A rewind (or its undo) a killed run left half done is finished before anything reads
    // the conversation (docs/rewind.md, "Crashes").
    let notes = crate::rewind::recover(&session).map_err(|e| {
        crate::error::Error::runtime(format!(
            "session {id}: a rewind interrupted by a crash could not be finished: {e}"
        ))
    })?;
    for m in notes {
        crate::util::say::err(&format!("bash-agent: {m}\n"));
        events.append(&crate::session::events::ev::error(&m))?;
    }
    Ok((
        Opened {
            session,
            lock,
            is_new,
            forked_from,
            recovered,
        },
        events,
    ))
}
