//! TODO
use crate::cli::{Opts, SessionsCmd};
pub fn cmd_sessions(o: &Opts, action: &SessionsCmd) -> anyhow::Result<i32> {
    let _ = (o, action);
    anyhow::bail!("sessions not implemented")
}
