//! `bash-agent compact [--session NAME]`: compact the chosen session now.
use crate::agent::compact::CompactOutcome;
use crate::agent::setup::open_session;
use crate::cli::Opts;
use crate::config;
use crate::error::{Error, Result};
use crate::session::events::EventLog;
use crate::util::cancel::Cancel;

/// `bash-agent compact [--session NAME]`: compact the chosen session now.
pub fn cmd_compact(o: &Opts) -> Result {
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
    report_compaction(&out, &events)
}

/// Print the outcome of a manual compaction and log it.
fn report_compaction(out: &CompactOutcome, events: &EventLog) -> Result {
    match out {
        CompactOutcome::Compacted { dropped, kept } => {
            let _ = events.append(&crate::session::events::ev::context_update("manual"));
            println!("Context compacted (manual): {dropped} line(s) summarised, {kept} kept.");
            Ok(())
        }
        CompactOutcome::NotNeeded => {
            println!("Nothing to compact.");
            Ok(())
        }
        CompactOutcome::Failed(m) => Err(Error::Runtime(m.clone())),
    }
}
