//! Session selection: the one place that turns `--session NAME`, `--continue`, `--fork` or
//! nothing into the session a command works on. Every subcommand asks here, so "which session"
//! means the same everywhere (the latest is the one `--list-sessions` puts first).
use crate::cli::Opts;
use crate::error::Error;
use crate::session::{paths, store, Session};
use std::path::{Path, PathBuf};

/// The project folder of the current (physical) working directory.
pub fn project_dir() -> Result<PathBuf, Error> {
    let cwd = paths::physical_cwd().map_err(|e| Error::runtime(format!("cannot read cwd: {e}")))?;
    Ok(paths::project_dir_for(&cwd))
}

/// What the flags ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// No session named: a new one (the agent) or an error (commands that need one).
    Fresh,
    /// `--session NAME` (existing or to be created) or the latest for `--continue`.
    Named(String),
    /// `--fork`: a new session copied from this one.
    Fork(String),
    /// `--continue`/`--fork` in a project without sessions.
    NoneYet,
}

/// Read the flags. Names are validated here (a bad name is a usage error and creates nothing).
pub fn choice(o: &Opts, project: &Path) -> Result<Choice, Error> {
    let named = match o.session.as_deref() {
        Some("") | None => None,
        Some(name) => {
            paths::validate_session_name(name).map_err(Error::Usage)?;
            Some(name.to_string())
        }
    };
    let chosen = match named {
        Some(n) => Some(n),
        None if o.continue_ || o.fork => store::latest_session(project),
        None => None,
    };
    Ok(match (chosen, o.fork) {
        (Some(id), true) => Choice::Fork(id),
        (Some(id), false) => Choice::Named(id),
        (None, _) if o.continue_ || o.fork => Choice::NoneYet,
        (None, _) => Choice::Fresh,
    })
}

/// The session id to open for a run: a new unique id for `Fresh`/`Fork`, the name otherwise.
/// Returns the id and, for a fork, the source session (which must exist).
pub fn for_run(o: &Opts, project: &Path) -> Result<(String, Option<String>), Error> {
    match choice(o, project)? {
        Choice::Named(id) => Ok((id, None)),
        Choice::Fresh => Ok((paths::new_unique_id(project, ""), None)),
        Choice::NoneYet if o.fork => Err(Error::runtime("no session to fork")),
        Choice::NoneYet => Ok((paths::new_unique_id(project, ""), None)),
        Choice::Fork(src) => {
            if !project.join(&src).is_dir() {
                return Err(Error::runtime(format!("session not found: {src}")));
            }
            Ok((paths::new_unique_id(project, ""), Some(src)))
        }
    }
}

/// `--session NAME` (validated), else the project's latest session (`undo` and `usage` work
/// on the latest without `--continue`); `None` when the project has none.
pub fn named_or_latest(o: &Opts, project: &Path) -> Result<Option<String>, Error> {
    match o.session.as_deref() {
        Some(n) if !n.is_empty() => {
            paths::validate_session_name(n).map_err(Error::Usage)?;
            Ok(Some(n.to_string()))
        }
        _ => Ok(store::latest_session(project)),
    }
}

/// An existing session for a command that reads one (replay, undo, usage, ...). `what` names
/// the command in the message when no session is chosen.
pub fn existing(o: &Opts, project: &Path, what: &str) -> Result<Session, Error> {
    let id = match choice(o, project)? {
        Choice::Named(id) | Choice::Fork(id) => id,
        Choice::NoneYet => {
            return Err(Error::runtime(format!(
                "No session to {what} in this project"
            )))
        }
        Choice::Fresh => {
            let mut c = what.chars();
            let what = c
                .next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>());
            return Err(Error::usage(format!(
                "{} needs a session: --session NAME or --continue",
                what.unwrap_or_default()
            )));
        }
    };
    let s = Session::new(project, &id);
    if !s.dir.is_dir() {
        return Err(Error::runtime(format!("Session not found: {id}")));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(session: Option<&str>, cont: bool, fork: bool) -> Opts {
        Opts {
            session: session.map(String::from),
            continue_: cont,
            fork,
            ..Default::default()
        }
    }

    #[test]
    fn flags_map_to_choices() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        assert_eq!(choice(&opts(None, false, false), p).unwrap(), Choice::Fresh);
        assert_eq!(
            choice(&opts(Some(""), false, false), p).unwrap(),
            Choice::Fresh
        );
        assert_eq!(
            choice(&opts(Some("a"), false, false), p).unwrap(),
            Choice::Named("a".into())
        );
        assert_eq!(
            choice(&opts(None, true, false), p).unwrap(),
            Choice::NoneYet
        );
        assert_eq!(
            choice(&opts(Some("a"), false, true), p).unwrap(),
            Choice::Fork("a".into())
        );
        std::fs::create_dir(p.join("latest")).unwrap();
        assert_eq!(
            choice(&opts(None, true, false), p).unwrap(),
            Choice::Named("latest".into())
        );
        assert!(matches!(
            choice(&opts(Some("../x"), false, false), p),
            Err(Error::Usage(_))
        ));
        assert!(matches!(
            for_run(&opts(None, false, true), p),
            Ok((_, Some(_)))
        ));
        assert!(matches!(
            existing(&opts(None, false, false), p, "replay"),
            Err(Error::Usage(_))
        ));
    }
}
