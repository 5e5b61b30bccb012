//! Top level: parse the command line, pick the mode, map errors to exit codes
//! (0 success, 1 runtime failure, 2 usage error, 130 interrupted).
use crate::cli::{Cli, Command, Opts};
use crate::session::paths;
use clap::Parser;

pub const EXIT_OK: i32 = 0;
pub const EXIT_FAIL: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_INTERRUPTED: i32 = 130;

/// Print `Error: <msg>` in red (on a TTY without NO_COLOR) to stderr.
pub fn print_error(msg: &str) {
    use std::io::IsTerminal;
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    if color {
        eprintln!("\x1b[31mError: {msg}\x1b[0m");
    } else {
        eprintln!("Error: {msg}");
    }
}

fn parse() -> Result<Cli, i32> {
    match Cli::try_parse() {
        Ok(c) => Ok(c),
        Err(e) => {
            use clap::error::{ContextKind, ErrorKind};
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    Err(EXIT_OK)
                }
                ErrorKind::UnknownArgument => {
                    let arg = e
                        .get(ContextKind::InvalidArg)
                        .map(|v| v.to_string())
                        .unwrap_or_default();
                    print_error(&format!("Unknown option: {arg}"));
                    Err(EXIT_USAGE)
                }
                ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
                    let ctx = |k| e.get(k).map(|v| v.to_string()).unwrap_or_default();
                    let valid = match e.get(ContextKind::ValidValue) {
                        Some(clap::error::ContextValue::Strings(v)) => v.clone(),
                        _ => Vec::new(),
                    };
                    print_error(&crate::config::invalid_flag_message(
                        &ctx(ContextKind::InvalidArg),
                        &ctx(ContextKind::InvalidValue),
                        &valid,
                    ));
                    Err(EXIT_USAGE)
                }
                _ => {
                    let _ = e.print();
                    Err(EXIT_USAGE)
                }
            }
        }
    }
}

/// The project folder of the current (physical) working directory.
pub fn project_dir() -> anyhow::Result<std::path::PathBuf> {
    Ok(paths::project_dir_for(&paths::physical_cwd()?))
}

/// Resolve `--session NAME` / `--continue` to an existing-or-new session id (no files
/// are created). Names are validated first.
pub fn resolve_session_id(o: &Opts, project: &std::path::Path) -> Result<Option<String>, String> {
    match o.session.as_deref() {
        Some("") => Ok(None),
        Some(name) => {
            paths::validate_session_name(name)?;
            Ok(Some(name.to_string()))
        }
        None if o.continue_ || o.fork => Ok(crate::session::store::latest_session(project)),
        None => Ok(None),
    }
}

/// Entry point; returns the exit code.
pub fn run() -> i32 {
    let cli = match parse() {
        Ok(c) => c,
        Err(code) => return code,
    };
    match dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            if let Some(ce) = e.downcast_ref::<crate::config::ConfigError>() {
                print_error(&ce.to_string());
                return match ce {
                    crate::config::ConfigError::Usage(_) => EXIT_USAGE,
                    crate::config::ConfigError::Fatal(_) => EXIT_FAIL,
                };
            }
            print_error(&format!("{e:#}"));
            EXIT_FAIL
        }
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<i32> {
    let o = &cli.opts;
    if o.print_replay_awk {
        print!("{}", crate::ui::replay::REPLAY_AWK);
        return Ok(EXIT_OK);
    }
    if o.render {
        return crate::ui::replay::cmd_render(o);
    }
    if o.list_sessions {
        let project = project_dir()?;
        let text = if o.json {
            crate::session::list::render_json(&project)
        } else {
            crate::session::list::render_text(&project)
        };
        print!("{text}");
        return Ok(EXIT_OK);
    }
    if let Some(cmd) = &cli.command {
        return match cmd {
            Command::MockServer {
                script,
                port,
                record,
            } => crate::mock::cmd(script, *port, record.as_deref()),
            Command::Tool { name, input } => crate::tools::cmd_tool(o, name, input),
            Command::Compact => crate::agent::commands::cmd_compact(o),
            Command::Undo { turns, force } => crate::features::history::cmd_undo(o, *turns, *force),
            Command::Usage { all, since } => {
                crate::features::ledger::cmd_usage(o, *all, since.as_deref())
            }
            Command::Search {
                words,
                all_projects,
            } => crate::features::search::cmd_search(o, words, *all_projects),
            Command::Sessions { action } => crate::features::sessions::cmd_sessions(o, action),
        };
    }
    if o.send.is_some() || o.inject.is_some() {
        return crate::ipc::client::cmd_client(o);
    }
    if o.replay.is_some() || o.replay_frames.is_some() {
        return crate::ui::replay::cmd_replay(o);
    }
    crate::agent::runtime::cmd_agent(&cli)
}
