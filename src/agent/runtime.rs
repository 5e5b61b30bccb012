//! The runtime: session selection, lock, FIFOs, main loop over input.fifo. (lead)
use crate::cli::{Cli, Opts};

pub fn cmd_agent(cli: &Cli) -> anyhow::Result<i32> {
    let _ = cli;
    anyhow::bail!("agent not implemented")
}

pub fn cmd_compact(o: &Opts) -> anyhow::Result<i32> {
    let _ = o;
    anyhow::bail!("compact not implemented")
}
