//! `--session NAME --send TEXT [--wait]` and `--inject TEXT`: the script clients. Never
//! blocks on a session nobody serves: `no agent is running on session NAME`, exit 1.
use crate::cli::Opts;
use crate::error::{Error, Result};
use crate::ipc::client::{self, SendError, WaitEnd};
use crate::session::{paths, select, Session};
use std::io::Write;

pub fn cmd_client(o: &Opts) -> Result {
    let name = match o.session.as_deref() {
        Some(n) if !n.is_empty() => n,
        _ => {
            return Err(Error::usage(
                "--send and --inject need --session NAME (the session the agent runs on)",
            ))
        }
    };
    paths::validate_session_name(name).map_err(Error::Usage)?;
    if o.send.as_deref().is_some_and(|t| t.trim().is_empty())
        || o.inject.as_deref().is_some_and(|t| t.trim().is_empty())
    {
        return Err(Error::usage("empty text: nothing to send"));
    }
    if o.wait && o.send.is_none() {
        return Err(Error::usage("--wait needs --send"));
    }
    let session = Session::new(&select::project_dir()?, name);
    let delivered = |r: std::result::Result<(), SendError>| match r {
        Ok(()) => Ok(()),
        Err(SendError::NoAgent) => Err(Error::runtime(format!(
            "no agent is running on session {name}"
        ))),
        Err(SendError::Other(m)) => Err(Error::Runtime(m)),
    };
    if let Some(text) = &o.inject {
        delivered(client::send_notify(&session, text))?;
    }
    if let Some(text) = &o.send {
        let start = std::fs::metadata(session.events())
            .map(|m| m.len())
            .unwrap_or(0);
        let json = o.wait && crate::config::output_format(o)? == crate::options::OutputFormat::Json;
        let headless = crate::agent::headless::Headless::new(crate::options::OutputFormat::Json)
            .filter(|_| json);
        if let Some(h) = &headless {
            h.begin(&session);
        }
        delivered(client::send_input(&session, text))?;
        if let Some(h) = &headless {
            // The turn's result object, from the lines the agent appended for it.
            let end = client::wait_answer(&session, start, text);
            let bytes = std::fs::read(session.events()).unwrap_or_default();
            let from = (start as usize).min(bytes.len());
            for line in String::from_utf8_lossy(&bytes[from..]).lines() {
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                    h.feed_line(&v);
                }
            }
            return match end {
                WaitEnd::Answer(_) => {
                    h.finish(crate::error::EXIT_OK);
                    Ok(())
                }
                WaitEnd::Error(_) => {
                    // The turn's error was printed on stderr as its line was read back.
                    h.finish(crate::error::EXIT_FAIL);
                    Err(Error::Reported(crate::error::Kind::Runtime))
                }
                WaitEnd::Gone => {
                    h.finish(crate::error::EXIT_FAIL);
                    Err(Error::runtime(format!(
                        "the agent on session {name} stopped before answering"
                    )))
                }
            };
        }
        if o.wait {
            return match client::wait_answer(&session, start, text) {
                WaitEnd::Answer(a) => {
                    let mut out = std::io::stdout().lock();
                    let _ = out.write_all(a.as_bytes());
                    if !a.ends_with('\n') {
                        let _ = out.write_all(b"\n");
                    }
                    let _ = out.flush();
                    Ok(())
                }
                WaitEnd::Error(m) => Err(Error::Runtime(m)),
                WaitEnd::Gone => Err(Error::runtime(format!(
                    "the agent on session {name} stopped before answering"
                ))),
            };
        }
    }
    Ok(())
}
