//! The `/new` restart: this process becomes a fresh interactive agent.
use crate::config::Config;

/// `/new`: replace this process with a fresh interactive session (same provider flags).
pub fn restart_fresh(cfg: &Config) -> anyhow::Error {
    use std::os::unix::process::CommandExt;
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return anyhow::anyhow!("cannot start a new session: {e}"),
    };
    let mut c = std::process::Command::new(exe);
    c.args(crate::agent::context::child_args(cfg)).arg("-i");
    if !cfg.provider.api_key.is_empty() {
        c.env(crate::agent::subagent::API_KEY_ENV, &cfg.provider.api_key);
    }
    let e = c.exec();
    anyhow::anyhow!("cannot start a new session: {e}")
}
