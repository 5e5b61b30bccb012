//! `--list-sessions [--json]`: this project's sessions, latest first (the shell version's
//! exact text, or JSON).
use crate::cli::Opts;
use crate::error::Result;
use std::io::Write;

pub fn cmd_list(o: &Opts) -> Result {
    let project = crate::session::select::project_dir()?;
    let text = if o.json {
        crate::session::list::render_json(&project)
    } else {
        crate::session::list::render_text(&project)
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
