//! TODO
use crate::cli::Opts;
pub fn cmd_undo(o: &Opts, turns: u64, force: bool) -> anyhow::Result<i32> {
    let _ = (o, turns, force);
    anyhow::bail!("undo not implemented")
}
