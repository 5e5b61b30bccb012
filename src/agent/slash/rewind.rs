//! `/rewind`: a numbered list of this session's turns; the next line typed picks one and the
//! conversation and the agent's file changes go back to just before it (`rewind --to N`).
//! `/rewind N [--force]` rewinds at once, `/rewind undo [--force]` undoes the latest rewind.
//! The run holds the session lock and slash commands run between turns, so nothing writes
//! the conversation meanwhile.
use super::Action;
use crate::agent::context::AgentCtx;
use crate::protocol::Event;
use crate::rewind::{self, RewindError};

fn show(ctx: &AgentCtx, res: Result<rewind::Report, RewindError>) {
    match res {
        Ok(r) => {
            let tail = if r.undo {
                String::new()
            } else {
                format!(
                    "\nThe turns above from turn {} on are no longer in the conversation.",
                    r.to
                )
            };
            ctx.out.print(&format!("{r}{tail}\n"));
        }
        Err(e) => ctx.emit(Event::error(e.to_string())),
    }
}

/// `/rewind [ARG]`. Returns whether the list is shown and the next line picks from it.
pub fn start(ctx: &AgentCtx, arg: &str) -> bool {
    let words: Vec<&str> = arg.split_whitespace().collect();
    let force = words.contains(&"--force");
    let rest: Vec<&str> = words.into_iter().filter(|w| *w != "--force").collect();
    match rest.as_slice() {
        [] => {}
        ["undo"] => {
            show(ctx, rewind::undo(&ctx.session, force));
            return false;
        }
        [n] => {
            match n.parse::<u64>() {
                Ok(n) => show(ctx, rewind::rewind(&ctx.session, n, force)),
                Err(_) => ctx.emit(Event::error(format!(
                    "/rewind needs a turn number (see /rewind), not {n:?}"
                ))),
            }
            return false;
        }
        _ => {
            ctx.emit(Event::error(
                "usage: /rewind [N|undo] [--force]".to_string(),
            ));
            return false;
        }
    }
    let turns = rewind::list(&ctx.session);
    let mut s = rewind::apply::render_list(&ctx.session.id, &turns);
    let pickable = turns.iter().any(|t| t.in_conversation);
    if pickable {
        s.push_str(
            "Type a turn number to rewind to just before it (anything else cancels; /rewind undo reverts).\n",
        );
    }
    ctx.out.print(&s);
    pickable
}

/// The line after the list: a number rewinds; anything else cancels (and goes on as usual).
pub fn pick(ctx: &AgentCtx, answer: &str) -> Option<Action> {
    let mut words = answer.split_whitespace();
    let first = words.next().unwrap_or("");
    let force = words.next() == Some("--force");
    match first.parse::<u64>() {
        Ok(n) if !first.is_empty() => {
            show(ctx, rewind::rewind(&ctx.session, n, force));
            Some(Action::Handled)
        }
        _ => {
            ctx.out.print("Rewind cancelled.\n");
            answer.is_empty().then_some(Action::Handled)
        }
    }
}
