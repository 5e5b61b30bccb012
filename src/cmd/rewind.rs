//! `bash-agent rewind [--session NAME] [--to N | --undo] [--force]` (docs/rewind.md): list
//! the turns, rewind to just before turn N, or undo the latest rewind, under the session lock.
use crate::cli::Opts;
use crate::error::{Error, Result};
use crate::rewind::{self, RewindError};
use crate::session::Session;

/// Parse `--to`: a turn number (a clear usage error for anything else).
fn turn_number(s: &str) -> std::result::Result<u64, Error> {
    let t = s.trim();
    if let Some(rest) = t.strip_prefix('-') {
        if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()) {
            return Err(Error::usage(format!(
                "--to {t}: there is nothing before the first turn (turns are numbered from 1)"
            )));
        }
    }
    t.parse::<u64>().map_err(|_| {
        Error::usage(format!(
            "--to needs a turn number (1, 2, …, as `bash-agent rewind` lists them), not {s:?}"
        ))
    })
}

/// `bash-agent rewind …`.
pub fn cmd_rewind(o: &Opts, to: Option<&str>, undo: bool, force: bool) -> Result {
    if to.is_some() && undo {
        return Err(Error::usage("rewind takes --to N or --undo, not both"));
    }
    let n = to.map(turn_number).transpose()?;
    let project = crate::session::select::project_dir()?;
    let Some(id) = crate::session::select::named_or_latest(o, &project)? else {
        return Err(Error::runtime("no session to rewind in this project"));
    };
    let session = Session::new(&project, &id);
    if !session.dir.is_dir() {
        return Err(Error::runtime(format!(
            "no session named {id} in this project"
        )));
    }
    if n.is_none() && !undo {
        // The list reads the turns: a rewind a crash left half done is finished first, when
        // no agent holds the session (one that does finished it when it opened the session).
        if let Ok(_lock) = crate::session::lock::SessionLock::acquire(&session.dir, &id) {
            recover(&session)?;
        }
        return list(o, &session);
    }
    // A shell-version agent takes no lock but keeps agent_running.flag while it works.
    if let Some(pid) = crate::sessions::manage::running_pid(&session.dir) {
        return Err(Error::runtime(format!(
            "session {id} is in use by {}: an agent is running on it; stop it, or use /rewind inside that agent",
            crate::sessions::manage::pid_text(pid)
        )));
    }
    // The session's run lock: no agent may run a turn while the conversation is rewritten.
    let _lock = crate::session::lock::SessionLock::acquire(&session.dir, &id).map_err(|e| {
        Error::runtime(format!(
            "{e}: an agent is running on it; stop it, or use /rewind inside that agent"
        ))
    })?;
    recover(&session)?;
    let res = match n {
        Some(n) => rewind::rewind(&session, n, force),
        None => rewind::undo(&session, force),
    };
    match res {
        Ok(r) => {
            if o.json {
                let v = serde_json::json!({
                    "session": id,
                    "action": if r.undo { "undo" } else { "rewind" },
                    "id": r.id,
                    "to": r.to,
                    "turns": r.turns,
                    "lines": r.lines,
                    "files": r.file_names(),
                    "overwritten": r.overwritten.iter().map(|p| p.to_string_lossy()).collect::<Vec<_>>(),
                });
                println!("{v}");
            } else {
                println!("Session {id}: {r}");
            }
            Ok(())
        }
        Err(RewindError::BadTurn(m)) => Err(Error::usage(m)),
        Err(RewindError::Failed(m)) => Err(Error::runtime(m)),
    }
}

/// Finish a rewind or undo a killed run left half done (docs/rewind.md, "Crashes"); the
/// caller holds the session lock. Each thing done is said on stderr and logged as an
/// `error` event, as the open of a session does.
pub(crate) fn recover(session: &Session) -> Result {
    let notes = rewind::recover(session).map_err(|e| {
        Error::runtime(format!(
            "a rewind interrupted by a crash could not be finished: {e}"
        ))
    })?;
    for m in notes {
        crate::util::say::err(&format!("bash-agent: {m}\n"));
        let _ = crate::util::fsx::append_line(
            &session.events(),
            &crate::session::events::ev::error(&m),
        );
    }
    Ok(())
}

/// The turns, numbered as `--to` takes them.
fn list(o: &Opts, session: &Session) -> Result {
    let turns = rewind::list(session);
    if o.json {
        let v: Vec<_> = turns
            .iter()
            .map(|t| {
                serde_json::json!({
                    "turn": t.number, "input": t.input, "in_conversation": t.in_conversation
                })
            })
            .collect();
        println!("{}", serde_json::json!({"session": session.id, "turns": v}));
        return Ok(());
    }
    print!("{}", crate::rewind::apply::render_list(&session.id, &turns));
    Ok(())
}
