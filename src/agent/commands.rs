//! Restarts asked for by slash commands (`/new`, `/clear`, `/resume`, `/model NAME`): once
//! the run has ended and released its session, this process becomes a fresh interactive
//! agent with the same provider, sandbox, permission and vision settings.
use crate::agent::context::AgentCtx;
use crate::agent::slash::Restart;

/// The flags of the restarted run (the API key travels in the environment only).
pub fn restart_args(ctx: &AgentCtx, r: &Restart) -> Vec<String> {
    let mut cfg = ctx.cfg.clone();
    if let Restart::Model(m) = r {
        use crate::provider::models;
        cfg.provider.model = m.clone();
        // The limits passed on were the old model's: keep them within the new one's.
        cfg.provider.max_tokens = models::max_tokens_for(m, Some(cfg.provider.max_tokens));
        cfg.max_context = cfg.max_context.min(models::max_context_for(m));
    }
    let mut a = crate::agent::context::child_args(&cfg);
    a.extend(ctx.permission.child_args());
    // The main agent's own prompt flags (a sub-agent keeps its built prompt).
    if let Some(p) = &cfg.overrides.system_prompt {
        a.extend(["--system-prompt".to_string(), p.clone()]);
    }
    if let Some(p) = &cfg.overrides.append_system_prompt {
        a.extend(["--append-system-prompt".to_string(), p.clone()]);
    }
    if cfg.vision {
        a.extend(["--vision".to_string(), "on".to_string()]);
    }
    match r {
        Restart::Fresh => {}
        Restart::Session(id) => a.extend(["--session".to_string(), id.clone()]),
        Restart::Model(_) => a.extend([
            "--session".to_string(),
            ctx.session.id.clone(),
            "--no-replay".to_string(),
        ]),
    }
    a.push("-i".into());
    let typed = ctx.slash.take_carried();
    if !typed.is_empty() {
        a.push("--".into());
        a.push(typed.join("\n"));
    }
    a
}

/// The lines typed after the restarting command that are still queued: the editor sent them
/// to this run's channel. Waits briefly for the channel's reader to hand over the last one.
pub fn carry_typed(ctx: &AgentCtx, input: &crate::ipc::fifo::InputChannel) {
    use crate::ipc::fifo::InputMsg;
    let mut lines = Vec::new();
    while let Ok(m) = input.rx.recv_timeout(std::time::Duration::from_millis(50)) {
        if let InputMsg::UserInput(t) = m {
            lines.push(t);
        }
    }
    ctx.slash.carry(lines);
}

/// Replace this process with the restarted run; returns only on failure.
pub fn restart(ctx: &AgentCtx) -> anyhow::Error {
    use std::os::unix::process::CommandExt;
    let r = ctx.slash.restart().unwrap_or(Restart::Fresh);
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return anyhow::anyhow!("cannot restart: {e}"),
    };
    let mut c = std::process::Command::new(exe);
    let (args, secret_url) = crate::agent::subagent::split_secret_base_url(&restart_args(ctx, &r));
    c.args(args);
    if let Some(u) = secret_url {
        c.env(crate::agent::subagent::BASE_URL_ENV, u);
    }
    if !ctx.cfg.provider.api_key.is_empty() {
        c.env(
            crate::agent::subagent::API_KEY_ENV,
            &ctx.cfg.provider.api_key,
        );
    }
    // Keys typed past the restarting line that the editor had read: the new editor
    // handles them before the ones still waiting in the terminal (ui::handoff).
    let keys = ctx.slash.take_carried_keys();
    if !keys.is_empty() {
        c.env(
            crate::ui::handoff::TYPEAHEAD_ENV,
            crate::ui::handoff::encode(&keys),
        );
    }
    if matches!(r, Restart::Fresh) {
        // The new run's SessionStart says `clear`, as Claude Code's does after /clear.
        c.env(crate::agent::hook_events::CLEARED_ENV, "1");
    }
    let e = c.exec();
    anyhow::anyhow!("cannot restart: {e}")
}
