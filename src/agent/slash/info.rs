//! `/status` and `/cost` (what this session used, from stats.json and the usage ledger,
//! priced by `usage::prices`), and `/init` (the `bash-agent init` call).
use crate::agent::context::AgentCtx;
use crate::session::stats::Stats;
use crate::ui::title::thousands;
use crate::usage::prices::Overrides;
use crate::usage::report::{session_entries, sub_sessions, Totals};
use std::collections::BTreeMap;

/// `/init [--force]`: the same call as `bash-agent init` (one model call over a summary of
/// the repository, AGENTS.md written atomically at its root, an existing file kept unless
/// forced), so the command and the subcommand never disagree about what they write.
pub fn init(ctx: &AgentCtx, arg: Option<&str>) -> String {
    use crate::agent::init::{root_for, write_agents_md, InitError};
    let force = matches!(arg, Some("--force" | "force"));
    ctx.cancel.reset();
    match write_agents_md(&ctx.cfg.provider, &root_for(&ctx.cwd), force, &ctx.cancel) {
        Ok(o) => {
            ctx.rec.ledger("init", &o.usage, o.speed, &o.info);
            format!(
                "Wrote {} ({} lines).\n",
                o.path.display(),
                o.text.lines().count()
            )
        }
        Err(InitError::Exists(p)) => format!(
            "{} already exists; /init --force replaces it.\n",
            p.display()
        ),
        Err(e) => format!("{e}\n"),
    }
}

pub fn status(rt: &AgentCtx) -> String {
    let s = Stats::load(&rt.session.stats());
    // Never "context 0" for a session that has a conversation: with no usage recorded
    // (a shell-written session, or no call yet in a run that resumed one) its size stands
    // in, about 4 bytes per token, as for a server that streams no usage.
    let conv_bytes = std::fs::metadata(rt.session.conversation()).map_or(0, |m| m.len());
    let (context, context_note) = if s.current_context_tokens == 0 && conv_bytes > 0 {
        (
            conv_bytes.div_ceil(4),
            " (estimated from the conversation's size)",
        )
    } else if crate::provider::last_usage_estimated() || last_call_estimated(rt) {
        (
            s.current_context_tokens,
            " (estimated: the server reports no usage)",
        )
    } else {
        (s.current_context_tokens, "")
    };
    let p = &rt.cfg.provider;
    let cost = crate::usage::prices::estimate_cost(&p.model, &s.totals())
        .map(|c| format!("${c:.4}"))
        .unwrap_or_else(|| "unknown (no price for this model)".into());
    format!(
        "session   {}\nfolder    {}\nmodel     {} ({})\nturns     {}\nrequests  {} agent, {} compact, {} sub-agent\ntokens    in {} (cache read {}, cache write {}), out {}\ncontext   {} / {} tokens{}\nspeed     {} tok/s (last call)\ncost      {}\n",
        rt.session.id,
        rt.session.dir.display(),
        p.model,
        p.kind.name(),
        s.current_turn_count,
        s.agent_request_count,
        s.compact_request_count,
        s.sub_agent_request_count,
        thousands(s.total_input_tokens),
        thousands(s.total_cache_read_tokens),
        thousands(s.total_cache_creation_tokens),
        thousands(s.total_output_tokens),
        thousands(context),
        thousands(rt.cfg.max_context),
        context_note,
        s.last_call_speed_tok_per_sec,
        cost
    )
}

/// Whether the session's last recorded call had estimated figures (also from an earlier run).
fn last_call_estimated(rt: &AgentCtx) -> bool {
    let (entries, _) = crate::usage::ledger::read(&rt.session.dir.join("usage.jsonl"));
    entries.last().is_some_and(|e| e.estimated)
}

fn cost_text(t: &Totals) -> String {
    if t.priced_calls == 0 {
        "unknown (no price for this model)".into()
    } else if t.priced_calls < t.calls {
        format!("${:.4} (some calls unpriced)", t.cost)
    } else {
        format!("${:.4}", t.cost)
    }
}

/// The `/cost` table: one row per model, columns as wide as their content, so a row fits a
/// 100-column terminal (the rows of one line each wrapped at 120).
fn table(rows: &[(String, &Totals)]) -> String {
    let w = rows
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let mut s = format!(
        "  {:<w$} {:>5} {:>9} {:>8} {:>9} {:>9}  cost\n",
        "model", "calls", "input", "output", "cache rd", "cache wr"
    );
    for (name, t) in rows {
        s.push_str(&format!(
            "  {name:<w$} {:>5} {:>9} {:>8} {:>9} {:>9}  {}\n",
            t.calls,
            thousands(t.usage.input),
            thousands(t.usage.output),
            thousands(t.usage.cache_read),
            thousands(t.usage.cache_creation),
            cost_text(t)
        ));
    }
    s
}

/// `/cost`: this session's calls per model (and its sub-agents'), tokens and cost.
pub fn cost(rt: &AgentCtx) -> String {
    let ov = Overrides::load();
    let dir = &rt.session.dir;
    let (entries, source, _) = session_entries(dir, None);
    let mut models: BTreeMap<String, Totals> = BTreeMap::new();
    let mut total = Totals::default();
    for e in &entries {
        let key = if e.kind == "agent" || e.kind.is_empty() {
            e.model.clone()
        } else {
            format!("{} ({})", e.model, e.kind)
        };
        models.entry(key).or_default().add(e, &ov);
        total.add(e, &ov);
    }
    let mut subs = Totals::default();
    for id in sub_sessions(dir) {
        let (es, _, _) = session_entries(&rt.session.project_dir().join(&id), None);
        for e in &es {
            subs.add(e, &ov);
        }
    }
    let mut s = format!("cost of session {}\n", rt.session.id);
    if total.calls == 0 && subs.calls == 0 {
        s.push_str("  no model calls yet\n");
        return s;
    }
    let mut rows: Vec<(String, &Totals)> = models.iter().map(|(m, t)| (m.clone(), t)).collect();
    if subs.calls > 0 {
        rows.push(("sub-agents".into(), &subs));
    }
    let mut all = total.clone();
    all.merge(&subs);
    rows.push(("total".into(), &all));
    s.push_str(&table(&rows));
    if source == "events" {
        s.push_str(
            "  (from events.jsonl: this session has no usage ledger, so models are unknown)\n",
        );
    }
    s
}
