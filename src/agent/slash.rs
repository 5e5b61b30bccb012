//! Slash commands the shell version lacks (interactive and --listen): /help, /status,
//! /compact, /sessions, /undo [N], /new, /exit.
use crate::agent::context::AgentCtx;
use crate::protocol::Event;
use crate::session::stats::Stats;

pub enum Action {
    /// Done; wait for the next input.
    Handled,
    /// End the session.
    Exit,
    /// Start a fresh session (the runtime re-executes itself).
    New,
    /// Not a known command: send the text to the model as usual.
    NotACommand,
}

const HELP: &str = "\
Commands:
  /help            this list
  /status          model, tokens, context and a cost estimate
  /compact         summarise older context now
  /sessions        sessions of this project
  /undo [N]        restore files changed in the last N turns (default 1)
  /new             start a fresh session
  /exit            end the session (also: exit, quit, Ctrl+D)
Keys: Ctrl+C interrupts a turn, Ctrl+O injects the line into the running turn,
      Ctrl+V pastes a clipboard image, Ctrl+R searches history.
";

use crate::ui::title::thousands;

fn status(rt: &AgentCtx) -> String {
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

/// Run `line` if it is a command.
pub fn run(rt: &AgentCtx, line: &str) -> Action {
    let mut parts = line.split_whitespace();
    let cmd = parts.next().unwrap_or("");
    let arg = parts.next();
    match cmd {
        "/help" | "/?" => rt.out.print(HELP),
        "/status" => rt.out.print(&status(rt)),
        "/exit" | "/quit" => return Action::Exit,
        "/new" => return Action::New,
        "/sessions" => rt.out.print(&crate::session::list::render_text(
            &rt.session.project_dir(),
        )),
        "/compact" => {
            rt.cancel.reset();
            let out = crate::agent::compact::compact(rt, &rt.prompt(), "manual", true);
            use crate::agent::compact::CompactOutcome;
            match out {
                CompactOutcome::Compacted { .. } => rt.emit(Event::context_update("manual")),
                CompactOutcome::NotNeeded => rt.out.print("Nothing to compact.\n"),
                CompactOutcome::Failed(m) => rt.emit(Event::error(m)),
            }
        }
        "/undo" => {
            let n = arg.and_then(|a| a.parse().ok()).unwrap_or(1);
            match crate::history::undo::undo(&rt.session, n, false) {
                Ok(r) => rt.out.print(&format!("{r}\n")),
                Err(e) => rt.emit(Event::error(e)),
            }
        }
        _ => return Action::NotACommand,
    }
    Action::Handled
}
