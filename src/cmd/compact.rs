//! `bash-agent compact [--session NAME]`: compact the chosen session now.
use crate::agent::compact::CompactOutcome;
use crate::agent::context::AgentCtx;
use crate::agent::recorder::Recorder;
use crate::agent::setup::open_session;
use crate::cli::Opts;
use crate::config;
use crate::error::{Error, Result};
use crate::session::events::EventLog;

/// `bash-agent compact [--session NAME]`: compact the chosen session now.
pub fn cmd_compact(o: &Opts) -> Result {
    // The folder's trust first: an untrusted project's hooks do not run (said on stderr).
    crate::cmd::trust::decide_for_run(crate::cmd::trust::Ask::No)?;
    let cfg = config::resolve(o, true)?;
    crate::sandbox::env::register_provider_keys(&cfg.provider.api_key);
    let (opened, events) = open_session(o, None)?;
    let session = opened.session;
    // Hooks (PreCompact) run under the same sandbox as in a run.
    crate::sandbox::configure(cfg.sandbox.clone(), Some(&session.dir));
    let cwd = crate::session::paths::physical_cwd()?;
    let rec = Recorder::new(session.clone(), events.clone(), &cfg);
    let mut ctx = AgentCtx::new(session.clone(), cfg, cwd, rec);
    // The project's hooks (PreCompact) apply as in `/compact`; MCP servers are only read, a
    // compaction starts none.
    let ext = crate::agent::extensions::Extensions::load(&ctx, &|w| ctx.out.warn(w));
    ctx.ext = ext;
    let _ = signal_hook::flag::register(signal_hook::consts::SIGINT, ctx.cancel.flag());
    let out = crate::agent::compact::compact(&ctx, &ctx.prompt(), "manual", true);
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
