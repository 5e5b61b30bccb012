//! `--replay [N]`, `--replay-frames [N]`, `--render` and `--print-replay-awk`.
use crate::cli::Opts;
use crate::error::{Error, Result};
use crate::ipc::resp;
use crate::ui::display::Display;
use crate::ui::replay::{for_each_frame, DEFAULT_TURNS};
use std::io::{self, IsTerminal, Write};

fn turns_arg(v: &str, flag: &str) -> Result<usize> {
    v.trim()
        .parse()
        .map_err(|_| Error::usage(format!("Invalid {flag}: {v}")))
}

/// Colours for a command writing to stdout: only on a TTY without NO_COLOR.
fn stdout_color() -> bool {
    io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

fn ok_unless_broken_pipe(r: io::Result<()>) -> Result {
    match r {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// `--replay [N]` / `--replay-frames [N]` for the session chosen by `--session NAME` /
/// `--continue`.
pub fn cmd_replay(o: &Opts) -> Result {
    let (frames_mode, turns) = match (&o.replay_frames, &o.replay) {
        (Some(n), _) => (true, turns_arg(n, "--replay-frames")?),
        (None, Some(n)) => (false, turns_arg(n, "--replay")?),
        (None, None) => (false, DEFAULT_TURNS),
    };
    let project = crate::session::select::project_dir()?;
    let session = crate::session::select::existing(o, &project, "replay")?;
    let events = session.events();
    if frames_mode {
        let stdout = io::stdout();
        let mut out = io::BufWriter::new(stdout.lock());
        let mut werr: io::Result<()> = Ok(());
        for_each_frame(&events, turns, false, &mut |fr| {
            if werr.is_ok() {
                werr = out.write_all(&fr.encode());
            }
        })?;
        return ok_unless_broken_pipe(werr.and_then(|_| out.flush()));
    }
    let interactive = io::stdout().is_terminal();
    let mut d = Display::new(interactive, stdout_color());
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut err = io::stderr();
    for_each_frame(&events, turns, true, &mut |fr| {
        d.render(&fr, &mut out, &mut err)
    })?;
    d.finish(&mut out);
    ok_unless_broken_pipe(out.flush())
}

/// `--render`: RESP display frames on stdin → the terminal display. Malformed frames are
/// reported on stderr and skipped.
pub fn cmd_render() -> Result {
    let interactive = io::stdout().is_terminal();
    let mut d = Display::new(interactive, stdout_color());
    let stdin = io::stdin();
    let mut reader = resp::Reader::new(stdin.lock());
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut err = io::stderr();
    loop {
        let frame = reader.next_frame(|item| {
            if let resp::Item::Malformed(e) = item {
                eprintln!("Warning: skipping a malformed frame: {e}");
            }
        })?;
        match frame {
            Some(fr) => d.render(&fr, &mut out, &mut err),
            None => break,
        }
    }
    d.finish(&mut out);
    ok_unless_broken_pipe(out.flush())
}

/// `--print-replay-awk`: the embedded awk replay script.
pub fn cmd_print_replay_awk() -> Result {
    let mut out = io::stdout().lock();
    ok_unless_broken_pipe(out.write_all(crate::ui::replay::REPLAY_AWK.as_bytes()))
}
