//! TODO
use crate::cli::Opts;
pub fn cmd_usage(o: &Opts, all: bool, since: Option<&str>) -> anyhow::Result<i32> {
    let _ = (o, all, since);
    anyhow::bail!("usage not implemented")
}
