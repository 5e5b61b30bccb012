//! Commands around the runtime: `bash-agent compact` and the `/new` restart.
use crate::agent::setup::open_session;
use crate::app::{EXIT_FAIL, EXIT_OK};
use crate::cli::Opts;
use crate::config::{self, Config};
use crate::util::cancel::Cancel;

/// `bash-agent compact [--session NAME]`: compact the chosen session now.
pub fn cmd_compact(o: &Opts) -> anyhow::Result<i32> {
    let cfg = config::resolve(o, true)?;
    let (opened, events) = open_session(o, false)?;
    let session = opened.session;
    let cwd = crate::session::paths::physical_cwd()?;
    let system = crate::agent::prompt::build(&crate::agent::prompt::PromptInputs {
        session: &session,
        cwd: &cwd,
        skills: &cfg.skills,
        depth: 0,
    });
    let cancel = Cancel::new();
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, cancel.flag());
    let out = crate::agent::compact::compact(
        &crate::agent::compact::CompactCtx {
            session: &session,
            cfg: &cfg,
            system_prompt: &system,
            events: &events,
            cancel: &cancel,
            force: true,
        },
        "manual",
    );
    session.cleanup_runtime();
    Ok(report_compaction(&out, &events))
}

/// Print the outcome of a manual compaction, log it, and map it to an exit code.
pub fn report_compaction(
    out: &crate::agent::compact::CompactOutcome,
    events: &crate::session::events::EventLog,
) -> i32 {
    use crate::agent::compact::CompactOutcome;
    match out {
        CompactOutcome::Compacted { dropped, kept } => {
            let _ = events.append(&crate::session::events::ev::context_update("manual"));
            println!("Context compacted (manual): {dropped} line(s) summarised, {kept} kept.");
            EXIT_OK
        }
        CompactOutcome::NotNeeded => {
            println!("Nothing to compact.");
            EXIT_OK
        }
        CompactOutcome::Failed(m) => {
            crate::app::print_error(m);
            EXIT_FAIL
        }
    }
}

/// `/new`: replace this process with a fresh interactive session (same provider flags).
pub fn restart_fresh(cfg: &Config) -> anyhow::Result<i32> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe()?;
    let mut c = std::process::Command::new(exe);
    c.args(crate::agent::host::child_args(cfg)).arg("-i");
    if !cfg.provider.api_key.is_empty() {
        c.env(crate::agent::subagent::API_KEY_ENV, &cfg.provider.api_key);
    }
    let e = c.exec();
    Err(anyhow::anyhow!("cannot start a new session: {e}"))
}
