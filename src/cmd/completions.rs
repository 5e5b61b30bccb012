//! `bash-agent completions SHELL` and `bash-agent man`: generated from the flag definitions
//! (clap_complete, clap_mangen), so they never drift from `--help`.
use crate::cli::Cli;
use crate::error::{Error, Result};
use clap::CommandFactory;
use std::io::Write;

/// Write the whole text at once: a closed pipe is an error, not a panic mid-script.
fn emit(buf: &[u8]) -> Result {
    let mut out = std::io::stdout().lock();
    out.write_all(buf)
        .and_then(|_| out.flush())
        .map_err(|e| Error::Runtime(format!("cannot write stdout: {e}")))
}

pub fn cmd_completions(shell: clap_complete::Shell) -> Result {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "bash-agent", &mut buf);
    emit(&buf)
}

pub fn cmd_man() -> Result {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut buf)
        .map_err(|e| Error::Runtime(format!("cannot render the man page: {e}")))?;
    emit(&buf)
}
