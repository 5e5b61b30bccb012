//! Script clients `--send` / `--inject` (issue 5). TODO: IPC helper.
use crate::cli::Opts;

pub fn cmd_client(o: &Opts) -> anyhow::Result<i32> {
    let _ = o;
    anyhow::bail!("--send/--inject not implemented")
}
